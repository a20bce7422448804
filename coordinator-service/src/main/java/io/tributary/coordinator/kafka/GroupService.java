package io.tributary.coordinator.kafka;

import io.tributary.coordinator.group.ClassicJoin;
import io.tributary.coordinator.group.ClassicProtocolMembers;
import io.tributary.coordinator.group.ConsumerGroupStore;
import io.tributary.coordinator.group.ConsumerMigrationPolicy;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.HeartbeatRequest;
import io.tributary.coordinator.group.HeartbeatResponse;
import io.tributary.coordinator.group.OffsetRetention;
import io.tributary.coordinator.group.OffsetRetention.Expiry;
import io.tributary.coordinator.group.OffsetRetention.GroupView;
import io.tributary.coordinator.group.OffsetStore;
import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.PendingWrites;
import io.tributary.coordinator.group.TopicIdPartition;
import io.tributary.coordinator.group.TopicView;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.Delete;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.LeavingMember;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.ProtocolCheck;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.Store;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.StoreTask;
import io.tributary.coordinator.group.classic.ClassicGroupStore;
import io.tributary.coordinator.group.classic.ClassicJoinResult;
import io.tributary.coordinator.group.classic.ClassicSyncResult;
import io.tributary.coordinator.group.streams.InternalTopicCreator;
import io.tributary.coordinator.group.streams.StreamsGroupCoordinator;
import io.tributary.coordinator.group.streams.StreamsHeartbeatRequest;
import io.tributary.coordinator.group.streams.StreamsHeartbeatResponse;
import io.tributary.coordinator.metadata.TopicPartition;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the group handlers share: the three state machines (KIP-848 consumer groups, classic groups,
 * KIP-1071 streams groups), the offset store, the stores of consumer groups and classic
 * generations, the creator of streams groups' internal topics, the topics, the clock and whether
 * this coordinator leads. A coordinator that does not lead answers NOT_COORDINATOR and forgets every
 * group (the leader serves them from the store). A leader whose Raft term changed since it last
 * looked (it became leader, or lost leadership and won it back between two requests and ticks:
 * another leader may have served the groups meanwhile) takes consumer and classic groups over from
 * the store, so their members go on at their epochs and generations without a rebalance; so does a
 * leader after a consumer group write failed (its memory may differ from the store). Streams groups
 * are held in memory only: a new term forgets them and their members join again.
 *
 * <p>Write before answer: a consumer group heartbeat's answer is sent only once the writes of what
 * it changed, and every write queued before them, are durable ({@link #flushConsumerStores}, in
 * order, under one lock); a failed write answers NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or
 * UNKNOWN_SERVER_ERROR (a bound), as Kafka's coordinator runtime maps its write errors.
 *
 * <p>Mixed groups (Kafka 4.4's online migration, {@link MixedGroups}): a classic request
 * (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) for a consumer group with members is served by that
 * group's classic members; a KIP-848 join into a classic group with members converts it to a
 * consumer group (the upgrade; GROUP_ID_NOT_FOUND when the migration policy, the protocol type, the
 * size or the members' metadata forbid it, as Kafka answers); a consumer group whose last KIP-848
 * member left or was removed, with classic members only, converts back to a classic group that
 * rebalances (the downgrade, after consumer heartbeats, classic leaves and ticks). Streams groups do
 * not mix: a classic join into a streams group with members is INCONSISTENT_GROUP_PROTOCOL, a
 * KIP-848 join into one GROUP_ID_NOT_FOUND, a streams join into a classic or consumer group with
 * members GROUP_ID_NOT_FOUND. An empty group of another type is forgotten and the id taken over
 * (its committed offsets stay).
 *
 * <p>Thread-safe: each state machine locks itself; the stores are thread-safe; joins of either type
 * are checked against the other under one lock ({@code types}); classic writes are made in order
 * under another ({@code storing}), consumer group writes under a third ({@code storingConsumers}),
 * which a load takes too, so no write of the state it replaces is in flight while it reads the
 * store; taking over after a term change is done once, under {@code leadership}, before any
 * request of the new term is served.
 */
public final class GroupService {

    private static final Logger log = LoggerFactory.getLogger(GroupService.class);

    private final GroupCoordinator groups;
    private final ClassicGroupCoordinator classic;
    private final StreamsGroupCoordinator streams;
    private final InternalTopicCreator internalTopics;
    private final OffsetStore offsets;
    private final ClassicGroupStore classicStore;
    private final ConsumerGroupStore consumerStore;
    private final Object types = new Object();
    private final Object storing = new Object();
    private final Object storingConsumers = new Object();
    private final Object leadership = new Object();
    private final TopicView topics;
    private final BooleanSupplier leader;
    private final LongSupplier term;
    private final InstantSource clock;
    private final AtomicLong servedTerm = new AtomicLong(Long.MIN_VALUE);
    /** When this coordinator last took the groups over (a new term as leader). */
    private final AtomicLong tookOverAtMs = new AtomicLong(Long.MIN_VALUE);

    private final MixedGroups mixed;

    /**
     * @param leader whether this coordinator is the Raft leader now
     * @param term the current Raft term (e.g. {@code MetadataRaftNode::currentTerm})
     * @param migrationPolicy whether groups with members move between the classic and the KIP-848
     *     protocol ({@code tributary.coordinator.groups.consumer-migration-policy})
     */
    public GroupService(
            GroupCoordinator groups,
            ClassicGroupCoordinator classic,
            StreamsGroupCoordinator streams,
            OffsetStore offsets,
            ClassicGroupStore classicStore,
            ConsumerGroupStore consumerStore,
            InternalTopicCreator internalTopics,
            TopicView topics,
            BooleanSupplier leader,
            LongSupplier term,
            InstantSource clock,
            ConsumerMigrationPolicy migrationPolicy) {
        this.groups = Objects.requireNonNull(groups, "groups");
        this.classic = Objects.requireNonNull(classic, "classic");
        this.streams = Objects.requireNonNull(streams, "streams");
        this.internalTopics = Objects.requireNonNull(internalTopics, "internalTopics");
        this.offsets = Objects.requireNonNull(offsets, "offsets");
        this.classicStore = Objects.requireNonNull(classicStore, "classicStore");
        this.consumerStore = Objects.requireNonNull(consumerStore, "consumerStore");
        this.topics = Objects.requireNonNull(topics, "topics");
        this.leader = Objects.requireNonNull(leader, "leader");
        this.term = Objects.requireNonNull(term, "term");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.mixed = new MixedGroups(groups, classic, migrationPolicy);
    }

    /**
     * Whether this coordinator leads; forgets every group on a follower, and when the term changed
     * (or a consumer group write failed) takes the groups over from the stores.
     */
    private boolean leads() {
        if (!leader.getAsBoolean()) {
            synchronized (leadership) {
                groups.clear();
                classic.clear();
                streams.clear(clock.millis());
                servedTerm.set(Long.MIN_VALUE);
            }
            return false;
        }
        long now = term.getAsLong();
        if (servedTerm.get() != now || groups.reloadNeeded()) {
            synchronized (leadership) {
                if (servedTerm.get() != now) {
                    tookOverAtMs.set(clock.millis());
                    streams.clear(clock.millis());
                    loadConsumerGroups();
                    classic.load(classicStore.load().values(), clock.millis());
                    servedTerm.set(now); // only now: other requests wait above until the groups are in
                } else if (groups.reloadNeeded()) {
                    loadConsumerGroups();
                }
            }
        }
        return true;
    }

    /** Loads the consumer groups, with no write of what they replace in flight. */
    private void loadConsumerGroups() {
        synchronized (storingConsumers) {
            groups.load(consumerStore.load().values(), clock.millis());
        }
        flushConsumerStores(); // groups whose topics changed while no one led moved on
    }

    public GroupCoordinator groups() {
        return groups;
    }

    public ClassicGroupCoordinator classic() {
        return classic;
    }

    public StreamsGroupCoordinator streams() {
        return streams;
    }

    /**
     * A classic JoinGroup, after checking that the group id is not a KIP-848 consumer group with
     * members (INCONSISTENT_GROUP_PROTOCOL); an empty one is forgotten.
     */
    public CompletableFuture<ClassicJoinResult> joinClassic(ClassicJoin join) {
        CompletableFuture<ClassicJoinResult> joined;
        ClassicProtocolMembers.Pending<ClassicJoinResult> pending = null;
        synchronized (types) {
            if (streams.hasMembers(join.groupId())) {
                throw new GroupException(
                        Errors.INCONSISTENT_GROUP_PROTOCOL,
                        "group " + join.groupId() + " is a streams group with members: the classic protocol cannot"
                                + " join it");
            }
            if (mixed.servesClassic(join.groupId())) {
                pending = mixed.join(join, nowMs());
                joined = CompletableFuture.completedFuture(pending.answer());
                mixed.downgrade(nowMs()); // a classic static member replaced the last KIP-848 one
            } else {
                groups.forgetIfEmpty(join.groupId());
                streams.forgetIfEmpty(join.groupId());
                joined = classic.join(join, nowMs());
            }
        }
        if (pending != null) {
            flushClassicStores();
            awaitWritten(pending.written(), "group " + join.groupId() + ": the join was not stored");
        }
        flushConsumerStores();
        return joined;
    }

    /**
     * A classic SyncGroup: into the classic group of its id, or into the consumer group whose
     * classic member sent it ({@link MixedGroups}). See {@link ClassicGroupCoordinator#sync}.
     */
    public CompletableFuture<ClassicSyncResult> syncClassic(
            String groupId,
            String memberId,
            Optional<String> instanceId,
            int generationId,
            Optional<ProtocolCheck> protocolCheck,
            Map<String, byte[]> assignments) {
        ClassicProtocolMembers.Pending<ClassicSyncResult> pending;
        synchronized (types) {
            if (!mixed.servesClassic(groupId)) {
                return classic.sync(groupId, memberId, instanceId, generationId, protocolCheck, assignments, nowMs());
            }
            pending = mixed.sync(groupId, memberId, instanceId, generationId, protocolCheck, nowMs());
        }
        awaitWritten(pending.written(), "group " + groupId + ": the sync was not stored");
        return CompletableFuture.completedFuture(pending.answer());
    }

    /** A classic Heartbeat, routed as {@link #syncClassic}. See {@link ClassicGroupCoordinator#heartbeat}. */
    public void heartbeatClassic(String groupId, String memberId, Optional<String> instanceId, int generationId) {
        synchronized (types) {
            if (mixed.servesClassic(groupId)) {
                mixed.heartbeat(groupId, memberId, instanceId, generationId, nowMs());
            } else {
                classic.heartbeat(groupId, memberId, instanceId, generationId, nowMs());
            }
        }
    }

    /**
     * A classic LeaveGroup, routed as {@link #syncClassic}; a consumer group left with classic
     * members only may convert back to a classic group. See {@link ClassicGroupCoordinator#leave}.
     */
    public List<Errors> leaveClassic(String groupId, List<LeavingMember> leaving) {
        ClassicProtocolMembers.Pending<List<Errors>> pending;
        synchronized (types) {
            if (!mixed.servesClassic(groupId)) {
                return classic.leave(groupId, leaving, nowMs());
            }
            pending = mixed.leave(groupId, leaving, nowMs());
        }
        flushClassicStores();
        awaitWritten(pending.written(), "group " + groupId + ": the leave was not stored");
        return pending.answer();
    }

    /**
     * A KIP-848 ConsumerGroupHeartbeat, after checking that the group id is not a classic group
     * with members (GROUP_ID_NOT_FOUND); an empty one is forgotten (its stored state deleted). The
     * answer is returned once what it changed is durable.
     *
     * @throws GroupException the heartbeat's error, or the error of a failed write
     */
    public HeartbeatResponse heartbeatConsumer(HeartbeatRequest request) {
        GroupCoordinator.Pending pending;
        synchronized (types) {
            if (streams.hasMembers(request.groupId())) {
                throw new GroupException(
                        Errors.GROUP_ID_NOT_FOUND,
                        "group " + request.groupId() + " is a streams group with members, not a consumer group");
            }
            if (classic.hasMembers(request.groupId())) {
                mixed.upgrade(request.groupId(), request.memberEpoch() == HeartbeatRequest.JOIN_EPOCH, nowMs());
            } else {
                classic.forgetIfEmpty(request.groupId());
            }
            streams.forgetIfEmpty(request.groupId());
            pending = groups.heartbeatDurably(request, nowMs());
            mixed.downgrade(nowMs()); // its last KIP-848 member left
        }
        flushClassicStores();
        awaitWritten(pending.written(), "group " + request.groupId() + ": the change was not stored");
        return pending.response();
    }

    /**
     * Forgets a consumer group without members (DeleteGroups) and returns once that is durable.
     *
     * @throws GroupException the error of a failed write
     */
    public void forgetConsumerGroup(String groupId) {
        awaitWritten(groups.forgetIfEmpty(groupId), "group " + groupId + ": its deletion was not stored");
    }

    private void awaitWritten(CompletableFuture<Optional<Errors>> written, String message) {
        flushConsumerStores();
        Optional<Errors> failure = written.join();
        if (failure.isPresent()) {
            throw new GroupException(failure.get(), message);
        }
    }

    /**
     * Makes the consumer groups' queued writes durable, in the order they were queued, and reports
     * each back (the answers waiting for them go out); after a failed write the rest are dropped
     * with the state they came from. Blocks for the Raft writes.
     */
    public void flushConsumerStores() {
        synchronized (storingConsumers) {
            for (PendingWrites.Write write : groups.drainWrites()) {
                if (!groups.live(write)) {
                    continue;
                }
                try {
                    switch (write) {
                        case PendingWrites.Append append -> consumerStore.append(append.groupId(), append.records());
                        case PendingWrites.Delete delete -> consumerStore.delete(delete.groupId());
                    }
                    groups.written(write);
                } catch (OffsetStoreException e) {
                    groups.writeFailed(write, storeError(e, Errors.UNKNOWN_SERVER_ERROR));
                }
            }
        }
    }

    /**
     * A StreamsGroupHeartbeat (KIP-1071), after checking that the group id is not a classic or
     * consumer group with members (GROUP_ID_NOT_FOUND); an empty one is forgotten. The internal
     * topics the group's topology lacks are then created (outside every lock; best effort, the next
     * heartbeat asks again).
     */
    public StreamsHeartbeatResponse heartbeatStreams(StreamsHeartbeatRequest request) {
        StreamsHeartbeatResponse response;
        synchronized (types) {
            if (classic.hasMembers(request.groupId()) || groups.hasMembers(request.groupId())) {
                throw new GroupException(
                        Errors.GROUP_ID_NOT_FOUND,
                        "group " + request.groupId() + " is a "
                                + (classic.hasMembers(request.groupId()) ? "classic" : "consumer")
                                + " group with members, not a streams group");
            }
            classic.forgetIfEmpty(request.groupId());
            groups.forgetIfEmpty(request.groupId());
            response = streams.heartbeat(request, nowMs());
        }
        flushClassicStores();
        flushConsumerStores(); // an empty consumer group forgotten above
        if (!response.topicsToCreate().isEmpty()) {
            internalTopics.create(response.topicsToCreate());
        }
        return response;
    }

    /**
     * Makes the classic groups' queued writes durable, in the order they were queued, and reports
     * each back (a stored assignment answers the SyncGroups waiting for it). Called after every
     * classic request and tick; blocks for the Raft writes.
     */
    public void flushClassicStores() {
        synchronized (storing) {
            for (StoreTask task : classic.drainStores()) {
                Optional<Errors> failure = Optional.empty();
                try {
                    switch (task) {
                        case Store store -> classicStore.store(store.record());
                        case Delete delete -> classicStore.delete(delete.groupId());
                    }
                } catch (OffsetStoreException e) {
                    failure = Optional.of(storeError(e, Errors.UNKNOWN_SERVER_ERROR));
                } catch (RuntimeException e) {
                    log.error("storing classic group {} failed", task.groupId(), e);
                    failure = Optional.of(Errors.UNKNOWN_SERVER_ERROR);
                }
                classic.stored(task, failure, nowMs());
            }
        }
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
        synchronized (types) {
            mixed.downgrade(nowMs()); // the last KIP-848 member's session expired
        }
        classic.tick(nowMs());
        streams.tick(nowMs());
        flushClassicStores();
        flushConsumerStores();
        var missing = streams.missingInternalTopics();
        if (!missing.isEmpty()) {
            internalTopics.create(missing);
        }
    }

    /**
     * One offsets retention check (Kafka's {@code offsets.retention.check.interval.ms} task), on the
     * leader: every group known here (classic, KIP-848 or streams with membership in memory, or with
     * committed offsets only; a streams group as a KIP-848 one, its topology's source topics as the
     * subscription) is judged by {@code retention} ({@link OffsetRetention} says how), its expired
     * offsets deleted through the offset store ({@code DeleteGroupOffsets} when all of them went,
     * else {@code DeleteOffsets}), and a group that is empty and lost every offset is deleted: a
     * classic group's stored generation through the classic store ({@code DeleteClassicGroup}), a
     * KIP-848 or streams group forgotten. Blocks for the Raft writes; one log line per group cleaned.
     *
     * <p>An offset is deleted only if it is still the one judged, so a partition committed again
     * while the group was judged keeps its new offset; a commit applied between that second look
     * and the deletion's own apply (one Raft round trip) is still lost (Kafka's coordinator
     * serialises the two; a conditional delete command would close this window).
     *
     * <p>Nothing expires within a session timeout of this coordinator taking the groups over: a
     * KIP-848 group's members (kept in memory only) have not joined again yet, and until they do
     * the group looks like one with offsets only, whose subscribed topics would not be protected.
     * A store failure ends the check (the next one tries again).
     *
     * @return what was deleted, group by group; nothing on a follower
     */
    public List<Expired> expireOffsets(OffsetRetention retention) {
        if (!leads()) {
            return List.of();
        }
        long nowMs = nowMs();
        if (nowMs - tookOverAtMs.get() < groups.config().sessionTimeout().toMillis()) {
            log.debug("offsets retention: skipped, the groups were taken over less than a session timeout ago");
            return List.of();
        }
        SortedSet<String> groupIds = new TreeSet<>(offsets.groups());
        groupIds.addAll(classic.groupIds());
        groupIds.addAll(groups.groupIds());
        groupIds.addAll(streams.describeAll().keySet());
        List<Expired> done = new ArrayList<>();
        for (String groupId : groupIds) {
            GroupView view = OffsetsExpiry.view(this, groupId);
            Map<TopicPartition, CommittedOffset> judged = offsets.fetch(groupId);
            Expiry expiry = retention.expire(view, judged, nowMs);
            if (expiry.isNothing()) {
                continue;
            }
            try {
                Expired expired = OffsetsExpiry.delete(this, view, expiry, judged);
                if (expired.offsets() > 0 || expired.groupDeleted()) {
                    log.info(
                            "group {}: {} committed offsets expired (offsets retention {}){}",
                            groupId,
                            expired.offsets(),
                            retention.retention(),
                            expired.groupDeleted() ? ", group deleted" : "");
                    done.add(expired);
                }
            } catch (OffsetStoreException e) {
                log.warn(
                        "offsets retention: deleting the expired offsets of group {} failed, the next check retries: {}",
                        groupId,
                        e.getMessage());
                break;
            }
        }
        return done;
    }

    /**
     * What one retention check deleted of one group.
     *
     * @param offsets how many committed offsets expired
     * @param groupDeleted whether the group itself was deleted
     */
    public record Expired(String groupId, int offsets, boolean groupDeleted) {}

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
