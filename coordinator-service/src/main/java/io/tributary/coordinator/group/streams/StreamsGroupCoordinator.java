package io.tributary.coordinator.group.streams;

import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator.Committer;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.MemberRules;
import io.tributary.coordinator.group.TopicView;
import io.tributary.coordinator.group.streams.StreamsGroup.Member;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streams-group state machine of KIP-1071, in memory on the coordinator leader: groups, their
 * topology, members, the group epoch, the target assignment of tasks and its epoch, member epochs,
 * and each member's reconciliation towards its target.
 *
 * <h2>Epochs</h2>
 *
 * The group epoch goes up when a member joins or is removed, a member's process, rack or client
 * tags change, the topology is set, or what the topology resolves to changes (a source topic
 * created, deleted or grown, an internal topic created: {@link TopologyResolver}). The target
 * assignment is recomputed by the {@link StickyTaskAssignor} when the group epoch is ahead of the
 * assignment epoch; it is empty while the topology is not ready (missing or wrongly partitioned
 * topics). A member's epoch is the assignment epoch it has reconciled to.
 *
 * <h2>Reconciliation: a task never has two active owners</h2>
 *
 * Each heartbeat moves its member towards its target (Kafka's streams {@code
 * CurrentAssignmentBuilder}): tasks it owns that left its target are pending revocation and the
 * member stays at its epoch ({@link StreamsMemberState#UNREVOKED_TASKS}) until a heartbeat at that
 * epoch no longer lists them; a target task is added only once it is released: an active task while
 * no other member owns it as active and no member of its process holds it as standby or warm-up, a
 * standby task while no member of its process holds it in any role ({@link
 * StreamsMemberState#UNRELEASED_TASKS} until then). A member silent for the session timeout, or not
 * revoking within its rebalance timeout, is removed.
 *
 * <h2>Topology</h2>
 *
 * The first member to join sets the group's topology; a member joining with another topology
 * epoch sets it while it is alone in the group. Joining with a higher epoch than the group's while
 * others are members is {@code STREAMS_INVALID_TOPOLOGY_EPOCH} (topology updates of a running group
 * are not supported, as in Kafka 4.4); a lower one is accepted and the member is told {@code
 * STALE_TOPOLOGY}. The internal topics the resolved topology lacks are returned in every answer
 * ({@link StreamsHeartbeatResponse#topicsToCreate}); the caller creates them.
 *
 * <h2>Leadership</h2>
 *
 * Membership is not replicated: a coordinator that loses leadership calls {@link #clear}; members get
 * UNKNOWN_MEMBER_ID from the new leader and join again with epoch 0 (and their topology). A group
 * created here starts at an epoch taken from the clock, as consumer groups do.
 *
 * <p>Thread-safe: every public method is {@code synchronized}, in-memory work only. Time is a
 * parameter.
 */
public final class StreamsGroupCoordinator {

    private static final Logger log = LoggerFactory.getLogger(StreamsGroupCoordinator.class);

    private final Map<String, StreamsGroup> groups = new TreeMap<>();
    private final GroupConfig config;
    private final StreamsGroupConfig streamsConfig;
    private final TopicView topics;
    private final StreamsHeartbeatValidator validator;
    private final StreamsGroupPlanner planner;

    /** When {@link #clear(long)} last forgot every group; {@code Long.MIN_VALUE}: never. */
    private long forgottenAtMs = Long.MIN_VALUE;

    public StreamsGroupCoordinator(GroupConfig config, StreamsGroupConfig streamsConfig, TopicView topics) {
        this.config = Objects.requireNonNull(config, "config");
        this.streamsConfig = Objects.requireNonNull(streamsConfig, "streamsConfig");
        this.topics = Objects.requireNonNull(topics, "topics");
        this.validator = new StreamsHeartbeatValidator(config, streamsConfig);
        this.planner = new StreamsGroupPlanner(streamsConfig, topics);
    }

    // ------------------------------------------------------------------------------------------
    // Heartbeat

    /**
     * Serves one StreamsGroupHeartbeat.
     *
     * @throws GroupException with the Kafka error to answer (INVALID_REQUEST, GROUP_ID_NOT_FOUND,
     *     UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID,
     *     GROUP_MAX_SIZE_REACHED, STREAMS_INVALID_TOPOLOGY, STREAMS_INVALID_TOPOLOGY_EPOCH,
     *     COORDINATOR_NOT_AVAILABLE)
     */
    public synchronized StreamsHeartbeatResponse heartbeat(StreamsHeartbeatRequest request, long nowMs) {
        validator.validate(request);
        int epoch = request.memberEpoch();
        if (epoch == StreamsHeartbeatRequest.LEAVE_EPOCH || epoch == StreamsHeartbeatRequest.STATIC_LEAVE_EPOCH) {
            return leave(request, nowMs);
        }
        StreamsGroup group = groups.get(request.groupId());
        if (group == null) {
            if (epoch != StreamsHeartbeatRequest.JOIN_EPOCH) {
                throw unknownGroup(request.groupId(), request.memberId(), nowMs);
            }
            if (groups.size() >= config.maxGroups()) {
                evictAnEmptyGroup();
            }
            if (groups.size() >= config.maxGroups()) {
                throw new GroupException(
                        Errors.COORDINATOR_NOT_AVAILABLE,
                        "this coordinator already holds " + config.maxGroups()
                                + " streams groups (tributary.coordinator.groups.max-groups)");
            }
            group = new StreamsGroup(request.groupId(), MemberRules.initialGroupEpoch(nowMs));
            if (!streamsConfig.initialRebalanceDelay().isZero()) {
                group.assignmentDelayedUntilMs =
                        nowMs + streamsConfig.initialRebalanceDelay().toMillis();
            }
            groups.put(group.groupId, group);
        }
        try {
            return heartbeat(group, request, nowMs);
        } finally {
            if (group.members.isEmpty() && group.topology == null) {
                // A join that failed leaves no empty group behind it.
                groups.remove(group.groupId, group);
            }
        }
    }

    private void evictAnEmptyGroup() {
        for (StreamsGroup group : groups.values()) {
            if (group.members.isEmpty()) {
                groups.remove(group.groupId);
                log.info("streams group {}: forgotten (no members) to make room for a new group", group.groupId);
                return;
            }
        }
    }

    private StreamsHeartbeatResponse heartbeat(StreamsGroup group, StreamsHeartbeatRequest request, long nowMs) {
        int epoch = request.memberEpoch();
        boolean joining = epoch == StreamsHeartbeatRequest.JOIN_EPOCH;
        if (joining) {
            checkTopology(group, request);
        }
        Member member = findOrJoin(group, request);
        boolean ackAllowed = joining || epoch == member.memberEpoch;
        if (!joining) {
            checkEpoch(member, request);
        }
        if (joining) {
            StreamsTopology topology = request.topology().orElseThrow();
            member.topologyEpoch = topology.epoch();
            if (group.topology == null || group.topology.epoch() != topology.epoch() && group.members.size() == 1) {
                group.topology = topology;
                group.bump("topology epoch " + topology.epoch() + " set by " + member.memberId);
                log.info(
                        "streams group {}: topology epoch {} with {} subtopologies",
                        group.groupId,
                        topology.epoch(),
                        topology.subtopologies().size());
            }
        }
        Tasks assignedBefore = member.assigned;
        if (update(member, request)) {
            group.bump("member " + member.memberId + " process, rack or client tags");
        }
        if (request.shutdownApplication() && group.shutdownRequestedBy.isEmpty()) {
            group.shutdownRequestedBy = Optional.of(member.memberId);
            log.info("streams group {}: member {} asks the application to shut down", group.groupId, member.memberId);
        }
        planner.refreshTopology(group);
        planner.computeTargetIfNeeded(group, nowMs);
        Optional<Tasks> owned = joining ? Optional.of(Tasks.EMPTY) : request.ownedTasks();
        StreamsReconciler.reconcile(
                group,
                member,
                joining ? owned : StreamsReconciler.trustedOwned(owned, assignedBefore),
                ackAllowed,
                nowMs);
        member.sessionDeadlineMs = nowMs + config.sessionTimeout().toMillis();
        planner.refreshEndpoints(group);
        boolean send = joining
                || !assignedBefore.equals(member.assigned)
                || owned.filter(o -> !o.equals(member.assigned)).isPresent();
        return new StreamsHeartbeatResponse(
                member.memberId,
                member.memberEpoch,
                heartbeatIntervalMs(),
                send ? Optional.of(member.assigned) : Optional.empty(),
                StreamsGroupPlanner.statuses(group, member, nowMs),
                group.endpointInformationEpoch,
                request.endpointInformationEpoch() < group.endpointInformationEpoch
                        ? Optional.of(group.endpoints)
                        : Optional.empty(),
                group.resolved == null ? List.of() : group.resolved.toCreate());
    }

    /** A joining member's topology against the group's (see the class comment). */
    private static void checkTopology(StreamsGroup group, StreamsHeartbeatRequest request) {
        StreamsTopology topology = request.topology().orElseThrow();
        if (group.topology == null || topology.epoch() <= group.topology.epoch()) {
            return;
        }
        boolean alone =
                group.members.isEmpty() || group.members.size() == 1 && group.members.containsKey(request.memberId());
        if (!alone) {
            throw new GroupException(
                    Errors.STREAMS_INVALID_TOPOLOGY_EPOCH,
                    "group " + group.groupId + " runs topology epoch " + group.topology.epoch()
                            + "; topology updates are not supported yet (epoch " + topology.epoch() + ")");
        }
    }

    private int heartbeatIntervalMs() {
        return Math.toIntExact(config.heartbeatInterval().toMillis());
    }

    /** How often members report task offsets, for the answer. */
    public int taskOffsetIntervalMs() {
        return Math.toIntExact(streamsConfig.taskOffsetInterval().toMillis());
    }

    /** The acceptable recovery lag members are told. */
    public long acceptableRecoveryLag() {
        return streamsConfig.acceptableRecoveryLag();
    }

    private Member findOrJoin(StreamsGroup group, StreamsHeartbeatRequest request) {
        boolean joining = request.memberEpoch() == StreamsHeartbeatRequest.JOIN_EPOCH;
        Optional<String> instanceId = request.instanceId();
        if (instanceId.isPresent()) {
            String holderId = group.staticMembers.get(instanceId.get());
            Member holder = holderId == null ? null : group.members.get(holderId);
            MemberRules.StaticMember decision = MemberRules.staticMember(
                    group.groupId,
                    instanceId.get(),
                    request.memberId(),
                    joining,
                    Optional.ofNullable(holder).map(h -> h.memberId),
                    holder == null ? 0 : holder.memberEpoch);
            return switch (decision) {
                case MemberRules.StaticMember.Join join -> {
                    Member joined = join(group, request);
                    joined.instanceId = instanceId.get();
                    group.staticMembers.put(joined.instanceId, joined.memberId);
                    yield joined;
                }
                case MemberRules.StaticMember.Holder same -> holder;
                case MemberRules.StaticMember.Replace replace -> replaceStatic(group, holder, request.memberId());
            };
        }
        Member member = group.members.get(request.memberId());
        if (member != null) {
            return member;
        }
        if (!joining) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID,
                    "member " + request.memberId() + " is not in group " + group.groupId + ": join again");
        }
        return join(group, request);
    }

    private Member join(StreamsGroup group, StreamsHeartbeatRequest request) {
        if (group.members.size() >= config.maxGroupSize()) {
            throw new GroupException(
                    Errors.GROUP_MAX_SIZE_REACHED,
                    "group " + group.groupId + " already has " + config.maxGroupSize()
                            + " members (tributary.coordinator.groups.max-group-size)");
        }
        Member member = new Member(request.memberId());
        group.members.put(member.memberId, member);
        group.bump("member " + member.memberId + " joined");
        log.info("streams group {}: member {} joined", group.groupId, member.memberId);
        return member;
    }

    /** A static member with a new member id takes over the tasks of one that left with epoch -2. */
    private static Member replaceStatic(StreamsGroup group, Member previous, String newMemberId) {
        if (group.members.containsKey(newMemberId)) {
            throw new GroupException(
                    Errors.FENCED_INSTANCE_ID,
                    "member id " + newMemberId + " is already in group " + group.groupId
                            + " under another instance id");
        }
        Tasks assignment = previous.assigned;
        Tasks target = group.target.getOrDefault(previous.memberId, Tasks.EMPTY);
        Member member = new Member(newMemberId);
        member.instanceId = previous.instanceId;
        member.rackId = previous.rackId;
        member.rebalanceTimeoutMs = previous.rebalanceTimeoutMs;
        member.processId = previous.processId;
        member.userEndpoint = previous.userEndpoint;
        member.clientTags = previous.clientTags;
        group.remove(previous);
        group.members.put(member.memberId, member);
        group.staticMembers.put(member.instanceId, member.memberId);
        group.target.put(member.memberId, target);
        group.setOwnership(member, assignment, Tasks.EMPTY, 0);
        log.info(
                "streams group {}: static member {} replaces {} (instance id {})",
                group.groupId,
                newMemberId,
                previous.memberId,
                member.instanceId);
        return member;
    }

    private static void checkEpoch(Member member, StreamsHeartbeatRequest request) {
        MemberRules.checkHeartbeatEpoch(
                member.memberId,
                request.memberEpoch(),
                member.memberEpoch,
                member.previousMemberEpoch,
                request.ownedTasks().isPresent()
                        && member.assigned.union(request.ownedTasks().get()).equals(member.assigned));
    }

    /** Applies the request's changed fields; returns whether something the assignor uses changed. */
    private boolean update(Member member, StreamsHeartbeatRequest request) {
        boolean changed = false;
        member.clientId = request.clientId();
        member.clientHost = request.clientHost();
        if (request.rebalanceTimeoutMs() != -1) {
            member.rebalanceTimeoutMs = (int) Math.min(
                    request.rebalanceTimeoutMs(), config.maxRebalanceTimeout().toMillis());
        }
        if (request.rackId().isPresent() && !request.rackId().get().equals(member.rackId)) {
            member.rackId = request.rackId().get();
            changed = member.memberEpoch != 0;
        }
        if (request.processId().isPresent() && !request.processId().get().equals(member.processId)) {
            member.processId = request.processId().get();
            changed = member.memberEpoch != 0;
        }
        if (request.clientTags().isPresent() && !request.clientTags().get().equals(member.clientTags)) {
            member.clientTags = request.clientTags().get();
            changed = member.memberEpoch != 0;
        }
        request.userEndpoint().ifPresent(endpoint -> member.userEndpoint = endpoint);
        request.taskOffsets().ifPresent(offsets -> member.taskOffsets = offsets);
        request.taskEndOffsets().ifPresent(offsets -> member.taskEndOffsets = offsets);
        return changed;
    }

    private StreamsHeartbeatResponse leave(StreamsHeartbeatRequest request, long nowMs) {
        int epoch = request.memberEpoch();
        StreamsGroup group = groups.get(request.groupId());
        Member member = group == null ? null : group.members.get(request.memberId());
        if (group != null && request.instanceId().isPresent()) {
            MemberRules.checkInstanceHolder(
                    request.instanceId().get(),
                    request.memberId(),
                    Optional.ofNullable(
                            group.staticMembers.get(request.instanceId().get())));
        }
        if (member == null) {
            return new StreamsHeartbeatResponse(
                    request.memberId(),
                    epoch,
                    heartbeatIntervalMs(),
                    Optional.empty(),
                    List.of(),
                    0,
                    Optional.empty(),
                    List.of());
        }
        if (epoch == StreamsHeartbeatRequest.STATIC_LEAVE_EPOCH && member.instanceId != null) {
            // Kept with its tasks until it comes back or its session times out; what it was revoking
            // is released now (the process stopped before saying goodbye).
            group.setOwnership(member, member.assigned, Tasks.EMPTY, 0);
            member.activeSince.replaceAll((task, since) -> 0);
            member.state = StreamsMemberState.STABLE;
            member.setEpoch(StreamsHeartbeatRequest.STATIC_LEAVE_EPOCH);
            member.sessionDeadlineMs = nowMs + config.sessionTimeout().toMillis();
            member.rebalanceDeadlineMs = Long.MAX_VALUE;
            log.info("streams group {}: static member {} left for now", group.groupId, member.memberId);
        } else {
            removeMember(group, member, "left");
        }
        return new StreamsHeartbeatResponse(
                request.memberId(),
                epoch,
                heartbeatIntervalMs(),
                Optional.empty(),
                List.of(),
                group.endpointInformationEpoch,
                Optional.empty(),
                List.of());
    }

    private static void removeMember(StreamsGroup group, Member member, String why) {
        group.remove(member);
        group.bump("member " + member.memberId + " " + why);
        log.info("streams group {}: member {} {}", group.groupId, member.memberId, why);
    }

    // ------------------------------------------------------------------------------------------
    // Timers

    /**
     * Removes members whose session or rebalance timeout passed, and bumps the epoch of groups whose
     * topology resolves differently (topics created, deleted, grown).
     *
     * @return how many members were removed
     */
    public synchronized int tick(long nowMs) {
        int removed = 0;
        for (StreamsGroup group : groups.values()) {
            for (Member member : List.copyOf(group.members.values())) {
                if (nowMs > member.sessionDeadlineMs) {
                    removeMember(group, member, "removed: session timeout");
                    removed++;
                } else if (member.state == StreamsMemberState.UNREVOKED_TASKS && nowMs > member.rebalanceDeadlineMs) {
                    removeMember(
                            group,
                            member,
                            "removed: did not revoke " + member.pendingRevocation + " within its rebalance timeout of "
                                    + member.rebalanceTimeoutMs + " ms");
                    removed++;
                }
            }
            planner.refreshTopology(group);
        }
        return removed;
    }

    /** The internal topics the groups' topologies lack now (for the caller to create). */
    public synchronized List<StreamsTopology.InternalTopic> missingInternalTopics() {
        Map<String, StreamsTopology.InternalTopic> missing = new TreeMap<>();
        for (StreamsGroup group : groups.values()) {
            if (group.resolved != null && !group.members.isEmpty()) {
                group.resolved.toCreate().forEach(topic -> missing.putIfAbsent(topic.name(), topic));
            }
        }
        return List.copyOf(missing.values());
    }

    /** Forgets every group (this coordinator lost leadership; members join the new leader). */
    public synchronized void clear() {
        if (!groups.isEmpty()) {
            log.info("dropping the membership of {} streams groups: no longer the group coordinator", groups.size());
        }
        groups.clear();
    }

    /**
     * Forgets every group at {@code nowMs}: for a session timeout from then, a member of a group
     * unknown here is told UNKNOWN_MEMBER_ID (join again) rather than GROUP_ID_NOT_FOUND.
     */
    public synchronized void clear(long nowMs) {
        clear();
        forgottenAtMs = nowMs;
    }

    private GroupException unknownGroup(String groupId, String memberId, long nowMs) {
        return MemberRules.unknownGroup(
                groupId, memberId, nowMs, forgottenAtMs, config.sessionTimeout().toMillis());
    }

    // ------------------------------------------------------------------------------------------
    // Offsets

    /**
     * Whether an OffsetCommit of a streams group may be applied (as Kafka 4.4's streams groups):
     * member epoch -1 into a group without members (admin tools); a member at its epoch; a member at
     * an older epoch for partitions of active tasks it owns since that epoch or before; else
     * STALE_MEMBER_EPOCH. An unknown member is UNKNOWN_MEMBER_ID, an unknown group with epoch 0 or
     * more GROUP_ID_NOT_FOUND (UNKNOWN_MEMBER_ID within a session timeout of a takeover).
     *
     * @param partitions the committed partitions by topic name
     * @return who commits; empty when no streams group of that id is held here (the caller applies
     *     the other types' rules)
     */
    public synchronized Optional<Committer> validateCommit(
            String groupId,
            String memberId,
            int memberEpoch,
            Optional<String> instanceId,
            Map<String, List<Integer>> partitions) {
        StreamsGroup group = groups.get(groupId);
        if (group == null) {
            return Optional.empty();
        }
        if (memberEpoch < 0 && group.members.isEmpty()) {
            return Optional.of(Committer.ADMIN);
        }
        Member member = group.members.get(memberId);
        if (member == null) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID, "member '" + memberId + "' is not in streams group " + groupId);
        }
        if (instanceId.isPresent() && !instanceId.get().equals(member.instanceId)) {
            throw new GroupException(
                    Errors.FENCED_INSTANCE_ID, "member " + memberId + " does not hold instance id " + instanceId.get());
        }
        if (memberEpoch == member.memberEpoch) {
            return Optional.of(Committer.MEMBER);
        }
        if (memberEpoch > member.memberEpoch || group.resolved == null) {
            throw stale(member, memberEpoch);
        }
        for (Map.Entry<String, List<Integer>> topic : partitions.entrySet()) {
            SortedSet<String> subtopologies =
                    group.resolved.subtopologiesBySource().getOrDefault(topic.getKey(), new TreeSet<>());
            for (int partition : topic.getValue()) {
                boolean owned = false;
                for (String subtopology : subtopologies) {
                    Integer since = member.activeSince.get(new TaskId(subtopology, partition));
                    owned |= since != null && since <= memberEpoch;
                }
                if (!owned) {
                    throw stale(member, memberEpoch);
                }
            }
        }
        return Optional.of(Committer.MEMBER);
    }

    private static GroupException stale(Member member, int memberEpoch) {
        return new GroupException(
                Errors.STALE_MEMBER_EPOCH,
                "member " + member.memberId + " committed at epoch " + memberEpoch + " but is at epoch "
                        + member.memberEpoch);
    }

    /**
     * Whether an OffsetFetch of a streams group may be answered: without a member id and with epoch
     * -1 always; a member at its epoch.
     *
     * @return whether the group is held here
     */
    public synchronized boolean validateFetch(String groupId, Optional<String> memberId, int memberEpoch) {
        StreamsGroup group = groups.get(groupId);
        if (group == null) {
            return false;
        }
        Member member = group.members.get(memberId.orElse(""));
        MemberRules.checkFetch(
                groupId, memberId, memberEpoch, Optional.ofNullable(member).map(m -> m.memberEpoch));
        return true;
    }

    /** The source topics of the group's topology (OffsetDelete refuses those while it has members). */
    public synchronized SortedSet<String> sourceTopics(String groupId) {
        StreamsGroup group = groups.get(groupId);
        if (group == null || group.members.isEmpty() || group.resolved == null) {
            return new TreeSet<>();
        }
        return new TreeSet<>(group.resolved.subtopologiesBySource().keySet());
    }

    // ------------------------------------------------------------------------------------------
    // Describe, list, delete

    /** The group, if this coordinator holds it. */
    public synchronized Optional<StreamsGroupDescription> describe(String groupId) {
        return Optional.ofNullable(groups.get(groupId)).map(StreamsGroup::describe);
    }

    /** Every group held here, by id. */
    public synchronized SortedMap<String, StreamsGroupDescription> describeAll() {
        SortedMap<String, StreamsGroupDescription> all = new TreeMap<>();
        for (String groupId : groups.keySet()) {
            all.put(groupId, describe(groupId).orElseThrow());
        }
        return all;
    }

    /**
     * Checks that a group may be deleted (no members).
     *
     * @throws GroupException NON_EMPTY_GROUP
     */
    public synchronized void checkDeletable(String groupId) {
        StreamsGroup group = groups.get(groupId);
        if (group != null && !group.members.isEmpty()) {
            throw new GroupException(
                    Errors.NON_EMPTY_GROUP, "group " + groupId + " has " + group.members.size() + " members");
        }
    }

    /** Forgets a group that has no members. */
    public synchronized void forgetIfEmpty(String groupId) {
        StreamsGroup group = groups.get(groupId);
        if (group != null && group.members.isEmpty()) {
            groups.remove(groupId);
        }
    }

    /** Whether the group is held here and has members. */
    public synchronized boolean hasMembers(String groupId) {
        StreamsGroup group = groups.get(groupId);
        return group != null && !group.members.isEmpty();
    }

    /** Whether the group is held here. */
    public synchronized boolean contains(String groupId) {
        return groups.containsKey(groupId);
    }

    public synchronized int groupCount() {
        return groups.size();
    }

    public synchronized int memberCount() {
        int members = 0;
        for (StreamsGroup group : groups.values()) {
            members += group.members.size();
        }
        return members;
    }

    /**
     * Checks every group's ownership index against its members (tests): an active task has one
     * owner, and the indexes say who.
     */
    public synchronized void checkInvariants() {
        for (StreamsGroup group : groups.values()) {
            group.checkInvariants();
        }
    }
}
