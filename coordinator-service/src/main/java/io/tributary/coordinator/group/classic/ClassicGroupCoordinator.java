package io.tributary.coordinator.group.classic;

import io.tributary.coordinator.group.ClassicGeneration;
import io.tributary.coordinator.group.ClassicJoin;
import io.tributary.coordinator.group.GroupCoordinator.Committer;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.OffsetRetention;
import io.tributary.coordinator.group.OffsetRetention.ClassicGroupView;
import io.tributary.coordinator.group.OffsetRetention.ClassicPhase;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic group protocol's state machine (Kafka's JoinGroup, SyncGroup, Heartbeat and
 * LeaveGroup), for every classic group this coordinator leads: generations, the join barrier,
 * protocol selection, leader-side assignment handed out as opaque bytes, static membership
 * (KIP-345) and member ids confirmed by a second join (KIP-394). The protocol type is anything
 * ({@code consumer}, {@code connect}, ...): the assignment is the members' business.
 *
 * <h2>A rebalance</h2>
 *
 * A member joining, leaving, expiring, or joining again with other protocols (or as the leader)
 * moves the group to PreparingRebalance. Each member's JoinGroup then waits ({@link #join} returns
 * an uncompleted future) until every member joined again, or the group's rebalance timeout (the
 * largest of its members') passed; members that did not join by then are removed, static ones
 * excepted (a leader that did not join hands the lead to a member that did; when only static
 * members are left and none joined, the barrier waits another rebalance timeout). The first rebalance of an empty group also waits {@code initialRebalanceDelay}, longer
 * while members keep coming. Then the generation goes up, a protocol is chosen and every waiting
 * JoinGroup is answered; the leader's answer lists the members with their metadata. The group is
 * CompletingRebalance until the leader's SyncGroup brings the assignment; it is stored ({@link
 * #drainStores}: the caller makes it durable, then reports through {@link #stored}) before any
 * member's SyncGroup is answered with its part, and the group is Stable. A member that does not
 * send its SyncGroup within the rebalance timeout after the join completed is removed.
 *
 * <p>Timers (sessions, the join barrier, the SyncGroup deadline) run on the caller's {@link #tick};
 * sessions also before a Heartbeat is answered: a member whose session ran out since the last tick
 * is removed first, so a survivor's heartbeat hears of the rebalance at once, as from Kafka's
 * per-member session timers, not a heartbeat interval later (the caller makes what the removal
 * queued durable, {@link #drainStores}).
 *
 * <h2>Durability</h2>
 *
 * What Kafka persists of a classic group (its generation: protocol, leader, members, their
 * metadata and assignments) is written through the store when a generation's assignment is
 * handed out and when the group becomes empty; {@link #load} rebuilds the groups from it on a new
 * leader, Stable at the stored generation with every member's session started afresh, so members
 * carry on heartbeating without a rebalance. A rebalance in progress is not stored: its members
 * get ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID from the new leader and join again.
 *
 * <h2>Parts</h2>
 *
 * This class is the facade: it holds the groups and the queue of writes ({@link #drainStores}),
 * answers SyncGroup, Heartbeat and LeaveGroup, and delegates the rest, all under its lock:
 * {@link ClassicJoins} the JoinGroup logic (validation, new and existing members, KIP-394 pending
 * member ids, a static member's rejoin and fencing); {@link ClassicRebalance} the rebalance
 * mechanics (preparing, the join barrier, failed syncs, removing members, each group's timers, a
 * stored or failed assignment); {@link ClassicGroup} one group's state, its answers, views and
 * checks (DescribeGroups, OffsetDelete's subscribed topics, OffsetCommit's rules, invariants).
 *
 * <h2>Thread-safety</h2>
 *
 * Every public method is {@code synchronized} and does in-memory work only; futures are completed
 * under the lock (callers only wait on them). Time is a parameter ({@code nowMs}); member ids come
 * from the {@code ids} supplier.
 */
public final class ClassicGroupCoordinator {

    private static final Logger log = LoggerFactory.getLogger(ClassicGroupCoordinator.class);

    /** A write the caller makes durable (in order), then reports with {@link #stored}. */
    public sealed interface StoreTask {
        String groupId();
    }

    /**
     * Store a group's generation.
     *
     * @param completesSync whether members' SyncGroups wait for it (the leader's assignment)
     */
    public record Store(ClassicGroupRecord record, boolean completesSync) implements StoreTask {
        @Override
        public String groupId() {
            return record.groupId();
        }
    }

    /** Forget a group's stored generation (the group was deleted). */
    public record Delete(String groupId) implements StoreTask {}

    /** The protocol type and name a SyncGroup v5 names, checked against the group's. */
    public record ProtocolCheck(Optional<String> type, Optional<String> name) {}

    /** A member named in a LeaveGroup (v3+: by member id, by instance id, or both). */
    public record LeavingMember(String memberId, Optional<String> instanceId) {}

    private final ClassicGroupConfig config;
    private final Map<String, ClassicGroup> groups = new TreeMap<>();
    private final ArrayDeque<StoreTask> stores = new ArrayDeque<>();
    private final ClassicRebalance rebalance;
    private final ClassicJoins joins;

    /** @param ids where new member ids' random part comes from ({@code UUID::randomUUID}) */
    public ClassicGroupCoordinator(ClassicGroupConfig config, Supplier<UUID> ids) {
        this.config = Objects.requireNonNull(config, "config");
        this.rebalance = new ClassicRebalance(config, stores::add);
        this.joins = new ClassicJoins(config, Objects.requireNonNull(ids, "ids"), rebalance, stores::add);
    }

    public ClassicGroupConfig config() {
        return config;
    }

    // ------------------------------------------------------------------------------------------
    // JoinGroup

    /**
     * A JoinGroup. The future completes when the member's join is answered: at once for errors,
     * MEMBER_ID_REQUIRED and a join that changes nothing, else when the rebalance's join barrier
     * completes (at most the group's rebalance timeout later, through {@link #tick}).
     *
     * @throws GroupException for a request refused at once (INVALID_GROUP_ID,
     *     INVALID_SESSION_TIMEOUT, INVALID_REQUEST, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID,
     *     INCONSISTENT_GROUP_PROTOCOL, GROUP_MAX_SIZE_REACHED, COORDINATOR_NOT_AVAILABLE)
     */
    /**
     * Checks what a JoinGroup must carry whatever group it joins (group id, session timeout within
     * bounds, ids, protocol sizes).
     *
     * @throws GroupException INVALID_GROUP_ID, INVALID_SESSION_TIMEOUT, INVALID_REQUEST
     */
    public void validate(ClassicJoin join) {
        joins.validate(join);
    }

    public synchronized CompletableFuture<ClassicJoinResult> join(ClassicJoin join, long nowMs) {
        joins.validate(join);
        ClassicGroup group = groups.get(join.groupId());
        if (group == null) {
            if (!join.memberId().isEmpty()) {
                throw new GroupException(
                        Errors.UNKNOWN_MEMBER_ID,
                        "member " + join.memberId() + " joined group " + join.groupId() + ", which does not exist");
            }
            makeRoom(join.groupId());
            // Created even when the join is refused below, as Kafka does (it is then Empty).
            group = new ClassicGroup(join.groupId(), nowMs);
            groups.put(join.groupId(), group);
        }
        return joins.join(group, join, nowMs);
    }

    /** Forgets an empty group to make room for a new one, or refuses (retriable). */
    private void makeRoom(String groupId) {
        if (groups.size() < config.maxGroups()) {
            return;
        }
        for (var it = groups.values().iterator(); it.hasNext(); ) {
            ClassicGroup candidate = it.next();
            if (candidate.state == ClassicGroupState.EMPTY && candidate.pendingMembers.isEmpty()) {
                it.remove();
                return;
            }
        }
        throw new GroupException(
                Errors.COORDINATOR_NOT_AVAILABLE,
                "cannot create group " + groupId + ": this coordinator holds its most classic groups, "
                        + config.maxGroups() + ", all with members");
    }

    // ------------------------------------------------------------------------------------------
    // SyncGroup

    /**
     * A SyncGroup. The future completes at once in Stable (the member's assignment) and for
     * errors; in CompletingRebalance when the leader's assignment is stored.
     *
     * @param protocolCheck the protocol type and name the member names (SyncGroup v5; a name not
     *     sent is empty, and must then match an absent protocol), to check against the group's
     * @param assignments the leader's assignment by member id (empty from followers)
     * @throws GroupException UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION,
     *     INCONSISTENT_GROUP_PROTOCOL, REBALANCE_IN_PROGRESS, INVALID_REQUEST
     */
    public synchronized CompletableFuture<ClassicSyncResult> sync(
            String groupId,
            String memberId,
            Optional<String> instanceId,
            int generationId,
            Optional<ProtocolCheck> protocolCheck,
            Map<String, byte[]> assignments,
            long nowMs) {
        ClassicGroup group = existing(groupId);
        ClassicMember member = group.member(memberId, instanceId);
        if (generationId != group.generationId) {
            throw group.illegalGeneration(generationId);
        }
        if (protocolCheck.isPresent()
                && (!protocolCheck.get().type().equals(group.protocolType)
                        || !protocolCheck.get().name().equals(group.protocolName))) {
            throw new GroupException(
                    Errors.INCONSISTENT_GROUP_PROTOCOL,
                    "group " + groupId + " runs " + group.protocolType.orElse("") + "/"
                            + group.protocolName.orElse("") + ", not "
                            + protocolCheck.get().type().orElse("(none)") + "/"
                            + protocolCheck.get().name().orElse("(none)"));
        }
        member.sessionDeadlineMs = nowMs + member.sessionTimeoutMs;
        switch (group.state) {
            case PREPARING_REBALANCE ->
                throw new GroupException(
                        Errors.REBALANCE_IN_PROGRESS, "group " + groupId + " is rebalancing: join again");
            case STABLE -> {
                group.pendingSync.remove(memberId);
                return CompletableFuture.completedFuture(group.syncAnswer(member));
            }
            case COMPLETING_REBALANCE -> {
                boolean assigns = group.isLeader(memberId) && group.storingGeneration != generationId;
                if (assigns) {
                    for (var entry : assignments.entrySet()) {
                        if (entry.getValue().length > config.maxProtocolBytes()) {
                            throw new GroupException(
                                    Errors.INVALID_REQUEST,
                                    "the assignment of " + entry.getKey() + " takes " + entry.getValue().length
                                            + " bytes, more than " + config.maxProtocolBytes());
                        }
                    }
                }
                group.pendingSync.remove(memberId);
                if (member.awaitingSync != null) {
                    member.awaitingSync.complete(ClassicSyncResult.failed(Errors.REBALANCE_IN_PROGRESS));
                }
                member.awaitingSync = new CompletableFuture<>();
                CompletableFuture<ClassicSyncResult> answer = member.awaitingSync;
                if (assigns) {
                    for (ClassicMember m : group.members.values()) {
                        byte[] assignment = assignments.get(m.memberId);
                        m.assignment = assignment == null ? new byte[0] : assignment.clone();
                    }
                    group.storingGeneration = generationId;
                    stores.add(new Store(group.record(), true));
                }
                return answer;
            }
            default -> throw new IllegalStateException("group " + groupId + " is empty but has a member");
        }
    }

    // ------------------------------------------------------------------------------------------
    // Heartbeat and LeaveGroup

    /**
     * A Heartbeat: keeps the member's session.
     *
     * @throws GroupException UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION, or
     *     REBALANCE_IN_PROGRESS (the member must join again; its session is kept)
     */
    public synchronized void heartbeat(
            String groupId, String memberId, Optional<String> instanceId, int generationId, long nowMs) {
        ClassicGroup group = existing(groupId);
        rebalance.expireSessions(group, nowMs);
        ClassicMember member = group.member(memberId, instanceId);
        if (generationId != group.generationId) {
            throw group.illegalGeneration(generationId);
        }
        member.sessionDeadlineMs = nowMs + member.sessionTimeoutMs;
        if (group.state == ClassicGroupState.PREPARING_REBALANCE) {
            throw new GroupException(Errors.REBALANCE_IN_PROGRESS, "group " + groupId + " is rebalancing: join again");
        }
    }

    /**
     * A LeaveGroup: each named member leaves (a static member also by its instance id alone).
     *
     * @return each member's error, in order: NONE, UNKNOWN_MEMBER_ID (also every member of a group
     *     that does not exist) or FENCED_INSTANCE_ID
     */
    public synchronized List<Errors> leave(String groupId, List<LeavingMember> leaving, long nowMs) {
        ClassicGroup group = groups.get(groupId);
        List<Errors> errors = new ArrayList<>();
        if (group == null) {
            leaving.forEach(member -> errors.add(Errors.UNKNOWN_MEMBER_ID));
            return errors;
        }
        for (LeavingMember leaver : leaving) {
            if (leaver.instanceId().isPresent()) {
                String holder = group.staticMembers.get(leaver.instanceId().get());
                if (holder == null) {
                    errors.add(Errors.UNKNOWN_MEMBER_ID);
                } else if (!leaver.memberId().isEmpty() && !leaver.memberId().equals(holder)) {
                    errors.add(Errors.FENCED_INSTANCE_ID);
                } else {
                    rebalance.removeMember(group, group.members.get(holder), "left the group", nowMs);
                    errors.add(Errors.NONE);
                }
            } else if (group.pendingMembers.remove(leaver.memberId()) != null) {
                rebalance.maybeCompleteJoin(group, nowMs);
                errors.add(Errors.NONE);
            } else if (group.members.containsKey(leaver.memberId())) {
                rebalance.removeMember(group, group.members.get(leaver.memberId()), "left the group", nowMs);
                errors.add(Errors.NONE);
            } else {
                errors.add(Errors.UNKNOWN_MEMBER_ID);
            }
        }
        return errors;
    }

    private ClassicGroup existing(String groupId) {
        ClassicGroup group = groups.get(groupId);
        if (group == null) {
            throw new GroupException(Errors.UNKNOWN_MEMBER_ID, "group " + groupId + " does not exist");
        }
        return group;
    }

    // ------------------------------------------------------------------------------------------
    // Timers, durability, leadership

    /**
     * Enforces the timers: members that did not confirm their member id, sessions, the join
     * barrier's deadline (with the initial delay's extensions) and the SyncGroup deadline.
     *
     * @return how many members were removed
     */
    public synchronized int tick(long nowMs) {
        int removed = 0;
        for (ClassicGroup group : List.copyOf(groups.values())) {
            removed += rebalance.tick(group, nowMs);
        }
        return removed;
    }

    /**
     * The writes to make durable, in the order they must be made; the caller reports each with
     * {@link #stored}.
     */
    public synchronized List<StoreTask> drainStores() {
        List<StoreTask> drained = List.copyOf(stores);
        stores.clear();
        return drained;
    }

    /**
     * A write of {@link #drainStores} was made durable ({@code failure} empty) or failed with the
     * error members are answered with (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
     * UNKNOWN_SERVER_ERROR). A stored assignment makes the group Stable and answers the waiting
     * SyncGroups; a failed one answers them with the error and rebalances, as Kafka does.
     */
    public synchronized void stored(StoreTask task, Optional<Errors> failure, long nowMs) {
        if (!(task instanceof Store store) || !store.completesSync()) {
            failure.ifPresent(
                    error -> log.warn("group {}: storing its state failed: {}", task.groupId(), error.exceptionName()));
            return;
        }
        ClassicGroup group = groups.get(task.groupId());
        if (group != null) {
            rebalance.assignmentStored(group, store.record().generationId(), failure, nowMs);
        }
    }

    /**
     * Forgets every group (this coordinator lost leadership): whatever members wait for is answered
     * NOT_COORDINATOR, so they find the new leader.
     */
    public synchronized void clear() {
        for (ClassicGroup group : groups.values()) {
            for (ClassicMember member : group.members.values()) {
                member.failWaiting(Errors.NOT_COORDINATOR);
            }
        }
        if (!groups.isEmpty()) {
            log.info("dropping {} classic groups: no longer the group coordinator", groups.size());
        }
        groups.clear();
        stores.clear();
    }

    /** Takes over the stored groups (a new leader): Stable at their stored generation, or Empty. */
    public synchronized void load(Collection<ClassicGroupRecord> records, long nowMs) {
        clear();
        for (ClassicGroupRecord record : records) {
            groups.put(record.groupId(), ClassicGroup.load(record, nowMs));
        }
        if (!records.isEmpty()) {
            log.info("took over {} classic groups", records.size());
        }
    }

    // ------------------------------------------------------------------------------------------
    // Offsets, describe, delete

    /** Whether this coordinator holds the classic group. */
    public synchronized boolean contains(String groupId) {
        return groups.containsKey(groupId);
    }

    /** Whether the classic group exists and has members (or members confirming their id). */
    public synchronized boolean hasMembers(String groupId) {
        ClassicGroup group = groups.get(groupId);
        return group != null && (!group.members.isEmpty() || !group.pendingMembers.isEmpty());
    }

    /**
     * Whether an OffsetCommit into this classic group may be applied (Kafka's rules): generation -1
     * into an empty group (admin clients, {@code assign()} consumers); otherwise a member at the
     * current generation, outside CompletingRebalance.
     *
     * @return empty when this is not a classic group here
     * @throws GroupException UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION,
     *     REBALANCE_IN_PROGRESS
     */
    public synchronized Optional<Committer> validateCommit(
            String groupId, String memberId, int generationId, Optional<String> instanceId) {
        ClassicGroup group = groups.get(groupId);
        return group == null ? Optional.empty() : Optional.of(group.validateCommit(memberId, generationId, instanceId));
    }

    /**
     * The topics the group's members subscribe to, for OffsetDelete: none when empty; for the
     * {@code consumer} protocol the topics of the members' subscriptions; for another protocol, or
     * a subscription that cannot be read, empty (meaning: every topic counts as subscribed).
     */
    public synchronized Optional<Set<String>> subscribedTopics(String groupId) {
        ClassicGroup group = groups.get(groupId);
        return group == null ? Optional.of(Set.of()) : group.subscribedTopics();
    }

    /**
     * How offsets retention sees the group ({@link OffsetRetention}), if it is a classic group here:
     * its protocol type, state, when it entered that state (for an Empty group, when it became
     * empty: stored with the group, so it survives a failover) and its members' topics.
     */
    public synchronized Optional<ClassicGroupView> retentionView(String groupId) {
        ClassicGroup group = groups.get(groupId);
        if (group == null) {
            return Optional.empty();
        }
        ClassicPhase phase = switch (group.state) {
            case EMPTY -> ClassicPhase.EMPTY;
            case PREPARING_REBALANCE, COMPLETING_REBALANCE -> ClassicPhase.REBALANCING;
            case STABLE -> ClassicPhase.STABLE;
        };
        return Optional.of(new ClassicGroupView(
                groupId, group.protocolType, phase, group.stateTimestampMs, subscribedTopics(groupId)));
    }

    /** The ids of the classic groups here, in order. */
    public synchronized SortedSet<String> groupIds() {
        return new TreeSet<>(groups.keySet());
    }

    /** The group as DescribeGroups shows it, if it is a classic group here. */
    public synchronized Optional<ClassicGroupDescription> describe(String groupId) {
        return Optional.ofNullable(groups.get(groupId)).map(ClassicGroup::describe);
    }

    /** Every classic group here, by id. */
    public synchronized SortedMap<String, ClassicGroupDescription> describeAll() {
        SortedMap<String, ClassicGroupDescription> all = new TreeMap<>();
        for (String groupId : groups.keySet()) {
            all.put(groupId, describe(groupId).orElseThrow());
        }
        return all;
    }

    /**
     * Deletes an empty classic group (DeleteGroups) and queues the deletion of its stored state.
     *
     * @return whether it was a classic group here
     * @throws GroupException NON_EMPTY_GROUP
     */
    public synchronized boolean delete(String groupId) {
        ClassicGroup group = groups.get(groupId);
        if (group == null) {
            return false;
        }
        if (group.state != ClassicGroupState.EMPTY || !group.pendingMembers.isEmpty()) {
            throw new GroupException(
                    Errors.NON_EMPTY_GROUP,
                    "group " + groupId + " is " + group.state.kafkaName() + " with " + group.members.size()
                            + " members");
        }
        groups.remove(groupId);
        stores.add(new Delete(groupId));
        return true;
    }

    /**
     * Forgets an empty classic group without a trace in memory, for a KIP-848 member taking the
     * group id over (Kafka converts an empty classic group).
     *
     * @return whether a group was forgotten
     */
    public synchronized boolean forgetIfEmpty(String groupId) {
        ClassicGroup group = groups.get(groupId);
        if (group != null && group.members.isEmpty() && group.pendingMembers.isEmpty()) {
            groups.remove(groupId);
            stores.add(new Delete(groupId));
            return true;
        }
        return false;
    }

    /**
     * The group's current generation, for a KIP-848 member converting it to a consumer group (an
     * upgrade): empty unless it is a classic group with members.
     */
    public synchronized Optional<ClassicGeneration> generation(String groupId) {
        ClassicGroup group = groups.get(groupId);
        return group == null || group.members.isEmpty() ? Optional.empty() : Optional.of(group.generation());
    }

    /**
     * Forgets a group converted to a consumer group (an upgrade): its members waiting in a JoinGroup
     * or SyncGroup are answered REBALANCE_IN_PROGRESS (they join the consumer group again), its
     * stored generation is deleted.
     */
    public synchronized void upgraded(String groupId) {
        ClassicGroup group = groups.remove(groupId);
        if (group == null) {
            return;
        }
        for (ClassicMember member : group.members.values()) {
            member.failWaiting(Errors.REBALANCE_IN_PROGRESS);
        }
        stores.add(new Delete(groupId));
    }

    /**
     * Takes over a consumer group's classic members (a downgrade): the group is Stable at the
     * consumer group's epoch with the members' current assignments, stored, then rebalances (the
     * members' next heartbeat answers REBALANCE_IN_PROGRESS and they join again), as Kafka does.
     */
    public synchronized void downgraded(ClassicGeneration generation, long nowMs) {
        ClassicGroup previous = groups.get(generation.groupId());
        if (previous != null && (!previous.members.isEmpty() || !previous.pendingMembers.isEmpty())) {
            throw new IllegalStateException(
                    "group " + generation.groupId() + " is a classic group with members already");
        }
        if (previous == null) {
            makeRoom(generation.groupId());
        }
        ClassicGroup group = ClassicGroup.fromConsumerGroup(generation, nowMs);
        groups.put(group.groupId, group);
        stores.add(new Store(group.record(), false));
        rebalance.prepare(group, "converted from a consumer group whose last KIP-848 member left", nowMs);
    }

    public synchronized int groupCount() {
        return groups.size();
    }

    public synchronized int memberCount() {
        int members = 0;
        for (ClassicGroup group : groups.values()) {
            members += group.members.size();
        }
        return members;
    }

    /**
     * Checks each group's invariants (tests and simulations): a leader exactly when there are
     * members, static ids indexing members, waiting members only in the states that answer them,
     * a protocol chosen outside Empty and PreparingRebalance's first generation.
     */
    public synchronized void checkInvariants() {
        groups.values().forEach(ClassicGroup::checkInvariants);
    }
}
