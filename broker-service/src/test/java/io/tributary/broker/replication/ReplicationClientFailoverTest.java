package io.tributary.broker.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.testing.StubClientHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients' idempotent acks=all producer against three in-process brokers (RF=3) while the
 * leader is stopped and the coordinator moves leadership (as its liveness does for a fenced
 * broker): every acknowledged record is in the new leader's log exactly once, in send order.
 * Metadata and InitProducerId are stand-ins over each broker's own image (the real handlers belong
 * to the metadata issue).
 */
class ReplicationClientFailoverTest {

    private static final String TOPIC = "events";
    private static final int RECORDS = 600;

    @TempDir
    Path dir;

    private final FakeControlPlane coordinator = new FakeControlPlane();
    private final List<ReplicationTestBroker> brokers = new ArrayList<>();

    @AfterEach
    void stop() {
        brokers.forEach(ReplicationTestBroker::stop);
    }

    @Test
    void noAcknowledgedRecordIsLostOrDuplicatedWhenTheLeaderStopsMidStream() throws Exception {
        ReplicationConfig config = ReplicationConfig.defaults()
                .withLagTime(Duration.ofSeconds(2), Duration.ofMillis(200))
                .withFetchTiming(Duration.ofMillis(100), Duration.ofMillis(100));
        for (int id = 0; id < 3; id++) {
            brokers.add(new ReplicationTestBroker(
                            id,
                            dir.resolve("broker-" + id),
                            coordinator,
                            config,
                            b -> List.of(
                                    new StubClientHandlers.Metadata("failover", b.id, () -> b.follower.image()),
                                    new StubClientHandlers.InitProducerId()))
                    .start());
        }
        for (ReplicationTestBroker broker : brokers) {
            await().atMost(Duration.ofSeconds(30)).until(broker.follower::isActive);
        }
        long version = coordinator
                .createTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "2"))
                .version();
        for (ReplicationTestBroker broker : brokers) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> broker.follower.image().version() >= version);
        }

        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "512");
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        props.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "500");
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (var producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                sends.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, "value-" + i)));
                if (i == RECORDS / 3) {
                    // The leader dies with batches in flight; the coordinators fence it and elect broker 1 from the
                    // ISR.
                    brokers.get(0).stop();
                    coordinator.fence(0);
                    coordinator.electLeader(TOPIC, 0, 1, List.of(1, 2));
                }
            }
            producer.flush();
        }
        Set<String> acknowledged = new HashSet<>();
        for (int i = 0; i < RECORDS; i++) {
            try {
                sends.get(i).get();
                acknowledged.add("value-" + i);
            } catch (ExecutionException e) {
                // Not acknowledged: may or may not be in the log, but at most once.
            }
        }
        assertThat(acknowledged).hasSizeGreaterThan(RECORDS / 2);

        List<String> log = new ArrayList<>();
        Properties consumerProps = new Properties();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (var consumer = new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            for (int polls = 0; polls < 1_000 && consumer.position(tp) < end; polls++) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    log.add(record.value());
                }
            }
        }
        assertThat(log).as("no duplicates").doesNotHaveDuplicates();
        assertThat(log).as("every acknowledged record").containsAll(acknowledged);
        List<Integer> order = log.stream()
                .map(v -> Integer.parseInt(v.substring("value-".length())))
                .toList();
        assertThat(order).as("in send order").isSorted();
    }

    private String bootstrap() {
        return String.join(
                ",",
                brokers.stream()
                        .filter(ReplicationTestBroker::running)
                        .map(b -> "127.0.0.1:" + b.port())
                        .toList());
    }
}
