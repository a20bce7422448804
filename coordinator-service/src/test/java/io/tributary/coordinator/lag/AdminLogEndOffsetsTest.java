package io.tributary.coordinator.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.tributary.common.testing.KafkaBroker;
import io.tributary.coordinator.lag.ConsumerLagMonitor.Series;
import io.tributary.coordinator.metadata.CommittedOffset;
import io.tributary.coordinator.metadata.Endpoint;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.RegisterBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Lag against a real single Apache Kafka broker ({@link KafkaBroker}, a child process on 127.0.0.1):
 * the image names it as the one live broker, the monitor learns log end offsets through a real
 * kafka-clients Admin.
 */
class AdminLogEndOffsetsTest {

    private static KafkaBroker kafka;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = KafkaBroker.start();
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new NewTopic("lag-t", 2, (short) 1)))
                    .all()
                    .get();
        }
        Properties producerProps = new Properties();
        producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (var producer = new KafkaProducer<String, String>(producerProps)) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>("lag-t", 0, null, "r" + i)).get();
            }
            for (int i = 0; i < 2; i++) {
                producer.send(new ProducerRecord<>("lag-t", 1, null, "r" + i)).get();
            }
        }
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void theLeaderComputesLagFromTheBrokersLogEndOffsets() {
        MetadataImage image = MetadataImage.EMPTY
                .apply(new RegisterBroker(
                        0,
                        Fixtures.incarnation(0, 0),
                        List.of(new Endpoint("PLAINTEXT", "127.0.0.1", kafka.port())),
                        Optional.empty(),
                        0))
                .apply(new UnfenceBroker(0, Fixtures.incarnation(0, 0)))
                .apply(Fixtures.createTopic("lag-t", List.of(List.of(0), List.of(0))))
                .apply(new CommitOffsets(
                        "g",
                        Map.of(
                                new TopicPartition("lag-t", 0), new CommittedOffset(1, 0, "", 0),
                                new TopicPartition("lag-t", 1), new CommittedOffset(2, 0, "", 0))));
        try (var ends = new AdminLogEndOffsets(Duration.ofSeconds(20), Admin::create)) {
            var monitor = new ConsumerLagMonitor(() -> image, () -> true, ends, 100);

            assertThat(monitor.refresh()).as("(5 - 1) + (2 - 2)").containsExactly(entry(new Series("g", "lag-t"), 4L));
        }
    }
}
