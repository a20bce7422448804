package io.tributary.coordinator.group.classic;

import io.tributary.coordinator.group.ClassicGeneration;
import io.tributary.coordinator.group.ClassicMemberMetadata;
import io.tributary.coordinator.group.ClassicProtocol;
import io.tributary.coordinator.group.GroupCoordinator.Committer;
import io.tributary.coordinator.group.GroupException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.protocol.Errors;

/**
 * One classic group's state (mutable; used under {@link ClassicGroupCoordinator}'s lock): its
 * generation, protocol, leader, members and the rebalance in progress; the changes the rebalance
 * makes to them ({@link ClassicRebalance}, {@link ClassicJoins}); and the group's views and checks:
 * the JoinGroup and SyncGroup answers of its current generation, its DescribeGroups view, the topics
 * its members subscribe to (OffsetDelete), whether an OffsetCommit may be applied, its invariants,
 * and what a coordinator failover keeps of it.
 */
final class ClassicGroup {

    final String groupId;
    ClassicGroupState state = ClassicGroupState.EMPTY;
    long stateTimestampMs;
    int generationId;
    /** The members' protocol type; empty until the first member joins. */
    Optional<String> protocolType = Optional.empty();
    /** The protocol chosen for the current generation; empty while the group is empty. */
    Optional<String> protocolName = Optional.empty();
    /** The current leader; null when the group has no members. */
    String leaderId;
    /** Members in the order they joined (the first is leader when the leader leaves). */
    final Map<String, ClassicMember> members = new LinkedHashMap<>();
    /** Instance id to member id, for static members. */
    final Map<String, String> staticMembers = new HashMap<>();
    /** KIP-394: member ids handed out with MEMBER_ID_REQUIRED, to the deadline of their join. */
    final Map<String, Long> pendingMembers = new LinkedHashMap<>();
    /** Members of the completed join that have not sent their SyncGroup yet. */
    final Set<String> pendingSync = new HashSet<>();
    /** When the join barrier completes at the latest (PreparingRebalance). */
    long joinDeadlineMs = Long.MAX_VALUE;
    /** When members that have not synced are removed (CompletingRebalance and Stable). */
    long syncDeadlineMs = Long.MAX_VALUE;
    /** The first rebalance of an empty group waits the initial delay even when all joined. */
    boolean initialDelay;
    /** Rebalance time left after the current initial delay step. */
    long initialRemainingMs;
    /** Whether a member joined during the current initial delay step. */
    boolean newMemberAdded;
    /** The generation being stored after the leader's SyncGroup, -1 when none. */
    int storingGeneration = -1;

    ClassicGroup(String groupId, long nowMs) {
        this.groupId = groupId;
        this.stateTimestampMs = nowMs;
    }

    void transition(ClassicGroupState next, long nowMs) {
        state = next;
        stateTimestampMs = nowMs;
    }

    boolean isLeader(String memberId) {
        return memberId.equals(leaderId);
    }

    /** The largest rebalance timeout of the members: how long a rebalance may take. */
    int rebalanceTimeoutMs() {
        int timeout = 0;
        for (ClassicMember member : members.values()) {
            timeout = Math.max(timeout, member.rebalanceTimeoutMs);
        }
        return timeout;
    }

    int awaitingJoinCount() {
        int count = 0;
        for (ClassicMember member : members.values()) {
            if (member.awaitingJoin != null) {
                count++;
            }
        }
        return count;
    }

    boolean allMembersJoined() {
        return members.size() == awaitingJoinCount() && pendingMembers.isEmpty();
    }

    /**
     * Whether a member with this protocol type and these protocols may join: any non-empty ones into
     * an empty group; otherwise the same type and a protocol every member supports.
     */
    boolean supportsProtocols(String type, List<ClassicProtocol> protocols) {
        if (type.isEmpty() || protocols.isEmpty()) {
            return false;
        }
        if (members.isEmpty()) {
            return true;
        }
        if (!protocolType.orElse("").equals(type)) {
            return false;
        }
        for (ClassicProtocol protocol : protocols) {
            if (candidates().contains(protocol.name())) {
                return true;
            }
        }
        return false;
    }

    /** The protocols every member supports. */
    Set<String> candidates() {
        Set<String> candidates = null;
        for (ClassicMember member : members.values()) {
            Set<String> names = new HashSet<>();
            member.protocols.forEach(p -> names.add(p.name()));
            if (candidates == null) {
                candidates = names;
            } else {
                candidates.retainAll(names);
            }
        }
        return candidates == null ? Set.of() : candidates;
    }

