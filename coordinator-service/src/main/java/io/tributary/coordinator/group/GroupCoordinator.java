package io.tributary.coordinator.group;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer-group state machine of KIP-848 (server-side assignment), in memory on the
 * coordinator leader: groups, members, the group epoch, the target assignment and its epoch, member
 * epochs, and the incremental reconciliation of each member towards its target.
 *
 * <h2>Epochs</h2>
 *
 * The group epoch goes up whenever what the assignment depends on changes: a member joins or is
 * removed, a subscription or the group's assignor changes, or a subscribed topic is created,
 * deleted or grows. The target assignment is recomputed (by the group's {@link Assignor}) when the
 * group epoch is ahead of the assignment epoch, and then takes the group epoch. A member's epoch is
 * the assignment epoch it has reconciled to.
 *
 * <h2>Reconciliation, and why a partition never has two owners</h2>
 *
 * A member owns its {@code assigned} partitions and those {@code pendingRevocation}. On each of its
 * heartbeats a member behind the target moves towards it ({@link Reconciler}, Kafka's {@code
 * CurrentAssignmentBuilder}): it revokes first, and is given a partition only once no other member
 * owns it ({@link OwnershipIndex}, checked on every change).
 *
 * <h2>Parts</h2>
 *
 * This class holds the groups and runs each request through the parts: {@link HeartbeatValidator}
 * (the request's rules), {@link Membership} (who the member is, joins, static members, fencing),
 * {@link TargetAssigner} (subscribed topics, the assignor, the target assignment), {@link
 * Reconciler}, {@link OffsetRules} (who may commit and fetch). The state is {@link ConsumerGroup}
 * and {@link ConsumerGroupMember}.
 *
 * <h2>Durability and leadership</h2>
 *
 * What Kafka persists of a consumer group (the group epoch and assignor, each member's metadata,
 * epochs, state and owned partitions with their assignment epochs, the target assignment) is
 * written through a {@link ConsumerGroupStore} as {@link ConsumerGroupRecord}s: every change queues
 * the records of what it changed ({@link ConsumerGroupRecords#changes}, {@link PendingWrites}), and
 * its answer is sent only once those and every write queued before them are durable ({@link
 * #heartbeatDurably}): the caller drains the writes ({@link #drainWrites}), makes them durable in
 * order and reports each ({@link #written}, {@link #writeFailed}). A failed write drops every group
 * (what is in memory may differ from what is stored) and answers the waiting members with the
 * error; the groups are loaded again before the next request. A new leader loads the stored groups
 * ({@link #load}): members keep their epochs and assignments and carry on without joining again;
 * their sessions start afresh. A coordinator that loses leadership calls {@link #clear}. A group
 * created here starts at an epoch taken from the clock (seconds since 2024), not at 1, as defence in
 * depth against a group deleted and created again handing out epochs a member still holds.
 *
 * <h2>Thread-safety</h2>
 *
 * Every public method is {@code synchronized}; the lock is held only for in-memory work (no I/O:
 * the store is the caller's).
 * Time is a parameter ({@code nowMs}), never read here.
 */
public final class GroupCoordinator {

    private static final Logger log = LoggerFactory.getLogger(GroupCoordinator.class);

    /** Groups by id, in id order, to keep every result deterministic. */
    private final Map<String, ConsumerGroup> groups = new TreeMap<>();

    private final GroupConfig config;
    private final HeartbeatValidator validator;

    // Package-private for the classes that serve classic members and convert groups under this
    // object's lock (ClassicProtocolMembers, GroupMigration).
    final TopicView topics;
    final TargetAssigner assigner;
    final Membership membership;

    /**
     * Groups that lost a member since {@link GroupMigration#takeDowngrades} last looked at them, each
     * with its epoch before the first of those removals (a downgraded group's generation, as Kafka).
     */
    final Map<String, Integer> downgradeCandidates = new TreeMap<>();

    /** The writes that make the groups' changes durable, and the answers waiting for them. */
    final PendingWrites writes = new PendingWrites();

    /** Whether a write failed since the groups were last loaded: they must be loaded again. */
    private boolean reloadNeeded;

    public GroupCoordinator(GroupConfig config, TopicView topics) {
        this.config = Objects.requireNonNull(config, "config");
        this.topics = Objects.requireNonNull(topics, "topics");
        this.validator = new HeartbeatValidator(config);
        this.membership = new Membership(config, validator);
        this.assigner = new TargetAssigner(Objects.requireNonNull(topics, "topics"), config.defaultAssignor());
    }

    public GroupConfig config() {
        return config;
    }

    // ------------------------------------------------------------------------------------------
    // Heartbeat

    /**
     * Serves one ConsumerGroupHeartbeat.
     *
     * @throws GroupException with the Kafka error to answer (INVALID_REQUEST, GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID,
     *     FENCED_MEMBER_EPOCH, UNSUPPORTED_ASSIGNOR, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID,
     *     GROUP_MAX_SIZE_REACHED, INVALID_REGULAR_EXPRESSION, COORDINATOR_NOT_AVAILABLE)
     */
    public synchronized HeartbeatResponse heartbeat(HeartbeatRequest request, long nowMs) {
        return heartbeatDurably(request, nowMs).response();
    }

    /**
     * A heartbeat's answer and when it may be sent: once every write queued up to it is durable
     * ({@code written} completes empty), or with the error to answer instead when one failed.
     */
    public record Pending(HeartbeatResponse response, CompletableFuture<Optional<Errors>> written) {}

    /**
     * Serves one ConsumerGroupHeartbeat, queueing the writes of what it changed (see {@link
     * #drainWrites}); the answer is to be sent once they are durable.
     *
     * @throws GroupException as {@link #heartbeat}
     */
    public synchronized Pending heartbeatDurably(HeartbeatRequest request, long nowMs) {
        HeartbeatResponse response = serve(request, nowMs);
        return new Pending(response, writes.durable());
    }

    private HeartbeatResponse serve(HeartbeatRequest request, long nowMs) {
        validator.validate(request);
        int epoch = request.memberEpoch();
        if (epoch == HeartbeatRequest.LEAVE_EPOCH || epoch == HeartbeatRequest.STATIC_LEAVE_EPOCH) {
            return leave(request, nowMs);
        }
        ConsumerGroup group = groups.get(request.groupId());
        if (group == null) {
            if (epoch != HeartbeatRequest.JOIN_EPOCH) {
                throw unknownGroup(request.groupId());
            }
            if (groups.size() >= config.maxGroups()) {
                evictAnEmptyGroup();
            }
            if (groups.size() >= config.maxGroups()) {
                throw new GroupException(
                        Errors.COORDINATOR_NOT_AVAILABLE,
                        "this coordinator already holds " + config.maxGroups()
                                + " groups (tributary.coordinator.groups.max-groups)");
            }
            group = new ConsumerGroup(
                    request.groupId(), MemberRules.initialGroupEpoch(nowMs), config.defaultAssignor());
            groups.put(group.groupId, group);
        }
        try {
            return heartbeat(group, request, nowMs);
        } finally {
            if (group.members.isEmpty() && group.groupEpoch == group.assignmentEpoch && group.target.isEmpty()) {
                // A join that failed leaves no empty group behind it.
                forget(group);
            } else {
                store(group);
            }
        }
    }

    /** Queues the records of what changed in a group since it was last stored. */
    void store(ConsumerGroup group) {
        writes.append(group.groupId, ConsumerGroupRecords.changes(group));
    }

    /** Forgets a group, and deletes what was stored of it. */
    void forget(ConsumerGroup group) {
        groups.remove(group.groupId, group);
        if (group.storedGroup != null) {
            writes.delete(group.groupId);
        }
    }

    /**
     * Makes room for a new group by forgetting one without members (its committed offsets, if any,
     * stay in the store; it shows as an offsets-only group).
     */
    private void evictAnEmptyGroup() {
        for (ConsumerGroup group : groups.values()) {
            if (group.members.isEmpty()) {
                forget(group);
                log.info("group {}: forgotten (no members) to make room for a new group", group.groupId);
                return;
            }
        }
    }

    private HeartbeatResponse heartbeat(ConsumerGroup group, HeartbeatRequest request, long nowMs) {
        int epoch = request.memberEpoch();
        int epochBefore = group.groupEpoch;
        ConsumerGroupMember member = membership.findOrJoin(group, request);
        boolean ackAllowed = epoch == HeartbeatRequest.JOIN_EPOCH || epoch == member.memberEpoch;
        if (epoch != HeartbeatRequest.JOIN_EPOCH) {
            Membership.checkEpoch(member, request);
        }
        SortedSet<TopicIdPartition> assignedBefore = new TreeSet<>(member.assigned);
        boolean subscriptionChanged = membership.update(member, request);
        if (subscriptionChanged) {
            group.bump("member " + member.memberId + " subscription");
        }
        assigner.update(group, epochBefore);
        Optional<SortedSet<TopicIdPartition>> owned = epoch == HeartbeatRequest.JOIN_EPOCH
                ? Optional.of(Collections.emptySortedSet())
                : Reconciler.trustedOwned(request.ownedPartitions(), assignedBefore);
        Reconciler.reconcile(group, member, owned, ackAllowed, nowMs);
        group.touch(member);
        member.sessionDeadlineMs = nowMs + config.sessionTimeout().toMillis();
        Optional<SortedSet<TopicIdPartition>> assignment = request.isFull() || !assignedBefore.equals(member.assigned)
                ? Optional.of(new TreeSet<>(member.assigned))
                : Optional.empty();
        return new HeartbeatResponse(member.memberId, member.memberEpoch, heartbeatIntervalMs(), assignment);
    }

    private int heartbeatIntervalMs() {
        return Math.toIntExact(config.heartbeatInterval().toMillis());
    }

    private HeartbeatResponse leave(HeartbeatRequest request, long nowMs) {
        int epoch = request.memberEpoch();
        ConsumerGroup group = groups.get(request.groupId());
        ConsumerGroupMember member = group == null ? null : group.members.get(request.memberId());
        if (group != null && request.instanceId().isPresent()) {
            MemberRules.checkInstanceHolder(
                    request.instanceId().get(),
                    request.memberId(),
                    Optional.ofNullable(
                            group.staticMembers.get(request.instanceId().get())));
        }
        if (member == null) {
            // Leaving a group one is not in is done already (e.g. removed after its session timeout).
            return new HeartbeatResponse(request.memberId(), epoch, heartbeatIntervalMs(), Optional.empty());
        }
        try {
            return leave(group, member, epoch, nowMs);
        } finally {
            store(group);
        }
    }

    private HeartbeatResponse leave(ConsumerGroup group, ConsumerGroupMember member, int epoch, long nowMs) {
        if (epoch == HeartbeatRequest.STATIC_LEAVE_EPOCH && member.instanceId != null) {
            // Kept, assignment and all, until it comes back or its session times out. What it was
            // revoking is released now: the process stopped consuming before it said goodbye.
            group.owners.set(member, member.assigned, Collections.emptySortedSet(), 0);
            // As Kafka: what it keeps counts as owned since epoch 0 (whoever takes the instance id over).
            member.assignmentEpochs.replaceAll((partition, assignedAt) -> 0);
            member.state = MemberState.STABLE;
            member.setEpoch(HeartbeatRequest.STATIC_LEAVE_EPOCH);
            member.sessionDeadlineMs = nowMs + config.sessionTimeout().toMillis();
            member.rebalanceDeadlineMs = Long.MAX_VALUE;
            group.touch(member);
            log.info(
                    "group {}: static member {} left for now (instance id {})",
                    group.groupId,
                    member.memberId,
                    member.instanceId);
            return new HeartbeatResponse(member.memberId, epoch, heartbeatIntervalMs(), Optional.empty());
        }
        removeMember(group, member, "left");
        return new HeartbeatResponse(
                member.memberId, HeartbeatRequest.LEAVE_EPOCH, heartbeatIntervalMs(), Optional.empty());
    }

    void removeMember(ConsumerGroup group, ConsumerGroupMember member, String why) {
        downgradeCandidates.putIfAbsent(group.groupId, group.groupEpoch);
        group.remove(member);
        group.bump("member " + member.memberId + " " + why);
        log.info("group {}: member {} {}", group.groupId, member.memberId, why);
    }

    // ------------------------------------------------------------------------------------------
    // Timers

    /**
     * Removes members whose session or rebalance timeout passed, and bumps the epoch of groups whose
     * subscribed topics changed. Called periodically on the leader (the wiring's tick).
     *
     * @return how many members were removed
     */
    public synchronized int tick(long nowMs) {
        int removed = 0;
        for (ConsumerGroup group : groups.values()) {
            for (ConsumerGroupMember member : List.copyOf(group.members.values())) {
                if (nowMs > member.sessionDeadlineMs) {
                    removeMember(group, member, "removed: session timeout");
                    removed++;
                } else if (member.state == MemberState.UNREVOKED_PARTITIONS && nowMs > member.rebalanceDeadlineMs) {
                    removeMember(
                            group,
                            member,
                            "removed: did not revoke " + member.pendingRevocation + " within its rebalance timeout of "
                                    + member.rebalanceTimeoutMs + " ms");
                    removed++;
                } else if (nowMs > Math.min(member.classicJoinDeadlineMs, member.classicSyncDeadlineMs)) {
                    removeMember(
                            group,
                            member,
                            "removed: did not " + (nowMs > member.classicJoinDeadlineMs ? "join again" : "sync")
                                    + " within its rebalance timeout of " + member.rebalanceTimeoutMs + " ms");
                    removed++;
                }
            }
            assigner.refreshTopics(group);
            store(group);
        }
        return removed;
    }

    // ------------------------------------------------------------------------------------------
    // Durability and leadership

    /**
     * Forgets every group (this coordinator lost leadership: the new leader loads them from the
     * store); writes not yet made are dropped and whoever waits for them is answered NOT_COORDINATOR.
     */
    public synchronized void clear() {
        if (!groups.isEmpty()) {
            log.info("dropping the membership of {} groups: no longer the group coordinator", groups.size());
        }
        groups.clear();
        downgradeCandidates.clear();
        writes.fail(Errors.NOT_COORDINATOR);
    }

    /**
     * Takes the stored groups over (a new leader, or after a failed write): members keep their
     * epochs and assignments; their sessions, and the rebalance timeouts of members revoking, start
     * at {@code nowMs} ({@link ConsumerGroupRecords#load}). What was in memory is dropped first.
     */
    public synchronized void load(Collection<StoredConsumerGroup> stored, long nowMs) {
        clear();
        reloadNeeded = false;
        for (StoredConsumerGroup s : stored) {
            ConsumerGroup group = ConsumerGroupRecords.load(
                    s,
                    nowMs,
                    config.sessionTimeout().toMillis(),
                    config.defaultAssignor(),
                    this::compileStored,
                    assigner);
            groups.put(group.groupId, group);
            store(group); // a group whose topics changed while no one led moved on
        }
        if (!stored.isEmpty()) {
            log.info("took over {} consumer groups", stored.size());
        }
    }

    private com.google.re2j.Pattern compileStored(String regex) {
        try {
            return validator.compile(regex);
        } catch (GroupException e) {
            log.warn("a stored subscription regex no longer compiles: {}", e.getMessage());
            return null;
        }
    }

    /** The writes to make durable, in order; report each with {@link #written} or {@link #writeFailed}. */
    public synchronized List<PendingWrites.Write> drainWrites() {
        return writes.drain();
    }

    /** Whether a drained write is still to be made (no failure or leadership change dropped it). */
    public synchronized boolean live(PendingWrites.Write write) {
        return writes.live(write);
    }

    /** A drained write is durable. */
    public synchronized void written(PendingWrites.Write write) {
        writes.written(write);
    }

    /**
     * A drained write failed: what is in memory may now differ from what is stored, so every group
     * is dropped (as on a leadership loss) and must be loaded again ({@link #reloadNeeded}); every
     * waiting answer gets {@code error} (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, or
     * UNKNOWN_SERVER_ERROR for a bound).
     */
    public synchronized void writeFailed(PendingWrites.Write write, Errors error) {
        if (!writes.live(write)) {
            return;
        }
        log.warn("consumer group {}: a write failed ({}): the groups are loaded again", write.groupId(), error);
        groups.clear();
        writes.fail(error);
        reloadNeeded = true;
    }

    /** Whether the groups must be loaded from the store again (a write failed). */
    public synchronized boolean reloadNeeded() {
        return reloadNeeded;
    }

    /** Completes once every write queued so far is durable (empty), or with the error of a failed one. */
    public synchronized CompletableFuture<Optional<Errors>> durable() {
        return writes.durable();
    }

    // ------------------------------------------------------------------------------------------
    // Offsets

    /** Who an accepted offset commit came from. */
    public enum Committer {
        /** No member: an admin client or a consumer without group management, into a group with no members. */
        ADMIN,
        /** A member of the group at its current epoch. */
        MEMBER,
        /**
         * A member of a consumer group that speaks the classic protocol, at its generation (its
         * member epoch): any OffsetCommit version.
         */
        CLASSIC_MEMBER
    }

    /**
     * Whether an OffsetCommit may be applied (KIP-848 rules, with KIP-1251's assignment epochs, as
     * Kafka 4.4's group coordinator):
     *
     * <ul>
     *   <li>member epoch -1 (any negative) into a group with no members, or one unknown here: an
     *       admin client or a consumer without group management ({@link Committer#ADMIN});
     *   <li>a group unknown here and epoch 0 or more: GROUP_ID_NOT_FOUND, as Kafka (a new leader
     *       loads the stored groups, so a member from before a failover is known);
     *   <li>a member id not in the group: UNKNOWN_MEMBER_ID (a removed member's commits are refused);
     *   <li>the member's current epoch: accepted;
     *   <li>a newer epoch: STALE_MEMBER_EPOCH;
     *   <li>an older epoch (the client had not seen the heartbeat response that moved it on when it
     *       sent the commit): accepted only if every committed partition is owned by the member
     *       (assigned or pending revocation) since that epoch or before; else STALE_MEMBER_EPOCH. A
     *       partition that moved to another member in between was released by this one, so its
     *       old-epoch commit is refused.
     * </ul>
     *
     * @param partitions the committed partitions (a topic that does not resolve to an id is given
     *     as a partition of a topic id no member owns)
     * @throws GroupException GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH or FENCED_INSTANCE_ID
     */
    public synchronized Committer validateCommit(
            String groupId,
            String memberId,
            int memberEpoch,
            Optional<String> instanceId,
            Set<TopicIdPartition> partitions) {
        ConsumerGroup group = groups.get(groupId);
        return OffsetRules.validateCommit(group, groupId, memberId, memberEpoch, instanceId, partitions);
    }

    /** What a heartbeat of a member (epoch above 0) to a group unknown here gets, as in Kafka. */
    private static GroupException unknownGroup(String groupId) {
        return new GroupException(Errors.GROUP_ID_NOT_FOUND, "group " + groupId + " does not exist");
    }

    /**
     * Whether an OffsetFetch may be answered: without a member id and with epoch -1 always (admin);
     * a member at its current epoch.
     *
     * @throws GroupException UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH
     */
    public synchronized void validateFetch(String groupId, Optional<String> memberId, int memberEpoch) {
        OffsetRules.validateFetch(groups.get(groupId), groupId, memberId, memberEpoch);
    }

    /** The names of the topics the group's members subscribe to now (OffsetDelete refuses those). */
    public synchronized Set<String> subscribedTopicNames(String groupId) {
        ConsumerGroup group = groups.get(groupId);
        if (group == null) {
            return Set.of();
        }
        Map<String, TopicView.TopicInfo> resolved = new TreeMap<>();
        Set<String> names = new TreeSet<>();
        for (ConsumerGroupMember member : group.members.values()) {
            assigner.subscribedTopics(member, resolved);
            names.addAll(member.subscribedTopicNames);
        }
        names.addAll(resolved.keySet());
        return Set.copyOf(names);
    }

    // ------------------------------------------------------------------------------------------
    // Describe, list, delete

    /** The group, if this coordinator holds it in memory. */
    public synchronized Optional<GroupDescription> describe(String groupId) {
        return Optional.ofNullable(groups.get(groupId)).map(ConsumerGroup::describe);
    }

    /** Every group in memory, by id. */
    public synchronized SortedMap<String, GroupDescription> describeAll() {
        SortedMap<String, GroupDescription> all = new TreeMap<>();
        for (String groupId : groups.keySet()) {
            all.put(groupId, describe(groupId).orElseThrow());
        }
        return all;
    }

    /**
     * Checks that a group may be deleted (it has no members).
     *
     * @throws GroupException NON_EMPTY_GROUP
     */
    public synchronized void checkDeletable(String groupId) {
        ConsumerGroup group = groups.get(groupId);
        if (group != null && !group.members.isEmpty()) {
            throw new GroupException(
                    Errors.NON_EMPTY_GROUP, "group " + groupId + " has " + group.members.size() + " members");
        }
    }

    /**
     * Forgets a group that has no members (after its offsets were deleted, or its id taken by a
     * classic group), deleting what is stored of it.
     *
     * @return completes once that is durable (empty), or with the error of a failed write
     */
    public synchronized CompletableFuture<Optional<Errors>> forgetIfEmpty(String groupId) {
        ConsumerGroup group = groups.get(groupId);
        if (group != null && group.members.isEmpty()) {
            forget(group);
        }
        return writes.durable();
    }

    /** Whether the group is held here and has members. */
    public synchronized boolean hasMembers(String groupId) {
        ConsumerGroup group = groups.get(groupId);
        return group != null && !group.members.isEmpty();
    }

    /** How many groups are held in memory. */
    public synchronized int groupCount() {
        return groups.size();
    }

    /** How many members all groups have together. */
    public synchronized int memberCount() {
        int members = 0;
        for (ConsumerGroup group : groups.values()) {
            members += group.members.size();
        }
        return members;
    }

    /** Whether the group is held in memory (it has or had members since this coordinator leads). */
    public synchronized boolean contains(String groupId) {
        return groups.containsKey(groupId);
    }

    /** The ids of the groups held in memory, in order (offsets retention visits them). */
    public synchronized SortedSet<String> groupIds() {
        return new TreeSet<>(groups.keySet());
    }

    /**
     * The length in UTF-8 bytes of a committed offset's metadata, checked against {@link
     * GroupConfig#maxMetadataBytes}.
     */
    public boolean metadataTooLarge(String metadata) {
        return OffsetRules.metadataTooLarge(metadata, config.maxMetadataBytes());
    }

    // ------------------------------------------------------------------------------------------
    // For the classes that serve classic members and conversions under this object's lock

    /** The group held here, or null. */
    ConsumerGroup group(String groupId) {
        return groups.get(groupId);
    }

    /** Holds a group (a converted one). */
    void put(ConsumerGroup group) {
        groups.put(group.groupId, group);
    }

    /**
     * Checks the ownership index of every group against the members (simulation and tests): every
     * owned partition has exactly one owner, and the index says who.
     */
    public synchronized void checkInvariants() {
        groups.values().forEach(ConsumerGroup::checkOwnership);
    }
}
