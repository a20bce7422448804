package io.tributary.systemtests.cluster;

import io.tributary.systemtests.kafka.Clients;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two consumers of one group (KIP-848 or classic: {@code group.protocol}), polled in turn by the
 * test's thread, each committing (commitSync) the next offsets of what its poll returned.
 * Remembers every delivered value, the highest offset committed per partition, any delivery
 * below an offset committed before it, and the errors the consumers threw.
 */
final class TwoMembers implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TwoMembers.class);

    /** The most a member's commitSync may block (the clients' default is the API timeout). */
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(10);

    private final List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
    private final Set<Long> delivered = new HashSet<>();
    private final Map<TopicPartition, Long> committedByUs = new HashMap<>();
    private final List<String> belowCommitted = new ArrayList<>();
    private final Set<String> errors = new TreeSet<>();

    /** Rebalance callbacks (assignments and revocations) since {@link #markRebalances}. */
    private final AtomicInteger rebalances = new AtomicInteger();

    /** Nanos of the longest time since {@link #markRebalances} without a record delivered to a member. */
    private final Map<Integer, Long> lastDelivery = new HashMap<>();

    private long longestGapNanos;

    /** @param protocol {@code consumer} (KIP-848) or {@code classic} */
    TwoMembers(ClusterTarget target, String group, String topic, String protocol) {
        for (int i = 0; i < 2; i++) {
            KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(
                    target,
                    Map.of(
                            ConsumerConfig.GROUP_ID_CONFIG,
                            group,
                            ConsumerConfig.GROUP_PROTOCOL_CONFIG,
                            protocol,
                            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                            "earliest",
                            ConsumerConfig.CLIENT_ID_CONFIG,
                            group + "-member-" + i));
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    if (!partitions.isEmpty()) {
                        rebalances.incrementAndGet();
                    }
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    if (!partitions.isEmpty()) {
                        rebalances.incrementAndGet();
                    }
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    rebalances.incrementAndGet();
                }
            });
            consumers.add(consumer);
        }
    }

    /** Starts counting rebalance callbacks and measuring gaps in delivery from now. */
    void markRebalances() {
        rebalances.set(0);
        long now = System.nanoTime();
        for (int i = 0; i < consumers.size(); i++) {
            lastDelivery.put(i, now);
        }
        longestGapNanos = 0;
    }

    /** Rebalance callbacks (non-empty assignments, revocations, losses) since {@link #markRebalances}. */
    int rebalancesSinceMark() {
        return rebalances.get();
    }

    /** The longest time a member went without a record since {@link #markRebalances}. */
    Duration longestGap() {
        return Duration.ofNanos(longestGapNanos);
    }

    /** One poll of each member, and the commit of what it returned. */
    void pollOnce() {
        for (int member = 0; member < consumers.size(); member++) {
            KafkaConsumer<byte[], byte[]> consumer = consumers.get(member);
            Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
            try {
                var records = consumer.poll(Duration.ofMillis(200));
                if (!records.isEmpty() && lastDelivery.containsKey(member)) {
                    long now = System.nanoTime();
                    longestGapNanos = Math.max(longestGapNanos, now - lastDelivery.put(member, now));
                }
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                    long committed = committedByUs.getOrDefault(partition, 0L);
                    if (record.offset() < committed) {
                        belowCommitted.add(partition + "@" + record.offset() + " after " + committed + " committed");
                    }
                    delivered.add(Long.parseLong(new String(record.value(), StandardCharsets.UTF_8)));
                    next.put(partition, new OffsetAndMetadata(record.offset() + 1));
                }
            } catch (RuntimeException e) {
                errors.add("poll: " + e.getClass().getName());
                log.warn("poll failed", e);
            }
            if (!next.isEmpty()) {
                try {
                    // bounded well below the patience: a commit blocked while the group's
                    // coordinator moves must not use up a whole pollUntil without another poll
                    consumer.commitSync(next, COMMIT_TIMEOUT);
                    next.forEach((partition, offset) -> committedByUs.merge(partition, offset.offset(), Math::max));
                } catch (RuntimeException e) {
                    // a commit may fail while the coordinator moves (the client says so); what
                    // was committed is checked through the admin, and re-deliveries above the
                    // last successful commit are allowed
                    log.info("commit failed: {}", e.toString());
                }
            }
        }
    }

    /** Polls until {@code condition} holds; fails after {@link Clients#PATIENCE} naming {@code what}. */
    void pollUntil(String what, MultiBrokerIT.Check condition) {
        pollUntil(what, condition, () -> "");
    }

    /**
     * Polls until {@code condition} holds; fails after {@link Clients#PATIENCE} naming {@code what},
     * with {@code detail} (what is still missing), each member's assignment and positions, and
     * the offsets the members committed.
     */
    void pollUntil(String what, MultiBrokerIT.Check condition, Supplier<String> detail) {
        long deadline = System.nanoTime() + Clients.PATIENCE.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            pollOnce();
            try {
                if (condition.holds()) {
                    return;
                }
            } catch (Exception e) {
                last = e.toString();
            }
        }
        throw new AssertionError(what + ": not within " + Clients.PATIENCE + " (" + last + "); consumer errors "
                + errors + ", " + delivered.size() + " values delivered; " + detail.get() + "; members "
                + positions() + ", committed by the members " + byName(committedByUs));
    }

    /** {@code offsets} in partition name order (TopicPartition is not Comparable), for a failure message. */
    private static Map<String, Long> byName(Map<TopicPartition, Long> offsets) {
        Map<String, Long> sorted = new TreeMap<>();
        offsets.forEach((partition, offset) -> sorted.put(partition.toString(), offset));
        return sorted;
    }

    /** Each member's assigned partitions with its position in each, for a failure message. */
    private List<String> positions() {
        List<String> all = new ArrayList<>();
        for (KafkaConsumer<byte[], byte[]> consumer : consumers) {
            Map<String, String> byPartition = new TreeMap<>();
            for (TopicPartition partition : consumer.assignment()) {
                String position;
                try {
                    position = Long.toString(consumer.position(partition, Duration.ofSeconds(2)));
                } catch (RuntimeException e) {
                    position = e.getClass().getSimpleName();
                }
                byPartition.put(partition.toString(), position);
            }
            all.add(consumer.groupMetadata().memberId() + "@"
                    + consumer.groupMetadata().generationId() + " " + byPartition);
        }
        return all;
    }

    /**
     * Each member's id and epoch as the consumer itself knows them ({@code groupMetadata()}: the
     * id it sends and the epoch of its last heartbeat answer).
     */
    Map<String, Integer> memberEpochs() {
        Map<String, Integer> epochs = new TreeMap<>();
        consumers.forEach(
                c -> epochs.put(c.groupMetadata().memberId(), c.groupMetadata().generationId()));
        return epochs;
    }

    boolean bothAssigned() {
        return consumers.stream().allMatch(c -> !c.assignment().isEmpty());
    }

    /** Polls until the group is STABLE with both members and every partition assigned; returns it. */
    ConsumerGroupDescription awaitStable(Admin admin, int partitions) {
        String group = consumers.getFirst().groupMetadata().groupId();
        ConsumerGroupDescription[] seen = new ConsumerGroupDescription[1];
        try {
            pollUntil("the group STABLE with both members and every partition assigned", () -> {
                seen[0] = admin.describeConsumerGroups(List.of(group))
                        .describedGroups()
                        .get(group)
                        .get(10, TimeUnit.SECONDS);
                return seen[0].groupState() == GroupState.STABLE
                        && seen[0].members().size() == 2
                        && seen[0].members().stream()
                                        .map(MemberDescription::assignment)
                                        .mapToInt(a -> a.topicPartitions().size())
                                        .sum()
                                == partitions;
            });
        } catch (AssertionError e) {
            if (seen[0] == null) {
                throw e;
            }
        }
        return seen[0];
    }

    Set<Long> deliveredValues() {
        return delivered;
    }

    List<String> belowCommitted() {
        return belowCommitted;
    }

    Set<String> errors() {
        return errors;
    }

    @Override
    public void close() {
        for (KafkaConsumer<byte[], byte[]> consumer : consumers) {
            try {
                consumer.close(Duration.ofSeconds(10));
            } catch (RuntimeException e) {
                log.info("closing a member failed: {}", e.toString());
            }
        }
    }
}