    /**
     * The generation's protocol: each member votes for its most preferred protocol that every
     * member supports; the most votes win, a tie going to the one the leader prefers (Kafka breaks
     * ties by whatever its vote map gives first; any choice is valid).
     */
    String selectProtocol() {
        Set<String> candidates = candidates();
        if (candidates.isEmpty()) {
            throw new IllegalStateException("group " + groupId + ": no protocol common to all members");
        }
        Map<String, Integer> votes = new HashMap<>();
        for (ClassicMember member : members.values()) {
            for (ClassicProtocol protocol : member.protocols) {
                if (candidates.contains(protocol.name())) {
                    votes.merge(protocol.name(), 1, Integer::sum);
                    break;
                }
            }
        }
        ClassicMember leader = leaderId == null ? null : members.get(leaderId);
        List<ClassicProtocol> order =
                leader != null ? leader.protocols : members.values().iterator().next().protocols;
        String best = null;
        int bestVotes = -1;
        for (ClassicProtocol protocol : order) {
            int count = votes.getOrDefault(protocol.name(), 0);
            if (candidates.contains(protocol.name()) && count > bestVotes) {
                best = protocol.name();
                bestVotes = count;
            }
        }
        return best;
    }

    void add(ClassicMember member, String type) {
        if (members.isEmpty()) {
            protocolType = Optional.of(type);
        }
        members.put(member.memberId, member);
        member.instanceId.ifPresent(id -> staticMembers.put(id, member.memberId));
        if (leaderId == null) {
            leaderId = member.memberId;
        }
    }

    /**
     * At the join barrier: when the leader did not join again (a static member kept in the group),
     * the first member that did leads instead, since only a member answered with the member list can
     * assign (Kafka's {@code maybeElectNewJoinedLeader}).
     *
     * @return false when no member joined again
     */
    boolean electJoinedLeader() {
        ClassicMember leader = leaderId == null ? null : members.get(leaderId);
        if (leader != null && leader.awaitingJoin != null) {
            return true;
        }
        for (ClassicMember member : members.values()) {
            if (member.awaitingJoin != null) {
                leaderId = member.memberId;
                return true;
            }
        }
        return false;
    }

