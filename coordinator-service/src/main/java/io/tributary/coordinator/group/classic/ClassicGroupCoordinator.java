package io.tributary.coordinator.group.classic;

import io.tributary.coordinator.group.GroupCoordinator.Committer;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.OffsetRetention;
import io.tributary.coordinator.group.OffsetRetention.ClassicGroupView;
import io.tributary.coordinator.group.OffsetRetention.ClassicPhase;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
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
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
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
 * excepted. The first rebalance of an empty group also waits {@code initialRebalanceDelay}, longer
 * while members keep coming. Then the generation goes up, a protocol is chosen and every waiting
 * JoinGroup is answered; the leader's answer lists the members with their metadata. The group is
 * CompletingRebalance until the leader's SyncGroup brings the assignment; it is stored ({@link
 * #drainStores}: the caller makes it durable, then reports through {@link #stored}) before any
 * member's SyncGroup is answered with its part, and the group is Stable. A member that does not
 * send its SyncGroup within the rebalance timeout after the join completed is removed.
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
    private final Supplier<UUID> ids;
    private final Map<String, ClassicGroup> groups = new TreeMap<>();
    private final ArrayDeque<StoreTask> stores = new ArrayDeque<>();

    /** @param ids where new member ids' random part comes from ({@code UUID::randomUUID}) */
    public ClassicGroupCoordinator(ClassicGroupConfig config, Supplier<UUID> ids) {
        this.config = Objects.requireNonNull(config, "config");
        this.ids = Objects.requireNonNull(ids, "ids");
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
    public synchronized CompletableFuture<ClassicJoinResult> join(ClassicJoin join, long nowMs) {
        validate(join);
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
        return join.memberId().isEmpty() ? joinNew(group, join, nowMs) : joinExisting(group, join, nowMs);
    }

    private void validate(ClassicJoin join) {
        if (join.groupId().isEmpty()) {
            throw new GroupException(Errors.INVALID_GROUP_ID, "the group id is empty");
        }
        if (join.sessionTimeoutMs() < config.minSessionTimeout().toMillis()
                || join.sessionTimeoutMs() > config.maxSessionTimeout().toMillis()) {
            throw new GroupException(
                    Errors.INVALID_SESSION_TIMEOUT,
                    "session timeout " + join.sessionTimeoutMs() + " ms is outside ["
                            + config.minSessionTimeout().toMillis() + ", "
                            + config.maxSessionTimeout().toMillis() + "] ms");
        }
        int bytes = 0;
        for (ClassicProtocol protocol : join.protocols()) {
            bytes += protocol.name().length() + protocol.size();
            checkLength("protocol name", protocol.name());
        }
        if (bytes > config.maxProtocolBytes()) {
            throw new GroupException(
                    Errors.INVALID_REQUEST,
                    "the protocols take " + bytes + " bytes, more than " + config.maxProtocolBytes());
        }
        checkLength("group id", join.groupId());
        checkLength("member id", join.memberId());
        checkLength("protocol type", join.protocolType());
        join.instanceId().ifPresent(id -> checkLength("group instance id", id));
    }

    private void checkLength(String what, String value) {
        if (value.length() > config.maxIdLength()) {
            throw new GroupException(
                    Errors.INVALID_REQUEST,
                    "the " + what + " is " + value.length() + " characters, more than " + config.maxIdLength());
        }
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

    private CompletableFuture<ClassicJoinResult> joinNew(ClassicGroup group, ClassicJoin join, long nowMs) {
        if (!group.supportsProtocols(join.protocolType(), join.protocols())) {
            throw inconsistentProtocol(group, join);
        }
        if (join.instanceId().isPresent()
                && group.staticMembers.containsKey(join.instanceId().get())) {
            return rejoinStatic(group, join, nowMs);
        }
        if (group.members.size() + group.pendingMembers.size() >= config.maxGroupSize()) {
            throw new GroupException(
                    Errors.GROUP_MAX_SIZE_REACHED,
                    "group " + group.groupId + " has reached its most members, " + config.maxGroupSize());
        }
        String memberId = join.instanceId().orElse(join.clientId()) + "-" + ids.get();
        if (join.instanceId().isEmpty() && join.requireKnownMemberId()) {
            group.pendingMembers.put(memberId, nowMs + join.sessionTimeoutMs());
            return CompletableFuture.completedFuture(ClassicJoinResult.failed(Errors.MEMBER_ID_REQUIRED, memberId));
        }
        return addMember(group, join, memberId, nowMs);
    }

    private CompletableFuture<ClassicJoinResult> joinExisting(ClassicGroup group, ClassicJoin join, long nowMs) {
        // Kafka checks the protocols before the member id in an existing group.
        if (!group.supportsProtocols(join.protocolType(), join.protocols())) {
            throw inconsistentProtocol(group, join);
        }
        if (join.instanceId().isEmpty() && group.pendingMembers.containsKey(join.memberId())) {
            group.pendingMembers.remove(join.memberId());
            return addMember(group, join, join.memberId(), nowMs);
        }
        ClassicMember member = group.member(join.memberId(), join.instanceId());
        member.sessionDeadlineMs = nowMs + join.sessionTimeoutMs();
        switch (group.state) {
            case PREPARING_REBALANCE -> {
                return awaitJoin(group, member, join, nowMs);
            }
            case COMPLETING_REBALANCE -> {
                if (member.matches(join.protocols())) {
                    // It missed its JoinGroup answer: the current generation again.
                    return CompletableFuture.completedFuture(current(group, member, group.isLeader(member.memberId)));
                }
                return rebalanceFor(group, member, join, "member " + member.memberId + " changed protocols", nowMs);
            }
            case STABLE -> {
                if (group.isLeader(member.memberId) || !member.matches(join.protocols())) {
                    return rebalanceFor(
                            group,
                            member,
                            join,
                            group.isLeader(member.memberId)
                                    ? "the leader joined again"
                                    : "member " + member.memberId + " changed protocols",
                            nowMs);
                }
                return CompletableFuture.completedFuture(current(group, member, false));
            }
            case EMPTY -> throw new IllegalStateException("group " + group.groupId + " is empty but has a member");
            default -> throw new IllegalStateException("unknown state " + group.state);
        }
    }

    private CompletableFuture<ClassicJoinResult> rebalanceFor(
            ClassicGroup group, ClassicMember member, ClassicJoin join, String reason, long nowMs) {
        CompletableFuture<ClassicJoinResult> answer = awaitJoinWithoutCompleting(member, join);
        prepareRebalance(group, reason, nowMs);
        maybeCompleteJoin(group, nowMs);
        return answer;
    }

    private CompletableFuture<ClassicJoinResult> awaitJoin(
            ClassicGroup group, ClassicMember member, ClassicJoin join, long nowMs) {
        CompletableFuture<ClassicJoinResult> answer = awaitJoinWithoutCompleting(member, join);
        maybeCompleteJoin(group, nowMs);
        return answer;
    }

    private static CompletableFuture<ClassicJoinResult> awaitJoinWithoutCompleting(
            ClassicMember member, ClassicJoin join) {
        member.update(join);
        if (member.awaitingJoin != null) {
            // A second JoinGroup while one waits: the client gave up on the first.
            member.awaitingJoin.complete(ClassicJoinResult.failed(Errors.REBALANCE_IN_PROGRESS, member.memberId));
        }
        member.awaitingJoin = new CompletableFuture<>();
        return member.awaitingJoin;
    }

    private CompletableFuture<ClassicJoinResult> addMember(
            ClassicGroup group, ClassicJoin join, String memberId, long nowMs) {
        ClassicMember member = new ClassicMember(memberId, join.instanceId());
        member.update(join);
        member.sessionDeadlineMs = nowMs + join.sessionTimeoutMs();
        member.awaitingJoin = new CompletableFuture<>();
        CompletableFuture<ClassicJoinResult> answer = member.awaitingJoin;
        group.add(member, join.protocolType());
        if (group.state == ClassicGroupState.PREPARING_REBALANCE && group.initialDelay) {
            group.newMemberAdded = true;
        }
        prepareRebalance(group, "member " + memberId + " joined", nowMs);
        maybeCompleteJoin(group, nowMs);
        return answer;
    }

    /** A static member joined again without its member id: it takes its place under a new id. */
    private CompletableFuture<ClassicJoinResult> rejoinStatic(ClassicGroup group, ClassicJoin join, long nowMs) {
        ClassicMember previous =
                group.members.get(group.staticMembers.get(join.instanceId().orElseThrow()));
        ClassicMember member = previous.replacedBy(join.instanceId().get() + "-" + ids.get());
        String previousLeaderId = group.leaderId;
        fence(previous);
        group.replace(previous, member);
        member.update(join);
        member.sessionDeadlineMs = nowMs + join.sessionTimeoutMs();
        log.info(
                "group {}: static member {} joined again as {} (was {})",
                group.groupId,
                join.instanceId().get(),
                member.memberId,
                previous.memberId);
        switch (group.state) {
            case STABLE -> {
                if (!group.selectProtocol().equals(group.protocolName.orElseThrow())) {
                    member.awaitingJoin = new CompletableFuture<>();
                    CompletableFuture<ClassicJoinResult> answer = member.awaitingJoin;
                    prepareRebalance(group, "static member " + member.memberId + " changed protocols", nowMs);
                    maybeCompleteJoin(group, nowMs);
                    return answer;
                }
                // Nothing changed for the group: no rebalance; the new member id is stored.
                stores.add(new Store(group.record(), false));
                boolean skip = group.isLeader(member.memberId) && member.supportsSkipAssignment;
                ClassicJoinResult answer = current(group, member, skip, skip);
                // Before SkipAssignment (v9), Kafka names the leader as it was before this join: a
                // returning static leader is told its previous member id leads, and assigns nothing.
                return CompletableFuture.completedFuture(skip ? answer : answer.withLeader(previousLeaderId));
            }
            case COMPLETING_REBALANCE -> {
                member.awaitingJoin = new CompletableFuture<>();
                CompletableFuture<ClassicJoinResult> answer = member.awaitingJoin;
                prepareRebalance(group, "static member " + member.memberId + " joined during a rebalance", nowMs);
                maybeCompleteJoin(group, nowMs);
                return answer;
            }
            case PREPARING_REBALANCE -> {
                member.awaitingJoin = new CompletableFuture<>();
                CompletableFuture<ClassicJoinResult> answer = member.awaitingJoin;
                maybeCompleteJoin(group, nowMs);
                return answer;
            }
            default -> throw new IllegalStateException("group " + group.groupId + " is empty but has a member");
        }
    }

    /** A member replaced by its static successor: whatever it waits for fails FENCED_INSTANCE_ID. */
    private static void fence(ClassicMember member) {
        if (member.awaitingJoin != null) {
            member.awaitingJoin.complete(ClassicJoinResult.failed(Errors.FENCED_INSTANCE_ID, member.memberId));
            member.awaitingJoin = null;
        }
        if (member.awaitingSync != null) {
            member.awaitingSync.complete(ClassicSyncResult.failed(Errors.FENCED_INSTANCE_ID));
            member.awaitingSync = null;
        }
    }

    private static GroupException inconsistentProtocol(ClassicGroup group, ClassicJoin join) {
        return new GroupException(
                Errors.INCONSISTENT_GROUP_PROTOCOL,
                "group " + group.groupId + " runs protocol type '" + group.protocolType.orElse("")
                        + "' with protocols " + group.candidates() + "; member asked for type '"
                        + join.protocolType() + "' with " + join.protocols());
    }

    /** The current generation's answer to a member's JoinGroup (the leader's lists the members). */
    private ClassicJoinResult current(ClassicGroup group, ClassicMember member, boolean withMembers) {
        return current(group, member, false, withMembers);
    }

    private ClassicJoinResult current(
            ClassicGroup group, ClassicMember member, boolean skipAssignment, boolean withMembers) {
        String protocol = group.protocolName.orElseThrow();
        List<ClassicJoinResult.JoinedMember> members = new ArrayList<>();
        if (withMembers) {
            for (ClassicMember m : group.members.values()) {
                members.add(new ClassicJoinResult.JoinedMember(m.memberId, m.instanceId, m.metadata(protocol)));
            }
        }
        return new ClassicJoinResult(
                Errors.NONE,
                group.generationId,
                group.protocolType,
                group.protocolName,
                group.leaderId,
                member.memberId,
                skipAssignment,
                members);
    }

    // ------------------------------------------------------------------------------------------
    // The rebalance

    /** Starts a rebalance unless one is preparing. */
    private void prepareRebalance(ClassicGroup group, String reason, long nowMs) {
        if (group.state == ClassicGroupState.PREPARING_REBALANCE) {
            return;
        }
        if (group.state == ClassicGroupState.COMPLETING_REBALANCE) {
            failSyncs(group, Errors.REBALANCE_IN_PROGRESS);
        }
        boolean wasEmpty = group.state == ClassicGroupState.EMPTY;
        group.pendingSync.clear();
        group.syncDeadlineMs = Long.MAX_VALUE;
        group.storingGeneration = -1;
        group.transition(ClassicGroupState.PREPARING_REBALANCE, nowMs);
        long rebalanceMs = Math.min(
                group.rebalanceTimeoutMs(), config.maxRebalanceTimeout().toMillis());
        long delayMs = config.initialRebalanceDelay().toMillis();
        if (wasEmpty && delayMs > 0) {
            group.initialDelay = true;
            group.newMemberAdded = false;
            group.joinDeadlineMs = nowMs + Math.min(delayMs, rebalanceMs);
            group.initialRemainingMs = Math.max(rebalanceMs - delayMs, 0);
        } else {
            group.initialDelay = false;
            group.joinDeadlineMs = nowMs + rebalanceMs;
        }
        log.info("group {}: preparing a rebalance from generation {}: {}", group.groupId, group.generationId, reason);
    }

    /** Answers the waiting SyncGroups with an error and forgets the assignment being handed out. */
    private static void failSyncs(ClassicGroup group, Errors error) {
        for (ClassicMember member : group.members.values()) {
            member.assignment = new byte[0];
            if (member.awaitingSync != null) {
                member.awaitingSync.complete(ClassicSyncResult.failed(error));
                member.awaitingSync = null;
            }
        }
    }

    private void maybeCompleteJoin(ClassicGroup group, long nowMs) {
        if (group.state == ClassicGroupState.PREPARING_REBALANCE && group.allMembersJoined() && !group.initialDelay) {
            completeJoin(group, nowMs);
        }
    }

    /** The join barrier: the next generation starts with the members that joined (and static ones). */
    private void completeJoin(ClassicGroup group, long nowMs) {
        for (ClassicMember member : List.copyOf(group.members.values())) {
            if (member.awaitingJoin == null && member.instanceId.isEmpty()) {
                log.info(
                        "group {}: member {} removed: did not join within the rebalance timeout",
                        group.groupId,
                        member.memberId);
                group.remove(member.memberId);
            }
        }
        group.initialDelay = false;
        group.joinDeadlineMs = Long.MAX_VALUE;
        group.generationId++;
        if (group.members.isEmpty()) {
            group.protocolName = Optional.empty();
            group.leaderId = null;
            group.transition(ClassicGroupState.EMPTY, nowMs);
            stores.add(new Store(group.record(), false));
            log.info("group {}: empty at generation {}", group.groupId, group.generationId);
            return;
        }
        group.protocolName = Optional.of(group.selectProtocol());
        group.transition(ClassicGroupState.COMPLETING_REBALANCE, nowMs);
        group.pendingSync.clear();
        group.pendingSync.addAll(group.members.keySet());
        group.syncDeadlineMs = nowMs
                + Math.min(
                        group.rebalanceTimeoutMs(), config.maxRebalanceTimeout().toMillis());
        for (ClassicMember member : group.members.values()) {
            if (member.awaitingJoin != null) {
                member.awaitingJoin.complete(current(group, member, group.isLeader(member.memberId)));
                member.awaitingJoin = null;
                member.sessionDeadlineMs = nowMs + member.sessionTimeoutMs;
            }
        }
        log.info(
                "group {}: generation {} with {} members, protocol {}, leader {}",
                group.groupId,
                group.generationId,
                group.members.size(),
                group.protocolName.get(),
                group.leaderId);
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
            throw illegalGeneration(group, generationId);
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
                return CompletableFuture.completedFuture(synced(group, member));
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

    private static ClassicSyncResult synced(ClassicGroup group, ClassicMember member) {
        return new ClassicSyncResult(Errors.NONE, group.protocolType, group.protocolName, member.assignment);
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
        ClassicMember member = group.member(memberId, instanceId);
        if (generationId != group.generationId) {
            throw illegalGeneration(group, generationId);
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
                    removeMember(group, group.members.get(holder), "left the group", nowMs);
                    errors.add(Errors.NONE);
                }
            } else if (group.pendingMembers.remove(leaver.memberId()) != null) {
                maybeCompleteJoin(group, nowMs);
                errors.add(Errors.NONE);
            } else if (group.members.containsKey(leaver.memberId())) {
                removeMember(group, group.members.get(leaver.memberId()), "left the group", nowMs);
                errors.add(Errors.NONE);
            } else {
                errors.add(Errors.UNKNOWN_MEMBER_ID);
            }
        }
        return errors;
    }

    /** Removes a member (left or expired); a Stable or completing group rebalances. */
    private void removeMember(ClassicGroup group, ClassicMember member, String why, long nowMs) {
        log.info("group {}: member {} {}", group.groupId, member.memberId, why);
        if (member.awaitingJoin != null) {
            member.awaitingJoin.complete(ClassicJoinResult.failed(Errors.UNKNOWN_MEMBER_ID, member.memberId));
            member.awaitingJoin = null;
        }
        if (member.awaitingSync != null) {
            member.awaitingSync.complete(ClassicSyncResult.failed(Errors.UNKNOWN_MEMBER_ID));
            member.awaitingSync = null;
        }
        group.remove(member.memberId);
        prepareRebalance(group, "member " + member.memberId + " " + why, nowMs);
        maybeCompleteJoin(group, nowMs);
    }

    private ClassicGroup existing(String groupId) {
        ClassicGroup group = groups.get(groupId);
        if (group == null) {
            throw new GroupException(Errors.UNKNOWN_MEMBER_ID, "group " + groupId + " does not exist");
        }
        return group;
    }

    private static GroupException illegalGeneration(ClassicGroup group, int generationId) {
        return new GroupException(
                Errors.ILLEGAL_GENERATION,
                "generation " + generationId + " is not group " + group.groupId + "'s current generation "
                        + group.generationId);
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
            for (var pending : List.copyOf(group.pendingMembers.entrySet())) {
                if (nowMs > pending.getValue()) {
                    group.pendingMembers.remove(pending.getKey());
                    log.info(
                            "group {}: member id {} dropped: not confirmed by a join within its session timeout",
                            group.groupId,
                            pending.getKey());
                    maybeCompleteJoin(group, nowMs);
                }
            }
            for (ClassicMember member : List.copyOf(group.members.values())) {
                if (group.members.containsKey(member.memberId)
                        && !member.isAwaiting()
                        && nowMs > member.sessionDeadlineMs) {
                    removeMember(group, member, "removed: session timeout", nowMs);
                    removed++;
                }
            }
            if (group.state == ClassicGroupState.PREPARING_REBALANCE && nowMs >= group.joinDeadlineMs) {
                if (group.initialDelay && group.newMemberAdded && group.initialRemainingMs > 0) {
                    long stepMs = Math.min(config.initialRebalanceDelay().toMillis(), group.initialRemainingMs);
                    group.initialRemainingMs = Math.max(
                            group.initialRemainingMs
                                    - config.initialRebalanceDelay().toMillis(),
                            0);
                    group.newMemberAdded = false;
                    group.joinDeadlineMs = nowMs + stepMs;
                } else {
                    int before = group.members.size();
                    completeJoin(group, nowMs);
                    removed += before - group.members.size();
                }
            }
            if ((group.state == ClassicGroupState.COMPLETING_REBALANCE || group.state == ClassicGroupState.STABLE)
                    && nowMs >= group.syncDeadlineMs) {
                group.syncDeadlineMs = Long.MAX_VALUE;
                if (!group.pendingSync.isEmpty()) {
                    for (String memberId : List.copyOf(group.pendingSync)) {
                        ClassicMember member = group.members.get(memberId);
                        log.info(
                                "group {}: member {} removed: no SyncGroup within the rebalance timeout",
                                group.groupId,
                                memberId);
                        if (member.awaitingSync != null) {
                            member.awaitingSync.complete(ClassicSyncResult.failed(Errors.UNKNOWN_MEMBER_ID));
                        }
                        group.remove(memberId);
                        removed++;
                    }
                    prepareRebalance(group, "members did not sync", nowMs);
                    maybeCompleteJoin(group, nowMs);
                }
            }
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
        int generation = store.record().generationId();
        if (group == null
                || group.state != ClassicGroupState.COMPLETING_REBALANCE
                || group.generationId != generation
                || group.storingGeneration != generation) {
            return;
        }
        group.storingGeneration = -1;
        if (failure.isEmpty()) {
            group.transition(ClassicGroupState.STABLE, nowMs);
            for (ClassicMember member : group.members.values()) {
                if (member.awaitingSync != null) {
                    member.awaitingSync.complete(synced(group, member));
                    member.awaitingSync = null;
                }
            }
            log.info("group {}: generation {} is stable", group.groupId, generation);
            return;
        }
        log.warn(
                "group {}: storing generation {} failed ({}): rebalancing",
                group.groupId,
                generation,
                failure.get().exceptionName());
        failSyncs(group, failure.get());
        prepareRebalance(group, "storing the assignment failed", nowMs);
        maybeCompleteJoin(group, nowMs);
    }

    /**
     * Forgets every group (this coordinator lost leadership): whatever members wait for is answered
     * NOT_COORDINATOR, so they find the new leader.
     */
    public synchronized void clear() {
        for (ClassicGroup group : groups.values()) {
            for (ClassicMember member : group.members.values()) {
                if (member.awaitingJoin != null) {
                    member.awaitingJoin.complete(ClassicJoinResult.failed(Errors.NOT_COORDINATOR, member.memberId));
                    member.awaitingJoin = null;
                }
                if (member.awaitingSync != null) {
                    member.awaitingSync.complete(ClassicSyncResult.failed(Errors.NOT_COORDINATOR));
                    member.awaitingSync = null;
                }
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
        if (group == null) {
            return Optional.empty();
        }
        if (generationId < 0 && group.state == ClassicGroupState.EMPTY) {
            return Optional.of(Committer.ADMIN);
        }
        if (generationId < 0 && memberId.isEmpty() && instanceId.isEmpty()) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID,
                    "group " + groupId + " has members: commits without a member are refused");
        }
        group.member(memberId, instanceId);
        if (generationId != group.generationId) {
            throw illegalGeneration(group, generationId);
        }
        if (group.state == ClassicGroupState.COMPLETING_REBALANCE) {
            throw new GroupException(
                    Errors.REBALANCE_IN_PROGRESS, "group " + groupId + " is completing a rebalance: sync first");
        }
        return Optional.of(Committer.MEMBER);
    }

    /**
     * The topics the group's members subscribe to, for OffsetDelete: none when empty; for the
     * {@code consumer} protocol the topics of the members' subscriptions; for another protocol, or
     * a subscription that cannot be read, empty (meaning: every topic counts as subscribed).
     */
    public synchronized Optional<Set<String>> subscribedTopics(String groupId) {
        ClassicGroup group = groups.get(groupId);
        if (group == null || group.members.isEmpty()) {
            return Optional.of(Set.of());
        }
        if (!group.protocolType.orElse("").equals(ConsumerProtocol.PROTOCOL_TYPE) || group.protocolName.isEmpty()) {
            return Optional.empty();
        }
        Set<String> topics = new HashSet<>();
        try {
            for (ClassicMember member : group.members.values()) {
                topics.addAll(ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(
                                member.metadata(group.protocolName.get()).metadata()))
                        .topics());
            }
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        return Optional.of(Set.copyOf(topics));
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
        ClassicGroup group = groups.get(groupId);
        if (group == null) {
            return Optional.empty();
        }
        boolean stable = group.state == ClassicGroupState.STABLE;
        List<ClassicGroupDescription.Member> members = new ArrayList<>();
        for (ClassicMember member : group.members.values()) {
            members.add(new ClassicGroupDescription.Member(
                    member.memberId,
                    member.instanceId,
                    member.clientId,
                    member.clientHost,
                    stable ? member.metadata(group.protocolName.orElseThrow()).metadata() : new byte[0],
                    member.assignment));
        }
        return Optional.of(new ClassicGroupDescription(
                groupId,
                group.state,
                group.protocolType.orElse(""),
                stable ? group.protocolName.orElseThrow() : "",
                group.generationId,
                group.leaderId == null ? "" : group.leaderId,
                members));
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
        for (ClassicGroup group : groups.values()) {
            String id = group.groupId;
            check(group.members.isEmpty() == (group.leaderId == null), id, "leader " + group.leaderId);
            check(group.leaderId == null || group.members.containsKey(group.leaderId), id, "leader not a member");
            check(
                    (group.state == ClassicGroupState.EMPTY) == group.members.isEmpty()
                            || group.state == ClassicGroupState.PREPARING_REBALANCE,
                    id,
                    "state " + group.state + " with " + group.members.size() + " members");
            for (var entry : group.staticMembers.entrySet()) {
                ClassicMember member = group.members.get(entry.getValue());
                check(
                        member != null && member.instanceId.equals(Optional.of(entry.getKey())),
                        id,
                        "static " + entry.getKey());
            }
            for (ClassicMember member : group.members.values()) {
                check(
                        member.awaitingJoin == null || group.state == ClassicGroupState.PREPARING_REBALANCE,
                        id,
                        member.memberId + " awaits a join in " + group.state);
                check(
                        member.awaitingSync == null || group.state == ClassicGroupState.COMPLETING_REBALANCE,
                        id,
                        member.memberId + " awaits a sync in " + group.state);
            }
            check(
                    group.pendingSync.isEmpty()
                            || group.state == ClassicGroupState.COMPLETING_REBALANCE
                            || group.state == ClassicGroupState.STABLE,
                    id,
                    "members pending sync in " + group.state);
            check(group.members.keySet().containsAll(group.pendingSync), id, "pending sync of non-members");
        }
    }

    private static void check(boolean condition, String groupId, String what) {
        if (!condition) {
            throw new IllegalStateException("classic group " + groupId + ": " + what);
        }
    }
}
