package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.testing.StubClientHandlers;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients' own {@code KafkaProducer} (idempotent, acks=all) and {@code KafkaConsumer} (assign,
 * seekToBeginning) against the data-path handlers. Metadata and InitProducerId are minimal
 * stand-ins written here over the same image (the real ones belong to the broker's metadata
 * handlers), so this checks the data path's compatibility with the real client, not those APIs.
 */
class KafkaClientsCompatibilityTest {

    static final int RECORDS = 2_000;

    @TempDir
    Path dir;

    private DataPathFixture broker;
    private KafkaProtocolServer server;

    @BeforeEach
    void start() {
        broker = new DataPathFixture(dir);
        List<RequestHandler> handlers = new ArrayList<>(broker.handlers());
        handlers.add(new StubClientHandlers.Metadata("compat", 0, () -> broker.metadata.image()));
        handlers.add(new StubClientHandlers.InitProducerId());
        server = new KafkaProtocolServer(
                ProtocolServerConfig.defaults("test", "127.0.0.1", 0),
                handlers,
                new ProtocolMetrics(new SimpleMeterRegistry(), "test"));
        server.start();
        // The image's broker 0 is this listener.
        ClusterImage image = broker.metadata.image();
        Map<Integer, BrokerInfo> brokers = new HashMap<>(image.brokers());
        BrokerInfo me = brokers.get(0);
        brokers.put(
                0,
                new BrokerInfo(
                        0,
                        me.incarnationId(),
                        List.of(new BrokerEndpoint("PLAINTEXT", "127.0.0.1", server.port())),
                        null,
                        false));
        broker.metadata.setImage(new ClusterImage(image.version(), brokers, image.topics()));
    }

    @AfterEach
    void stop() {
        server.close();
        broker.close();
    }

    @Test
    void anIdempotentProducerAndAConsumerRoundTripEveryRecord() throws Exception {
        Map<Integer, List<Long>> producedOffsets = new HashMap<>();
        Properties producerProps = new Properties();
        producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        producerProps.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        try (var producer = new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                var record = new ProducerRecord<>("orders", "key-" + i, "value-" + i);
                record.headers().add(new RecordHeader("n", Integer.toString(i).getBytes(StandardCharsets.US_ASCII)));
                sends.add(producer.send(record));
            }
            for (Future<RecordMetadata> send : sends) {
                RecordMetadata metadata = send.get();
                producedOffsets
                        .computeIfAbsent(metadata.partition(), p -> new ArrayList<>())
                        .add(metadata.offset());
            }
        }
        producedOffsets
                .values()
                .forEach(offsets -> assertThat(offsets)
                        .isEqualTo(java.util.stream.LongStream.range(0, offsets.size())
                                .boxed()
                                .toList()));
        assertThat(producedOffsets.keySet()).containsExactlyInAnyOrder(0, 1);

        Properties consumerProps = new Properties();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumerProps.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "4096");
        List<ConsumerRecord<String, String>> consumed = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            // Bounded by the number of polls, not by time: each poll long-polls the broker.
            for (int polls = 0; polls < 1_000 && consumed.size() < RECORDS; polls++) {
                consumer.poll(Duration.ofMillis(200)).forEach(consumed::add);
            }
            assertThat(consumer.endOffsets(partitions).values().stream()
                            .mapToLong(Long::longValue)
                            .sum())
                    .isEqualTo(RECORDS);
        }

        assertThat(consumed).hasSize(RECORDS);
        Map<Integer, Long> next = new HashMap<>();
        for (ConsumerRecord<String, String> record : consumed) {
            assertThat(record.offset()).isEqualTo(next.getOrDefault(record.partition(), 0L));
            next.put(record.partition(), record.offset() + 1);
            String n = record.key().substring("key-".length());
            assertThat(record.value()).isEqualTo("value-" + n);
            assertThat(new String(record.headers().lastHeader("n").value(), StandardCharsets.US_ASCII))
                    .isEqualTo(n);
        }
    }
}
