package io.tributary.coordinator.group;

import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.metadata.TopicPartition;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;

/**
 * Which committed offsets have expired, and which groups go with them: Kafka 4.4's offsets
 * retention ({@code offsets.retention.minutes}, KIP-211), as its group coordinator decides it in
 * {@code OffsetMetadataManager.cleanupExpiredOffsets} (each group type's {@code
 * offsetExpirationCondition} and {@code isSubscribedToTopic}) and {@code
 * GroupMetadataManager.maybeDeleteGroup}. Plain rules over a view of one group; the caller
 * ({@code kafka.GroupService#expireOffsets}) builds the views, runs the check every {@code
 * offsets-retention-check-interval} and deletes what expired through the stores.
 *
 * <h2>The rule</h2>
 *
 * An offset expires when {@code now - base >= retention}, where the base and the offsets that may
 * expire at all depend on the group:
 *
 * <ul>
 *   <li>a group with committed offsets only (a "simple" group: commits by admin clients and {@code
 *       assign()} consumers, or a KIP-848 group whose membership this coordinator does not hold): each
 *       offset from its own commit timestamp;
 *   <li>a KIP-848 consumer group, empty or not: each offset from its own commit timestamp, but only
 *       offsets of topics no member subscribes to (by name or through its regex) — Kafka's {@code
 *       ConsumerGroup} has no "since it became empty" rule, so an empty one behaves as a simple group;
 *   <li>a classic group without a protocol type (it never had a member): as a simple group;
 *   <li>an Empty classic group with a protocol type: every offset from the time the group became
 *       Empty (its stored {@code stateTimestampMs}, so a coordinator failover keeps the count going),
 *       whatever their commit timestamps;
 *   <li>a Stable classic group of protocol type {@code consumer} whose members' subscriptions could
 *       be read: offsets of topics no member subscribes to, each from its own commit timestamp;
 *   <li>any other classic group (rebalancing; another protocol type with members; subscriptions that
 *       cannot be read): nothing expires.
 * </ul>
 *
 * A group is deleted when it is empty (no members: an Empty classic group, a KIP-848 group without
 * members, any simple group) and every offset it had expired, which includes an empty group with
 * no offsets at all (Kafka forgets such a group at its next check too).
 *
 * <p>Not as Kafka: the per-offset retention of OffsetCommit v2–v4 ({@code RetentionTimeMs}, which
 * kafka-clients always sends as -1) is not stored, so the broker's retention applies to every
 * offset; there are no transactional offset commits to wait for.
 *
 * <p>Thread-safety: immutable; the views are values.
 */
public final class OffsetRetention {

    /** Kafka's default {@code offsets.retention.minutes}: 7 days. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

    /** Kafka's default {@code offsets.retention.check.interval.ms}: 10 minutes. */
    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofMinutes(10);

    private final Duration retention;

