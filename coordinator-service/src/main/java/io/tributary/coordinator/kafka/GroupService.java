package io.tributary.coordinator.kafka;

import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.OffsetStore;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.TopicIdPartition;
import io.tributary.coordinator.group.TopicView;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the group handlers share: the state machine, the offset store, the topics, the clock and
 * whether this coordinator leads. A coordinator that does not lead answers NOT_COORDINATOR and
 * forgets every group's membership (members join the leader again). So does a leader whose Raft
 * term changed since it last looked (it lost leadership and won it back between two requests and
 * ticks: another leader may have served the groups meanwhile).
 *
 * <p>Thread-safe: {@link GroupCoordinator} locks itself; the store is thread-safe.
 */
public final class GroupService {

    private final GroupCoordinator groups;
    private final OffsetStore offsets;
    private final TopicView topics;
    private final BooleanSupplier leader;
    private final LongSupplier term;
    private final InstantSource clock;
    private final AtomicLong servedTerm = new AtomicLong(Long.MIN_VALUE);

    /**
     * @param leader whether this coordinator is the Raft leader now
     * @param term the current Raft term (e.g. {@code MetadataRaftNode::currentTerm})
     */
    public GroupService(
            GroupCoordinator groups,
            OffsetStore offsets,
            TopicView topics,
            BooleanSupplier leader,
            LongSupplier term,
            InstantSource clock) {
        this.groups = Objects.requireNonNull(groups, "groups");
        this.offsets = Objects.requireNonNull(offsets, "offsets");
        this.topics = Objects.requireNonNull(topics, "topics");
        this.leader = Objects.requireNonNull(leader, "leader");
        this.term = Objects.requireNonNull(term, "term");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Without term tracking (tests, and a single voter whose leadership never changes hands). */
    public GroupService(
            GroupCoordinator groups,
            OffsetStore offsets,
            TopicView topics,
            BooleanSupplier leader,
            InstantSource clock) {
        this(groups, offsets, topics, leader, () -> 0, clock);
    }

    /** Whether this coordinator leads; forgets membership on a follower and when the term changed. */
    private boolean leads() {
        if (!leader.getAsBoolean()) {
            groups.clear(clock.millis());
            servedTerm.set(Long.MIN_VALUE);
            return false;
        }
        long now = term.getAsLong();
        if (servedTerm.getAndSet(now) != now) {
            groups.clear(clock.millis());
        }
        return true;
    }

    public GroupCoordinator groups() {
        return groups;
    }

    public OffsetStore offsets() {
        return offsets;
    }

    public TopicView topics() {
        return topics;
    }

    public long nowMs() {
        return clock.millis();
    }

    /**
     * Throws NOT_COORDINATOR unless this coordinator leads; on a follower it also drops every
     * group's membership.
     */
    public void requireLeader() {
        if (!leads()) {
            throw new GroupException(
                    Errors.NOT_COORDINATOR, "this coordinator is not the leader: find the group coordinator again");
        }
    }

    /** One tick of the timers on the leader; on a follower, forgets every group's membership. */
    public void tick() {
        if (!leads()) {
            return;
        }
        groups.tick(nowMs());
    }

    /**
     * The Kafka error for a store failure: not the leader (NOT_COORDINATOR: the client looks the
     * coordinator up again), unavailable (COORDINATOR_NOT_AVAILABLE: retriable), a bound exceeded
     * ({@code whenLimitExceeded}).
     */
    public static Errors storeError(OffsetStoreException e, Errors whenLimitExceeded) {
        return switch (e.reason()) {
            case NOT_LEADER -> Errors.NOT_COORDINATOR;
            case UNAVAILABLE -> Errors.COORDINATOR_NOT_AVAILABLE;
            case LIMIT_EXCEEDED -> whenLimitExceeded;
        };
    }

    /** A Kafka topic id as the core's UUID. */
    public static UUID uuid(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** The core's UUID as a Kafka topic id. */
    public static Uuid kafkaUuid(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** Partitions grouped by topic id, in order. */
    public static Map<UUID, List<Integer>> byTopic(SortedSet<TopicIdPartition> partitions) {
        Map<UUID, List<Integer>> byTopic = new TreeMap<>();
        for (TopicIdPartition partition : partitions) {
            byTopic.computeIfAbsent(partition.topicId(), id -> new ArrayList<>())
                    .add(partition.partition());
        }
        return byTopic;
    }
}
