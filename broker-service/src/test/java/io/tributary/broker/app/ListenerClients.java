package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** kafka-clients' producer and consumer through one listener of a broker under test. */
final class ListenerClients {

    private ListenerClients() {}

    /**
     * Two records to partition 0 of {@code topic} with an acks=all producer, read back by a consumer
     * from the first; both clients must see the partition's leader at {@code leader} (this broker's
     * address on the listener). {@code client} holds the bootstrap servers and the security settings.
     */
    static List<String> produceAndConsume(Properties client, String topic, String prefix, Node leader)
            throws Exception {
        List<Long> offsets = new ArrayList<>();
        Properties producerConfig = new Properties();
        producerConfig.putAll(client);
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        // The fake coordinator allocates no producer ids: not idempotent.
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        producerConfig.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        producerConfig.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        var producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer());
        try {
            assertThat(producer.partitionsFor(topic))
                    .extracting(PartitionInfo::leader)
                    .containsExactly(leader);
            for (int i = 0; i < 2; i++) {
                RecordMetadata sent = producer.send(new ProducerRecord<>(
                                topic, 0, null, (prefix + "-" + i).getBytes(StandardCharsets.UTF_8)))
                        .get(30, TimeUnit.SECONDS);
                offsets.add(sent.offset());
            }
        } finally {
            producer.close(Duration.ofSeconds(5));
        }
        Properties consumerConfig = new Properties();
        consumerConfig.putAll(client);
        consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<String> read = new ArrayList<>();
        try (var consumer =
                new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            assertThat(consumer.partitionsFor(topic))
                    .extracting(PartitionInfo::leader)
                    .containsExactly(leader);
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seek(partition, offsets.getFirst());
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    read.add(new String(r.value(), StandardCharsets.UTF_8));
                }
                return read.size() >= 2;
            });
        }
        return read;
    }
}