    /** Removes a member; a new leader is the first remaining member. */
    void remove(String memberId) {
        ClassicMember member = members.remove(memberId);
        if (member == null) {
            return;
        }
        member.instanceId.ifPresent(id -> staticMembers.remove(id, memberId));
        pendingSync.remove(memberId);
        if (isLeader(memberId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    /** Puts {@code next} in the place of {@code previous} (a static member joined again). */
    void replace(ClassicMember previous, ClassicMember next) {
        Map<String, ClassicMember> reordered = new LinkedHashMap<>();
        for (var entry : members.entrySet()) {
            if (entry.getKey().equals(previous.memberId)) {
                reordered.put(next.memberId, next);
            } else {
                reordered.put(entry.getKey(), entry.getValue());
            }
        }
        members.clear();
        members.putAll(reordered);
        next.instanceId.ifPresent(id -> staticMembers.put(id, next.memberId));
        if (pendingSync.remove(previous.memberId)) {
            pendingSync.add(next.memberId);
        }
        if (isLeader(previous.memberId)) {
            leaderId = next.memberId;
        }
    }

    /**
     * The member a request names, after the static-membership checks: a request with an instance
     * id must come from the member id that holds it (FENCED_INSTANCE_ID otherwise).
     *
     * @throws GroupException UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID
     */
    ClassicMember member(String memberId, Optional<String> instanceId) {
        if (instanceId.isPresent()) {
            String holder = staticMembers.get(instanceId.get());
            if (holder == null) {
                throw new GroupException(
                        Errors.UNKNOWN_MEMBER_ID,
                        "instance id " + instanceId.get() + " is not a member of group " + groupId);
            }
            if (!holder.equals(memberId)) {
                throw new GroupException(
                        Errors.FENCED_INSTANCE_ID,
                        "instance id " + instanceId.get() + " of group " + groupId + " belongs to another member id");
            }
        }
        ClassicMember member = members.get(memberId);
        if (member == null) {
            throw new GroupException(Errors.UNKNOWN_MEMBER_ID, "member '" + memberId + "' is not in group " + groupId);
        }
        return member;
    }

    // ------------------------------------------------------------------------------------------
    // Views and checks

    /**
     * The current generation's answer to a member's JoinGroup (the leader's lists the members).
     *
     * @param withMembers whether the answer lists the members with their metadata (the leader's)
     */
    ClassicJoinResult joinAnswer(ClassicMember member, boolean skipAssignment, boolean withMembers) {
        String protocol = protocolName.orElseThrow();
        List<ClassicJoinResult.JoinedMember> joined = new ArrayList<>();
        if (withMembers) {
            for (ClassicMember m : members.values()) {
                joined.add(new ClassicJoinResult.JoinedMember(m.memberId, m.instanceId, m.metadata(protocol)));
            }
        }
        return new ClassicJoinResult(
                Errors.NONE,
                generationId,
                protocolType,
                protocolName,
                leaderId,
                member.memberId,
                skipAssignment,
                joined);
    }

    /** The current generation's answer to a member's SyncGroup: its part of the assignment. */
    ClassicSyncResult syncAnswer(ClassicMember member) {
        return new ClassicSyncResult(Errors.NONE, protocolType, protocolName, member.assignment);
    }

    GroupException illegalGeneration(int generation) {
        return new GroupException(
                Errors.ILLEGAL_GENERATION,
                "generation " + generation + " is not group " + groupId + "'s current generation " + generationId);
    }

    /**
     * Whether an OffsetCommit into this group may be applied: see {@link
     * ClassicGroupCoordinator#validateCommit}.
     */
    Committer validateCommit(String memberId, int generation, Optional<String> instanceId) {
        if (generation < 0 && state == ClassicGroupState.EMPTY) {
            return Committer.ADMIN;
        }
        if (generation < 0 && memberId.isEmpty() && instanceId.isEmpty()) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID,
                    "group " + groupId + " has members: commits without a member are refused");
        }
        member(memberId, instanceId);
        if (generation != generationId) {
            throw illegalGeneration(generation);
        }
        if (state == ClassicGroupState.COMPLETING_REBALANCE) {
            throw new GroupException(
                    Errors.REBALANCE_IN_PROGRESS, "group " + groupId + " is completing a rebalance: sync first");
        }
        return Committer.MEMBER;
    }

    /**
     * The topics the members subscribe to: see {@link ClassicGroupCoordinator#subscribedTopics}.
     */
    Optional<Set<String>> subscribedTopics() {
        if (members.isEmpty()) {
            return Optional.of(Set.of());
        }
        if (!protocolType.orElse("").equals(ConsumerProtocol.PROTOCOL_TYPE) || protocolName.isEmpty()) {
            return Optional.empty();
        }
        Set<String> topics = new HashSet<>();
        try {
            for (ClassicMember member : members.values()) {
                topics.addAll(ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(
                                member.metadata(protocolName.get()).metadata()))
                        .topics());
            }
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        return Optional.of(Set.copyOf(topics));
    }

    /** The group as DescribeGroups shows it. */
    ClassicGroupDescription describe() {
        boolean stable = state == ClassicGroupState.STABLE;
        List<ClassicGroupDescription.Member> described = new ArrayList<>();
        for (ClassicMember member : members.values()) {
            described.add(new ClassicGroupDescription.Member(
                    member.memberId,
                    member.instanceId,
                    member.clientId,
                    member.clientHost,
                    stable ? member.metadata(protocolName.orElseThrow()).metadata() : new byte[0],
                    member.assignment));
        }
        return new ClassicGroupDescription(
                groupId,
                state,
                protocolType.orElse(""),
                stable ? protocolName.orElseThrow() : "",
                generationId,
                leaderId == null ? "" : leaderId,
                described);
    }

    /**
     * Checks the group's invariants: see {@link ClassicGroupCoordinator#checkInvariants}.
     *
     * @throws IllegalStateException naming the group and the broken invariant
     */
    void checkInvariants() {
        check(members.isEmpty() == (leaderId == null), "leader " + leaderId);
        check(leaderId == null || members.containsKey(leaderId), "leader not a member");
        check(
                (state == ClassicGroupState.EMPTY) == members.isEmpty()
                        || state == ClassicGroupState.PREPARING_REBALANCE,
                "state " + state + " with " + members.size() + " members");
        for (var entry : staticMembers.entrySet()) {
            ClassicMember member = members.get(entry.getValue());
            check(member != null && member.instanceId.equals(Optional.of(entry.getKey())), "static " + entry.getKey());
        }
        for (ClassicMember member : members.values()) {
            check(
                    member.awaitingJoin == null || state == ClassicGroupState.PREPARING_REBALANCE,
                    member.memberId + " awaits a join in " + state);
            check(
                    member.awaitingSync == null || state == ClassicGroupState.COMPLETING_REBALANCE,
                    member.memberId + " awaits a sync in " + state);
        }
        check(
                pendingSync.isEmpty()
                        || state == ClassicGroupState.COMPLETING_REBALANCE
                        || state == ClassicGroupState.STABLE,
                "members pending sync in " + state);
        check(members.keySet().containsAll(pendingSync), "pending sync of non-members");
    }

    private void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("classic group " + groupId + ": " + what);
        }
    }

    /** What a coordinator failover keeps of this group: its generation (Kafka's group record). */
    ClassicGroupRecord record() {
        List<ClassicGroupRecord.Member> stored = new ArrayList<>();
        String protocol = protocolName.orElse("");
        for (ClassicMember member : members.values()) {
            stored.add(new ClassicGroupRecord.Member(
                    member.memberId,
                    member.instanceId,
                    member.clientId,
                    member.clientHost,
                    member.rebalanceTimeoutMs,
                    member.sessionTimeoutMs,
                    member.metadata(protocol).metadata(),
                    member.assignment));
        }
        stored.sort((a, b) -> a.memberId().compareTo(b.memberId()));
        return new ClassicGroupRecord(
                groupId,
                protocolType.orElse(""),
                protocol,
                generationId,
                leaderId == null ? "" : leaderId,
                stateTimestampMs,
                stored);
    }

    /** A group as it was stored: Stable with its members, or Empty. */
    static ClassicGroup load(ClassicGroupRecord record, long nowMs) {
        ClassicGroup group = new ClassicGroup(record.groupId(), record.stateTimestampMs());
        group.generationId = record.generationId();
        group.protocolType = record.protocolType().isEmpty() ? Optional.empty() : Optional.of(record.protocolType());
        for (ClassicGroupRecord.Member stored : record.members()) {
            ClassicMember member = new ClassicMember(stored.memberId(), stored.instanceId());
            member.clientId = stored.clientId();
            member.clientHost = stored.clientHost();
            member.sessionTimeoutMs = stored.sessionTimeoutMs();
            member.rebalanceTimeoutMs = stored.rebalanceTimeoutMs();
            member.protocols = List.of(new ClassicProtocol(record.protocolName(), stored.subscription()));
            member.assignment = stored.assignment();
            member.sessionDeadlineMs = nowMs + stored.sessionTimeoutMs();
            group.members.put(member.memberId, member);
            member.instanceId.ifPresent(id -> group.staticMembers.put(id, member.memberId));
        }
        if (!group.members.isEmpty()) {
            group.protocolName = Optional.of(record.protocolName());
            group.leaderId = group.members.containsKey(record.leaderId())
                    ? record.leaderId()
                    : group.members.keySet().iterator().next();
            group.state = ClassicGroupState.STABLE;
        }
        return group;
    }

    // ------------------------------------------------------------------------------------------
    // Changing protocol with the members (Kafka's online migration)

    /** The current generation, as a consumer group takes it over (an upgrade). */
    ClassicGeneration generation() {
        List<ClassicGeneration.Member> exported = new ArrayList<>();
        for (ClassicMember member : members.values()) {
            exported.add(new ClassicGeneration.Member(
                    member.memberId,
                    member.instanceId,
                    member.clientId,
                    member.clientHost,
                    member.rebalanceTimeoutMs,
                    new ClassicMemberMetadata(member.sessionTimeoutMs, member.protocols),
                    member.assignment));
        }
        return new ClassicGeneration(groupId, protocolType.orElse(""), generationId, protocolName, exported);
    }

    /**
     * The classic group a consumer group's classic members become (a downgrade, Kafka's {@code
     * ClassicGroup.fromConsumerGroup}): Stable at the consumer group's epoch, the first member
     * leading, the protocol chosen by the members' votes, each member's target assignment as its
     * assignment, every session starting now.
     */
    static ClassicGroup fromConsumerGroup(ClassicGeneration generation, long nowMs) {
        ClassicGroup group = new ClassicGroup(generation.groupId(), nowMs);
        group.generationId = generation.generationId();
        for (ClassicGeneration.Member exported : generation.members()) {
            ClassicMember member = new ClassicMember(exported.memberId(), exported.instanceId());
            member.clientId = exported.clientId();
            member.clientHost = exported.clientHost();
            member.sessionTimeoutMs = exported.classic().sessionTimeoutMs();
            member.rebalanceTimeoutMs = exported.rebalanceTimeoutMs();
            member.protocols = exported.classic().protocols();
            member.assignment = exported.assignment();
            member.sessionDeadlineMs = nowMs + member.sessionTimeoutMs;
            group.add(member, generation.protocolType());
        }
        group.protocolName = Optional.of(group.selectProtocol());
        group.state = ClassicGroupState.STABLE;
        return group;
    }
}
