package io.tributary.systemtests.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One member of the scenario's consumer group: a {@code KafkaConsumer} with {@code
 * group.protocol=consumer} (KIP-848) subscribed to one topic, in a loop of poll, process (report
 * each record) and {@code commitSync} of the next offsets of what that poll returned, reporting
 * every rebalance callback, delivery and commit to {@code events} (the shared {@link GroupHistory}
 * in this JVM, or the standard output of a {@link ChildGroupMember}). {@link #leave()} ends the loop
 * and closes the consumer: a clean leave, with its revocation callback.
 *
 * <p>The record's value is the producer's sequence number as decimal text.
 */
final class GroupMember implements Runnable {

    /** How long one poll waits for records; the loop checks {@link #leave()} in between. */
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

    /**
     * How long {@code close} may take (revocation callback, leave heartbeat): a safety net that
     * keeps a target that never answers from holding the test up, not an assertion on speed.
     */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final String name;
    private final String topic;
    private final Properties properties;
    private final Consumer<GroupHistory.Event> events;
    private volatile boolean leaving;
    private volatile Throwable failure;

    /**
     * @param name the member's name in the history, also its {@code client.id}
     * @param instanceId {@code group.instance.id} for a static member, or null for a dynamic one
     */
    GroupMember(
            String name,
            String bootstrapServers,
            String groupId,
            String instanceId,
            String topic,
            Consumer<GroupHistory.Event> events) {
        this.name = name;
        this.topic = topic;
        this.events = events;
        this.properties = properties(name, bootstrapServers, groupId, instanceId);
    }

    /** The consumer settings of a member: the new protocol, manual commits, from the beginning. */
    static Properties properties(String name, String bootstrapServers, String groupId, String instanceId) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        properties.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        if (instanceId != null) {
            properties.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        }
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "200");
        properties.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(Clients.PATIENCE.toMillis()));
        return properties;
    }

    String name() {
        return name;
    }

    /** Asks the loop to stop and close the consumer; {@link #run()} returns once it has. */
    void leave() {
        leaving = true;
    }

    /** What ended the loop other than {@link #leave()}, or null. */
    Throwable failure() {
        return failure;
    }

    @Override
    public void run() {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties);
        try {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    if (!partitions.isEmpty()) {
                        events.accept(new GroupHistory.Assigned(name, indexes(partitions)));
                    }
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    if (!partitions.isEmpty()) {
                        events.accept(new GroupHistory.Revoked(name, indexes(partitions)));
                    }
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    if (!partitions.isEmpty()) {
                        events.accept(new GroupHistory.Lost(name, indexes(partitions)));
                    }
                }
            });
            while (!leaving) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
                if (records.isEmpty()) {
                    continue;
                }
                Map<TopicPartition, OffsetAndMetadata> next = new java.util.HashMap<>();
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    long value = Long.parseLong(new String(record.value(), StandardCharsets.UTF_8));
                    events.accept(new GroupHistory.Delivered(name, record.partition(), record.offset(), value));
                    next.put(
                            new TopicPartition(record.topic(), record.partition()),
                            new OffsetAndMetadata(record.offset() + 1));
                }
                Map<Integer, Long> offsets = new TreeMap<>();
                next.forEach((tp, o) -> offsets.put(tp.partition(), o.offset()));
                try {
                    consumer.commitSync(next);
                    events.accept(new GroupHistory.Committed(name, offsets));
                } catch (KafkaException e) {
                    events.accept(new GroupHistory.CommitFailed(name, offsets, e.toString()));
                }
            }
            // A clean leave: the revocation callback and the leave heartbeat, bounded.
            consumer.close(CloseOptions.timeout(CLOSE_TIMEOUT));
        } catch (Throwable t) {
            failure = t;
            consumer.close(CloseOptions.timeout(CLOSE_TIMEOUT));
        }
    }

    private static Set<Integer> indexes(Collection<TopicPartition> partitions) {
        Set<Integer> indexes = new TreeSet<>();
        partitions.forEach(p -> indexes.add(p.partition()));
        return indexes;
    }
}