    /** @param retention how long an offset is kept (positive) */
    public OffsetRetention(Duration retention) {
        Objects.requireNonNull(retention, "retention");
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("the offsets retention must be positive, got " + retention);
        }
        this.retention = retention;
    }

    public Duration retention() {
        return retention;
    }

    /** How the rule sees one group. */
    public sealed interface GroupView permits SimpleGroupView, ConsumerGroupView, ClassicGroupView {
        String groupId();
    }

    /** A group known only by its committed offsets: no membership here, of either type. */
    public record SimpleGroupView(String groupId) implements GroupView {
        public SimpleGroupView {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /**
     * A KIP-848 consumer group whose membership this coordinator holds.
     *
     * @param empty whether it has no members
     * @param subscribedTopics the topics its members subscribe to now, by name or regex
     */
    public record ConsumerGroupView(String groupId, boolean empty, Set<String> subscribedTopics) implements GroupView {
        public ConsumerGroupView {
            Objects.requireNonNull(groupId, "groupId");
            subscribedTopics = Set.copyOf(subscribedTopics);
        }
    }

    /** A classic group's state, as far as retention tells them apart. */
    public enum ClassicPhase {
        /** No members. */
        EMPTY,
        /** PreparingRebalance or CompletingRebalance. */
        REBALANCING,
        /** The generation's assignment was handed out. */
        STABLE
    }

    /**
     * A classic group this coordinator holds.
     *
     * @param protocolType its members' protocol type; empty for a group that never had a member
     * @param phase its state
     * @param stateTimestampMs when it entered its state (for an Empty group: when it became empty)
     * @param subscribedTopics the topics its members subscribe to: none when it has no members; for
     *     protocol type {@code consumer}, the topics of their subscriptions; empty when unknown
     *     (another protocol type, or a subscription that cannot be read)
     */
    public record ClassicGroupView(
            String groupId,
            Optional<String> protocolType,
            ClassicPhase phase,
            long stateTimestampMs,
            Optional<Set<String>> subscribedTopics)
            implements GroupView {
        public ClassicGroupView {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(protocolType, "protocolType");
            Objects.requireNonNull(phase, "phase");
            subscribedTopics = subscribedTopics.map(Set::copyOf);
        }

        boolean usesConsumerProtocol() {
            return protocolType.filter(ConsumerProtocol.PROTOCOL_TYPE::equals).isPresent();
        }
    }

    /**
     * What one check decided for one group.
     *
     * @param expired the partitions whose offsets expired
     * @param deleteGroup whether the group goes too: it is empty and every offset it had expired
     */
    public record Expiry(String groupId, SortedSet<TopicPartition> expired, boolean deleteGroup) {
        public Expiry {
            Objects.requireNonNull(groupId, "groupId");
            expired = Collections.unmodifiableSortedSet(new TreeSet<>(expired));
        }

        /** Whether the check changes nothing for this group. */
        public boolean isNothing() {
            return expired.isEmpty() && !deleteGroup;
        }
    }

    /** When an offset's retention starts counting. */
    private interface Base {
        long of(CommittedOffset offset);
    }

    /**
     * Decides which of a group's offsets expired at {@code nowMs} and whether the group goes too.
     *
     * @param offsets the group's committed offsets (possibly none)
     */
    public Expiry expire(GroupView group, Map<TopicPartition, CommittedOffset> offsets, long nowMs) {
        Optional<Base> base = base(group);
        if (base.isEmpty()) {
            return new Expiry(group.groupId(), Collections.emptySortedSet(), false);
        }
        SortedSet<TopicPartition> expired = new TreeSet<>();
        boolean allExpired = true;
        for (var entry : offsets.entrySet()) {
            TopicPartition partition = entry.getKey();
            if (!subscribed(group, partition.topic())
                    && nowMs - base.get().of(entry.getValue()) >= retention.toMillis()) {
                expired.add(partition);
            } else {
                allExpired = false;
            }
        }
        return new Expiry(group.groupId(), expired, allExpired && empty(group));
    }

    /** Kafka's {@code offsetExpirationCondition} of each group type. */
    private static Optional<Base> base(GroupView group) {
        Base commitTimestamp = CommittedOffset::commitTimestampMs;
        return switch (group) {
            case SimpleGroupView simple -> Optional.of(commitTimestamp);
            case ConsumerGroupView consumer -> Optional.of(commitTimestamp);
            case ClassicGroupView classic -> {
                if (classic.protocolType().isEmpty()) {
                    yield Optional.of(commitTimestamp);
                }
                if (classic.phase() == ClassicPhase.EMPTY) {
                    long emptySinceMs = classic.stateTimestampMs();
                    yield Optional.of(offset -> emptySinceMs);
                }
                if (classic.phase() == ClassicPhase.STABLE
                        && classic.usesConsumerProtocol()
                        && classic.subscribedTopics().isPresent()) {
                    yield Optional.of(commitTimestamp);
                }
                yield Optional.empty();
            }
        };
    }

    /** Kafka's {@code isSubscribedToTopic}: offsets of such a topic never expire. */
    private static boolean subscribed(GroupView group, String topic) {
        return switch (group) {
            case SimpleGroupView simple -> false;
            case ConsumerGroupView consumer -> consumer.subscribedTopics().contains(topic);
            case ClassicGroupView classic ->
                classic.subscribedTopics().map(topics -> topics.contains(topic)).orElse(classic.usesConsumerProtocol());
        };
    }

    /** Kafka's {@code Group.isEmpty}: whether the group may be deleted once its offsets are gone. */
    private static boolean empty(GroupView group) {
        return switch (group) {
            case SimpleGroupView simple -> true;
            case ConsumerGroupView consumer -> consumer.empty();
            case ClassicGroupView classic -> classic.phase() == ClassicPhase.EMPTY;
        };
    }
}
