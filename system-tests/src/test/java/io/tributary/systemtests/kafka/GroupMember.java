package io.tributary.systemtests.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One member of the scenario's consumer group: a {@code KafkaConsumer} of one of the group
 * protocols ({@link Protocol}: KIP-848, or the classic protocol with an eager or a cooperative
 * assignor) subscribed to one topic, in a loop of poll, process (report each record) and {@code
 * commitSync} of the next offsets of what it read and has not committed yet (what that poll
 * returned, and what a failed commit left of partitions it still owns), reporting every rebalance callback,
 * delivery and commit to {@code events} (the shared {@link GroupHistory} in this JVM, or the
 * standard output of a {@link ChildGroupMember}). {@link #leave()} ends the loop and closes the
 * consumer: a dynamic member leaves the group, with its revocation callback; a static member
 * ({@code group.instance.id}) of the classic protocol stays in the group until its session expires
 * (Kafka's default for a static member's close), so that the same instance can come back.
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

    /**
     * The classic members' session timeout: a crashed member's partitions move this long after its
     * last heartbeat. Kafka's {@code group.min.session.timeout.ms} is 6 s; 10 s, as for the KIP-848
     * groups of the targets ({@link KafkaTargets#KAFKA_GROUP_SETTINGS}), leaves a restarted static
     * member in a child JVM time to come back before its session expires on a loaded machine.
     */
    static final Duration CLASSIC_SESSION_TIMEOUT = Duration.ofSeconds(10);

    /** The classic members' heartbeat interval: a rebalance is noticed within about a second. */
    static final Duration CLASSIC_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

    /** The group protocol a member speaks, and with it who assigns the partitions and how. */
    enum Protocol {
        /** KIP-848: {@code group.protocol=consumer}, the coordinator assigns. */
        CONSUMER,
        /**
         * The classic protocol (no {@code group.protocol}: the {@code KafkaConsumer}'s default),
         * eager: {@code RangeAssignor}, every member gives up everything at each rebalance.
         */
        CLASSIC_EAGER,
        /**
         * The classic protocol, cooperative: {@code CooperativeStickyAssignor}, a member gives up
         * only the partitions that move (two rebalances when some do).
         */
        CLASSIC_COOPERATIVE
    }

    private final String name;
    private final String topic;
    private final Properties properties;
    private final Consumer<GroupHistory.Event> events;
    private final AtomicInteger assignedCallbacks = new AtomicInteger();
    private volatile int generationId = -1;
    private volatile boolean leaving;
    private volatile Runnable hold;
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
            Protocol protocol,
            String topic,
            Consumer<GroupHistory.Event> events) {
        this.name = name;
        this.topic = topic;
        this.events = events;
        this.properties = properties(name, bootstrapServers, groupId, instanceId, protocol);
    }

    /** The consumer settings of a KIP-848 member (see {@link #properties(String, String, String, String, Protocol)}). */
    static Properties properties(String name, String bootstrapServers, String groupId, String instanceId) {
        return properties(name, bootstrapServers, groupId, instanceId, Protocol.CONSUMER);
    }

    /**
     * The consumer settings of a member: its protocol (the classic ones with {@link
     * #CLASSIC_SESSION_TIMEOUT} and {@link #CLASSIC_HEARTBEAT_INTERVAL}; a KIP-848 member's come
     * from the coordinator), manual commits, from the beginning.
     */
    static Properties properties(
            String name, String bootstrapServers, String groupId, String instanceId, Protocol protocol) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        switch (protocol) {
            case CONSUMER -> properties.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            case CLASSIC_EAGER -> classic(properties, RangeAssignor.class);
            case CLASSIC_COOPERATIVE -> classic(properties, CooperativeStickyAssignor.class);
        }
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

    /** A classic member: {@code group.protocol} left at its default, the assignor, short timeouts. */
    private static void classic(Properties properties, Class<?> assignor) {
        properties.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor.getName());
        properties.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Long.toString(CLASSIC_SESSION_TIMEOUT.toMillis()));
        properties.put(
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Long.toString(CLASSIC_HEARTBEAT_INTERVAL.toMillis()));
    }

    String name() {
        return name;
    }

    /** Asks the loop to stop and close the consumer; {@link #run()} returns once it has. */
    void leave() {
        leaving = true;
    }

    /**
     * Makes the loop run {@code action} once, right after it has reported the deliveries of its
     * next poll and before it commits them; the action may block for good (a child about to be
     * killed, {@link ChildGroupMember#crash}): a crash then falls at a known point, with every
     * delivery reported and nothing committed that the history has not seen.
     */
    void holdBeforeNextCommit(Runnable action) {
        hold = action;
    }

    /**
     * The consumer's generation (classic) or member epoch (KIP-848) after its latest poll ({@code
     * groupMetadata().generationId()}), -1 before its first: a rebalance moves it on.
     */
    int generationId() {
        return generationId;
    }

    /**
     * How many times {@code onPartitionsAssigned} was called, empty assignments included: the
     * consumer calls it once at the end of every rebalance it takes part in, so it counts them.
     */
    int assignedCallbacks() {
        return assignedCallbacks.get();
    }

    /** What ended the loop other than {@link #leave()}, or null. */
    Throwable failure() {
        return failure;
    }

    @Override
    public void run() {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties);
        // The next offsets of what it read and has not committed yet, of partitions it owns. Only
        // the loop and the callbacks (which run inside poll, on the same thread) touch it.
        Map<TopicPartition, OffsetAndMetadata> uncommitted = new HashMap<>();
        try {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    assignedCallbacks.incrementAndGet();
                    if (!partitions.isEmpty()) {
                        events.accept(new GroupHistory.Assigned(name, indexes(partitions)));
                    }
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    uncommitted.keySet().removeAll(partitions);
                    if (!partitions.isEmpty()) {
                        events.accept(new GroupHistory.Revoked(name, indexes(partitions)));
                    }
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    uncommitted.keySet().removeAll(partitions);
                    if (!partitions.isEmpty()) {
                        events.accept(new GroupHistory.Lost(name, indexes(partitions)));
                    }
                }
            });
            while (!leaving) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
                generationId = consumer.groupMetadata().generationId();
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    long value = Long.parseLong(new String(record.value(), StandardCharsets.UTF_8));
                    events.accept(new GroupHistory.Delivered(name, record.partition(), record.offset(), value));
                    uncommitted.put(
                            new TopicPartition(record.topic(), record.partition()),
                            new OffsetAndMetadata(record.offset() + 1));
                }
                Runnable action = hold;
                if (action != null) {
                    hold = null;
                    action.run();
                }
                // Only what it still owns: the revocation callbacks dropped what it gave up.
                uncommitted.keySet().retainAll(consumer.assignment());
                if (uncommitted.isEmpty()) {
                    continue;
                }
                Map<Integer, Long> offsets = new TreeMap<>();
                uncommitted.forEach((tp, o) -> offsets.put(tp.partition(), o.offset()));
                try {
                    consumer.commitSync(Map.copyOf(uncommitted));
                    events.accept(new GroupHistory.Committed(name, offsets));
                    uncommitted.clear();
                } catch (KafkaException e) {
                    // Tried again after the next poll (a classic consumer's commit during a
                    // rebalance fails with RebalanceInProgressException; one that keeps the
                    // partition, cooperative, must still commit what it read).
                    events.accept(new GroupHistory.CommitFailed(name, offsets, e.toString()));
                }
            }
            // A clean leave (a static classic member's close does not leave): the revocation
            // callback and the leave request, bounded.
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
