package io.tributary.systemtests.kafka;

import io.tributary.common.testing.KafkaBroker;
import java.util.Map;

/** A real Apache Kafka broker (KRaft, single node, node id 1) as a child JVM: the reference. */
final class ApacheKafkaTarget implements KafkaTarget {

    private final KafkaBroker broker;
    private GatewayProcess gateway;

    private ApacheKafkaTarget(KafkaBroker broker) {
        this.broker = broker;
    }

    static ApacheKafkaTarget start() throws Exception {
        // Kafka's defaults otherwise (message.max.bytes 1 MiB, 6-partition topics made by the tests);
        // 2 partitions for the auto-created internal topics keeps the start quick on 2 cores.
        // Consumer groups (KIP-848): a 1 s heartbeat and a 10 s session (Kafka's are 5 s and 45 s,
        // with minimums of 5 s and 45 s) so that ConsumerGroupIT's crashed member expires and the
        // group settles after each change in seconds. 10 s still leaves a static member that
        // closes time to come back before its partitions are given away.
        return new ApacheKafkaTarget(KafkaBroker.start(Map.of(
                "offsets.topic.num.partitions", "2",
                "group.consumer.min.heartbeat.interval.ms", "500",
                "group.consumer.heartbeat.interval.ms", "1000",
                "group.consumer.min.session.timeout.ms", "3000",
                "group.consumer.session.timeout.ms", "10000")));
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
    public synchronized String gatewayUrl() {
        if (gateway == null) {
            try {
                gateway = GatewayProcess.start(bootstrapServers(), "kafka-target-kafka-gateway.log");
            } catch (Exception e) {
                throw new IllegalStateException("could not start a gateway in front of " + this + ": " + e, e);
            }
        }
        return gateway.url();
    }

    @Override
    public synchronized String logsHint() {
        return "Apache Kafka (pid " + broker.pid() + ") logs in " + broker.home()
                + (gateway == null ? "" : "; " + gateway + " logs in " + gateway.logFile());
    }

    @Override
    public synchronized void close() {
        try {
            if (gateway != null) {
                gateway.close();
            }
        } finally {
            broker.close();
        }
    }

    @Override
    public String toString() {
        return "Apache Kafka at " + bootstrapServers();
    }
}
