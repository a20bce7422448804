package io.tributary.coordinator.group.streams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One streams group's state in {@link StreamsGroupCoordinator} (not thread-safe: used under the
 * coordinator's lock): its epochs, topology, members, target assignment and the index of who owns
 * which task, which {@link #setOwnership} keeps exact.
 */
final class StreamsGroup {

    private static final Logger log = LoggerFactory.getLogger(StreamsGroup.class);

    /** Group states, as Kafka names them. */
    static final String EMPTY = "Empty";

    static final String NOT_READY = "NotReady";
    static final String ASSIGNING = "Assigning";
    static final String RECONCILING = "Reconciling";
    static final String STABLE = "Stable";

    /** One member (mutable; only the coordinator touches it). */
    static final class Member {
        final String memberId;
        String instanceId;
        String rackId;
        String clientId = "";
        String clientHost = "";
        int rebalanceTimeoutMs;
        int topologyEpoch;
        String processId = "";
        StreamsHeartbeatRequest.Endpoint userEndpoint;
        Map<String, String> clientTags = Map.of();
        List<StreamsHeartbeatRequest.TaskOffset> taskOffsets = List.of();
        List<StreamsHeartbeatRequest.TaskOffset> taskEndOffsets = List.of();
        int memberEpoch;
        int previousMemberEpoch;
        StreamsMemberState state = StreamsMemberState.STABLE;
        Tasks assigned = Tasks.EMPTY;
        Tasks pendingRevocation = Tasks.EMPTY;
        /**
         * The member epoch at which each active task it owns (assigned or pending revocation) was
         * given to it: a commit at an older epoch is accepted for the partitions of tasks owned
         * since that epoch or before (as KIP-1251 for consumer groups).
         */
        final Map<TaskId, Integer> activeSince = new HashMap<>();

        long sessionDeadlineMs;
        long rebalanceDeadlineMs = Long.MAX_VALUE;

        Member(String memberId) {
            this.memberId = memberId;
        }

        void setEpoch(int epoch) {
            if (epoch != memberEpoch) {
                previousMemberEpoch = memberEpoch;
                memberEpoch = epoch;
            }
        }

        /** Everything it owns: assigned and pending revocation. */
        Tasks owned() {
            return assigned.union(pendingRevocation);
        }
    }

    final String groupId;
    int groupEpoch;
    int assignmentEpoch;
    /** The topology, set by the first member to join. */
    StreamsTopology topology;
    /** The topology resolved against the topics when the group epoch last moved. */
    ResolvedTopology resolved;

    final Map<String, Member> members = new TreeMap<>();
    final Map<String, String> staticMembers = new HashMap<>();
    Map<String, Tasks> target = new TreeMap<>();
    /** Which member owns each active task (assigned or pending revocation). */
    final Map<TaskId, String> activeOwners = new HashMap<>();
    /** Which members own each standby or warm-up task (assigned or pending revocation). */
    final Map<TaskId, Set<String>> standbyOwners = new HashMap<>();

    int endpointInformationEpoch;
    List<StreamsHeartbeatResponse.EndpointPartitions> endpoints = List.of();
    /** Until when a new group's first target assignment waits ({@code Long.MIN_VALUE}: it does not). */
    long assignmentDelayedUntilMs = Long.MIN_VALUE;

    /** A member asked the application to shut down; cleared when the group becomes empty. */
    Optional<String> shutdownRequestedBy = Optional.empty();

    StreamsGroup(String groupId, int initialEpoch) {
        this.groupId = groupId;
        this.groupEpoch = initialEpoch;
        this.assignmentEpoch = initialEpoch;
    }

    void bump(String why) {
        groupEpoch++;
        log.debug("streams group {} epoch {}: {}", groupId, groupEpoch, why);
    }

    /**
     * Sets what a member owns, keeping the ownership index exact (two owners of one active task is a
     * bug) and the member's {@code activeSince}: an active task it already owned keeps its epoch, a
     * newly owned one gets {@code epochOfNew}.
     */
    void setOwnership(Member member, Tasks assigned, Tasks pending, int epochOfNew) {
        for (TaskId task : member.owned().active()) {
            activeOwners.remove(task, member.memberId);
        }
        Tasks previous = member.owned();
        for (TaskId task : union(previous.standby(), previous.warmup())) {
            Set<String> owners = standbyOwners.get(task);
            if (owners != null && owners.remove(member.memberId) && owners.isEmpty()) {
                standbyOwners.remove(task);
            }
        }
        member.assigned = assigned;
        member.pendingRevocation = pending;
        Tasks owned = member.owned();
        for (TaskId task : owned.active()) {
            String other = activeOwners.putIfAbsent(task, member.memberId);
            if (other != null && !other.equals(member.memberId)) {
                throw new IllegalStateException("streams group %s: task %s given to %s while %s owns it"
                        .formatted(groupId, task, member.memberId, other));
            }
        }
        for (TaskId task : union(owned.standby(), owned.warmup())) {
            standbyOwners.computeIfAbsent(task, k -> new HashSet<>()).add(member.memberId);
        }
        member.activeSince.keySet().retainAll(owned.active());
        for (TaskId task : owned.active()) {
            member.activeSince.putIfAbsent(task, epochOfNew);
        }
    }

    void remove(Member member) {
        setOwnership(member, Tasks.EMPTY, Tasks.EMPTY, 0);
        members.remove(member.memberId);
        if (member.instanceId != null) {
            staticMembers.remove(member.instanceId, member.memberId);
        }
        target.remove(member.memberId);
        if (members.isEmpty()) {
            shutdownRequestedBy = Optional.empty();
        }
    }

    /** The process owning {@code task} as active now, if any. */
    Optional<String> activeProcess(TaskId task) {
        String owner = activeOwners.get(task);
        return owner == null ? Optional.empty() : Optional.of(members.get(owner).processId);
    }

    /** Whether a member of {@code processId} owns {@code task} as standby or warm-up. */
    boolean standbyInProcess(TaskId task, String processId) {
        for (String owner : standbyOwners.getOrDefault(task, Set.of())) {
            if (members.get(owner).processId.equals(processId)) {
                return true;
            }
        }
        return false;
    }

    String state() {
        if (members.isEmpty()) {
            return EMPTY;
        }
        if (resolved == null || !resolved.ready()) {
            return NOT_READY;
        }
        if (groupEpoch > assignmentEpoch) {
            return ASSIGNING;
        }
        for (Member member : members.values()) {
            if (member.state != StreamsMemberState.STABLE || member.memberEpoch != assignmentEpoch) {
                return RECONCILING;
            }
        }
        return STABLE;
    }

    /** A snapshot for StreamsGroupDescribe, DescribeGroups and ListGroups. */
    StreamsGroupDescription describe() {
        List<StreamsGroupDescription.Member> described = new ArrayList<>();
        for (Member member : members.values()) {
            described.add(new StreamsGroupDescription.Member(
                    member.memberId,
                    member.memberEpoch,
                    Optional.ofNullable(member.instanceId),
                    Optional.ofNullable(member.rackId),
                    member.clientId,
                    member.clientHost,
                    member.topologyEpoch,
                    member.processId,
                    Optional.ofNullable(member.userEndpoint),
                    member.clientTags,
                    member.taskOffsets,
                    member.taskEndOffsets,
                    member.state,
                    member.assigned,
                    target.getOrDefault(member.memberId, Tasks.EMPTY)));
        }
        return new StreamsGroupDescription(
                groupId,
                state(),
                groupEpoch,
                assignmentEpoch,
                Optional.ofNullable(topology),
                Optional.ofNullable(resolved),
                described);
    }

    /** Checks the ownership index against the members: an active task has one owner, and the index says who. */
    void checkInvariants() {
        Map<TaskId, String> active = new HashMap<>();
        for (Member member : members.values()) {
            for (TaskId task : member.owned().active()) {
                String previous = active.put(task, member.memberId);
                if (previous != null) {
                    throw new IllegalStateException("streams group %s: %s active on %s and %s"
                            .formatted(groupId, task, previous, member.memberId));
                }
            }
        }
        if (!active.equals(activeOwners)) {
            throw new IllegalStateException("streams group %s: owner index %s differs from members %s"
                    .formatted(groupId, activeOwners, active));
        }
    }

    private static Set<TaskId> union(Set<TaskId> a, Set<TaskId> b) {
        Set<TaskId> union = new HashSet<>(a);
        union.addAll(b);
        return union;
    }
}
