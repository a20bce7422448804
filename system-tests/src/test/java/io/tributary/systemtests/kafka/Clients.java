package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;

/** Kafka clients for a {@link KafkaTarget}, and the few steps every scenario shares. */
public final class Clients {

    /**
     * Safety nets that turn a hang into a failure (a cluster that never answers, a consumer that
     * never gets its records); not assertions on speed.
     */
    public static final Duration PATIENCE = Duration.ofSeconds(90);

    private Clients() {}

    /** A topic name no other test uses: {@code prefix-<random>}. */
    public static String uniqueTopic(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** A producer of byte arrays with {@code overrides} on top of the target's client settings. */
    public static KafkaProducer<byte[], byte[]> producer(KafkaTarget target, Map<String, Object> overrides) {
        Properties properties = target.clientProperties();
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(PATIENCE.toMillis()));
        properties.putAll(overrides);
        return new KafkaProducer<>(properties);
    }

    /** A consumer of byte arrays, no group (the tests assign partitions), with {@code overrides}. */
    public static KafkaConsumer<byte[], byte[]> consumer(KafkaTarget target, Map<String, Object> overrides) {
        Properties properties = target.clientProperties();
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(PATIENCE.toMillis()));
        properties.putAll(overrides);
        return new KafkaConsumer<>(properties);
    }

    /**
     * Creates a topic with the cluster's default replication factor (the request says -1: 1 on
     * the healthy targets, 3 on the degraded one, see {@link KafkaTarget#defaultReplicationFactor})
     * and waits until every partition has a leader in the metadata (Kafka creates asynchronously
     * too), returning its description.
     */
    public static TopicDescription createTopic(Admin admin, String name, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.empty())))
                .all()
                .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        return awaitLeaders(admin, name, partitions);
    }

    /**
     * Waits until the topic has {@code partitions} partitions, each with a leader in the metadata
     * and serving there: a ListOffsets of every partition's end is answered without error. The
     * metadata can name a leader before that broker serves the partition; on a loaded machine
     * Kafka 4.4's idempotent producer, writing in that window, was seen to get
     * {@code NOT_LEADER_OR_FOLLOWER}, then {@code OUT_OF_ORDER_SEQUENCE_NUMBER} until the send's
     * delivery timeout ({@code ConsumerGroupIT}, twice in a row on Kafka at load average 20+).
     */
    public static TopicDescription awaitLeaders(Admin admin, String name, int partitions) {
        TopicDescription[] seen = new TopicDescription[1];
        Awaitility.await("leaders of " + name)
                .atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    TopicDescription description = admin.describeTopics(Set.of(name))
                            .allTopicNames()
                            .get(10, TimeUnit.SECONDS)
                            .get(name);
                    seen[0] = description;
                    return description.partitions().size() == partitions
                            && description.partitions().stream()
                                    .allMatch(p ->
                                            p.leader() != null && !p.leader().isEmpty());
                });
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            ends.put(new TopicPartition(name, p), OffsetSpec.latest());
        }
        Awaitility.await("every partition of " + name + " served by its leader")
                .atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() ->
                        admin.listOffsets(ends).all().get(10, TimeUnit.SECONDS).size() == partitions);
        return seen[0];
    }

    /** Polls until {@code count} records arrived (or fails after {@link #PATIENCE}). */
    public static List<ConsumerRecord<byte[], byte[]>> pollAtLeast(KafkaConsumer<byte[], byte[]> consumer, int count) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(count);
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (records.size() < count && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(500)).forEach(records::add);
        }
        assertThat(records).as("records consumed within %s", PATIENCE).hasSizeGreaterThanOrEqualTo(count);
        return records;
    }

    /**
     * Reads {@code partitions}, assigned to {@code consumer}, from their beginning up to {@code
     * ends} (exclusive; records past them that a poll brings too are left out); fails after {@link
     * #PATIENCE}.
     */
    public static List<ConsumerRecord<byte[], byte[]>> readFromStart(
            KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> partitions, Map<TopicPartition, Long> ends) {
        consumer.seekToBeginning(partitions);
        List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
            assertThat(System.nanoTime())
                    .as("reading %s up to %s within %s", partitions, ends, PATIENCE)
                    .isLessThan(deadline);
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                if (record.offset() < ends.get(new TopicPartition(record.topic(), record.partition()))) {
                    read.add(record);
                }
            }
        }
        return read;
    }

    /** The partitions 0..n-1 of a topic. */
    public static List<TopicPartition> partitions(String topic, int count) {
        List<TopicPartition> partitions = new ArrayList<>(count);
        for (int p = 0; p < count; p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        return partitions;
    }

    /** A group's committed offsets (admin OffsetFetch), the partitions without one left out. */
    public static Map<TopicPartition, Long> committedOffsets(Admin admin, String group) throws Exception {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS)
                .forEach((partition, offset) -> {
                    if (offset != null) {
                        offsets.put(partition, offset.offset());
                    }
                });
        return offsets;
    }
}
