package io.tributary.systemtests.kafka;

import io.tributary.common.testing.KafkaBroker;
import java.util.HashMap;
import java.util.Map;

/** A real Apache Kafka broker (KRaft, single node, node id 1) as a child JVM: the reference. */
final class ApacheKafkaTarget implements KafkaTarget {

    private final KafkaBroker broker;
    private final LazyGateway gateway;

    private ApacheKafkaTarget(KafkaBroker broker) {
        this.broker = broker;
        this.gateway = new LazyGateway(broker::bootstrapServers, "kafka-target-kafka-gateway.log");
    }

    static ApacheKafkaTarget start() throws Exception {
        // Kafka's defaults otherwise (message.max.bytes 1 MiB, 6-partition topics made by the tests);
        // 2 partitions for the auto-created internal topics keeps the start quick on 2 cores.
        Map<String, String> settings = new HashMap<>(KafkaTargets.KAFKA_GROUP_SETTINGS);
        settings.put("offsets.topic.num.partitions", "2");
        // CompactionIT waits for the cleaner: it runs every 250 ms (Kafka's default is 15 s), as
        // tributary.broker.log-cleaner.backoff on the Tributary targets
        settings.put("log.cleaner.backoff.ms", "250");
        return new ApacheKafkaTarget(KafkaBroker.start(settings));
    }

    @Override
    public KafkaTargets.Kind kind() {
        return KafkaTargets.Kind.KAFKA;
    }

    @Override
    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    @Override
    public Map<Integer, Integer> brokerPorts() {
        return Map.of(1, broker.port());
    }

    /** The gateway in front of this broker, started on first use (only the gateway tests need it). */
    @Override
    public String gatewayUrl() {
        return gateway.url();
    }

    @Override
    public synchronized String logsHint() {
        return "Apache Kafka (pid " + broker.pid() + ") logs in " + broker.home() + gateway.logsHint();
    }

    @Override
    public synchronized void close() {
        try {
            gateway.close();
        } finally {
            broker.close();
        }
    }

    @Override
    public String toString() {
        return "Apache Kafka at " + bootstrapServers();
    }
}
