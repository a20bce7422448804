package io.tributary.coordinator.group;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Members of a KIP-848 consumer group that speak the classic protocol (Kafka 4.4's mixed groups:
 * the members of an upgraded classic group, or a classic consumer joining a consumer group with
 * members): their JoinGroup, SyncGroup, Heartbeat and LeaveGroup, served by the consumer group's
 * server-side assignment, as Kafka's {@code classicGroup*ToConsumerGroup}.
 *
 * <ul>
 *   <li>JoinGroup: GROUP_MAX_SIZE_REACHED for a new member of a full group; INCONSISTENT_GROUP_PROTOCOL
 *       unless the protocol type is {@code consumer} and one of the protocols is supported by every
 *       classic member; MEMBER_ID_REQUIRED first for a new dynamic member (v4+). The member's
 *       subscription (topics, rack) comes from its protocol metadata; a changed one bumps the group
 *       epoch; the member then reconciles towards its target with the partitions its subscription
 *       says it owns. The answer: generation = the member's epoch, the member's preferred protocol,
 *       no leader and no member list (the assignment is the coordinator's). It must sync within its
 *       rebalance timeout.
 *   <li>SyncGroup: UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION (generation is not the
 *       member epoch), INCONSISTENT_GROUP_PROTOCOL (v5 names that differ), REBALANCE_IN_PROGRESS
 *       (the group epoch moved past the member's and it is not revoking); else its assigned
 *       partitions as a {@code consumer} protocol assignment.
 *   <li>Heartbeat: the same checks of member and generation; REBALANCE_IN_PROGRESS when the member
 *       must join again (the group epoch is past its epoch, it has partitions to revoke, or the
 *       partitions it waits for are free), and from then it must join within its rebalance timeout.
 *   <li>LeaveGroup: each classic member named (by member id or instance id) is removed.
 * </ul>
 *
 * A classic member's session is its own session timeout; joining, syncing and heartbeating renew
 * it. The deadlines are enforced by {@link GroupCoordinator#tick}.
 *
 * <p>Thread-safety: every method runs under the {@link GroupCoordinator}'s lock.
 */
public final class ClassicProtocolMembers {

    private static final Logger log = LoggerFactory.getLogger(ClassicProtocolMembers.class);

    private final GroupCoordinator coordinator;

    public ClassicProtocolMembers(GroupCoordinator coordinator) {
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
    }

    /**
     * A JoinGroup's answer.
     *
     * @param error NONE, or MEMBER_ID_REQUIRED with the member id to join with
     */
    public record Joined(Errors error, String memberId, int generationId, String protocolName) {}

    /** A SyncGroup's answer: the protocol type and name as the request named them (v5), the assignment. */
    public record Synced(Optional<String> protocolType, Optional<String> protocolName, byte[] assignment) {
        public Synced {
            assignment = assignment.clone();
        }

        @Override
        public byte[] assignment() {
            return assignment.clone();
        }
    }

    /** A member named in a LeaveGroup (by member id, instance id or both). */
    public record Leaving(String memberId, Optional<String> instanceId) {}

    /** An answer and when it may be sent: once every write queued up to it is durable. */
    public record Pending<T>(T answer, CompletableFuture<Optional<Errors>> written) {}

    /**
     * Serves a JoinGroup into the consumer group {@code join.groupId()}, which has members.
     *
     * @param newMemberId the member id a new dynamic member gets (Kafka's form: a random {@code Uuid})
     * @throws GroupException GROUP_MAX_SIZE_REACHED, INCONSISTENT_GROUP_PROTOCOL, FENCED_INSTANCE_ID,
     *     UNKNOWN_MEMBER_ID (the group is gone)
     */
    public Pending<Joined> join(ClassicJoin join, String newMemberId, long nowMs) {
        synchronized (coordinator) {
            ConsumerGroup group = existing(join.groupId());
            String memberId = join.memberId().isEmpty() ? newMemberId : join.memberId();
            if (group.members.size() >= coordinator.config().maxGroupSize() && !group.members.containsKey(memberId)) {
                throw new GroupException(
                        Errors.GROUP_MAX_SIZE_REACHED,
                        "The consumer group has reached its maximum capacity of "
                                + coordinator.config().maxGroupSize() + " members.");
            }
            checkProtocols(group, memberId, join);
            if (join.requireKnownMemberId()
                    && join.memberId().isEmpty()
                    && join.instanceId().isEmpty()) {
                return new Pending<>(
                        new Joined(Errors.MEMBER_ID_REQUIRED, memberId, -1, ""),
                        CompletableFuture.completedFuture(Optional.empty()));
            }
            ConsumerProtocolBytes.Subscription subscription = ConsumerProtocolBytes.subscription(
                    join.protocols().getFirst().metadata(), coordinator.topics);
            int epochBefore = group.groupEpoch;
            try {
                ConsumerGroupMember member = findOrJoin(group, join, memberId);
                update(group, member, join, subscription);
                coordinator.assigner.update(group, epochBefore);
                Reconciler.reconcile(group, member, Optional.of(subscription.owned()), true, nowMs);
                group.touch(member);
                member.sessionDeadlineMs = nowMs + member.classic.sessionTimeoutMs();
                member.classicJoinDeadlineMs = Long.MAX_VALUE;
                member.classicSyncDeadlineMs = nowMs + member.rebalanceTimeoutMs;
                Joined joined =
                        new Joined(Errors.NONE, member.memberId, member.memberEpoch, member.classic.protocolName());
                return new Pending<>(joined, coordinator.writes.durable());
            } finally {
                coordinator.store(group);
            }
        }
    }

    private static void checkProtocols(ConsumerGroup group, String memberId, ClassicJoin join) {
        boolean supported = ConsumerProtocol.PROTOCOL_TYPE.equals(join.protocolType())
                && !join.protocols().isEmpty();
        if (supported) {
            Set<String> common = null;
            for (ConsumerGroupMember member : group.members.values()) {
                if (member.classic != null && !member.memberId.equals(memberId)) {
                    Set<String> names = new TreeSet<>();
                    member.classic.protocols().forEach(p -> names.add(p.name()));
                    if (common == null) {
                        common = names;
                    } else {
                        common.retainAll(names);
                    }
                }
            }
            Set<String> supportedByAll = common;
            supported = supportedByAll == null
                    || join.protocols().stream().anyMatch(p -> supportedByAll.contains(p.name()));
        }
        if (!supported) {
            throw new GroupException(
                    Errors.INCONSISTENT_GROUP_PROTOCOL, "Member " + memberId + "'s protocols are not supported.");
        }
    }

    private ConsumerGroupMember findOrJoin(ConsumerGroup group, ClassicJoin join, String memberId) {
        if (join.instanceId().isPresent()) {
            String instanceId = join.instanceId().get();
            String holderId = group.staticMembers.get(instanceId);
            ConsumerGroupMember holder = holderId == null ? null : group.members.get(holderId);
            if (holder == null) {
                ConsumerGroupMember joined = newMember(group, memberId);
                joined.instanceId = instanceId;
                group.staticMembers.put(instanceId, memberId);
                return joined;
            }
            if (holder.memberId.equals(memberId)) {
                return holder;
            }
            if (!join.memberId().isEmpty()) {
                throw new GroupException(
                        Errors.FENCED_INSTANCE_ID,
                        "Static member " + memberId + " with instance id " + instanceId + " was fenced by member "
                                + holder.memberId + ".");
            }
            // A static member that restarted (no member id) takes its instance's place and assignment;
            // replacing the last KIP-848 member may leave classic members only (a downgrade).
            if (holder.classic == null) {
                coordinator.downgradeCandidates.putIfAbsent(group.groupId, group.groupEpoch);
            }
            return coordinator.membership.replaceStatic(group, holder, memberId);
        }
        ConsumerGroupMember member = group.members.get(memberId);
        return member != null ? member : newMember(group, memberId);
    }

    private static ConsumerGroupMember newMember(ConsumerGroup group, String memberId) {
        ConsumerGroupMember member = new ConsumerGroupMember(memberId);
        group.add(member);
        group.bump("classic member " + memberId + " joined");
        log.info("group {}: member {} joined with the classic protocol", group.groupId, memberId);
        return member;
    }

    private void update(
            ConsumerGroup group,
            ConsumerGroupMember member,
            ClassicJoin join,
            ConsumerProtocolBytes.Subscription subscription) {
        subscription.rackId().ifPresent(rack -> member.rackId = rack);
        member.rebalanceTimeoutMs = (int) Math.min(
                join.rebalanceTimeoutMs(),
                coordinator.config().maxRebalanceTimeout().toMillis());
        member.serverAssignor = null;
        member.clientId = join.clientId();
        member.clientHost = join.clientHost();
        member.classic = new ClassicMemberMetadata(join.sessionTimeoutMs(), join.protocols());
        List<String> topics = List.copyOf(new TreeSet<>(subscription.topics()));
        if (!topics.equals(member.subscribedTopicNames) || member.subscribedTopicRegex != null) {
            member.subscribedTopicNames = topics;
            member.subscribedTopicRegex = null;
            member.regex = null;
            group.bump("member " + member.memberId + " subscription");
        }
    }

    /**
     * Serves a SyncGroup of a classic member of a consumer group.
     *
     * @param protocolType the protocol type the request names (v5), empty when not named
     * @param protocolName the protocol name the request names (v5), empty when not named
     * @throws GroupException UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION,
     *     INCONSISTENT_GROUP_PROTOCOL, REBALANCE_IN_PROGRESS
     */
    public Pending<Synced> sync(
            String groupId,
            String memberId,
            Optional<String> instanceId,
            int generationId,
            Optional<String> protocolType,
            Optional<String> protocolName,
            long nowMs) {
        synchronized (coordinator) {
            ConsumerGroup group = existing(groupId);
            ConsumerGroupMember member = classicMember(group, memberId, instanceId, generationId);
            if (protocolType.isPresent() && !ConsumerProtocol.PROTOCOL_TYPE.equals(protocolType.get())) {
                throw new GroupException(
                        Errors.INCONSISTENT_GROUP_PROTOCOL,
                        "The protocol type " + protocolType.get() + " from member " + memberId
                                + " request is not equal to the group protocol type consumer.");
            }
            if (protocolName.isPresent() && !member.classic.protocolName().equals(protocolName.get())) {
                throw new GroupException(
                        Errors.INCONSISTENT_GROUP_PROTOCOL,
                        "The protocol name " + protocolName.get() + " from member " + memberId
                                + " request is not equal to the protocol name " + member.classic.protocolName()
                                + " returned in the join response.");
            }
            if (group.groupEpoch > member.memberEpoch && member.state != MemberState.UNREVOKED_PARTITIONS) {
                throw mustRejoin(group, member, nowMs);
            }
            member.classicSyncDeadlineMs = Long.MAX_VALUE;
            member.sessionDeadlineMs = nowMs + member.classic.sessionTimeoutMs();
            byte[] assignment = ConsumerProtocolBytes.assignment(
                    member.assigned, member.classic.protocols().getFirst().metadata(), coordinator.topics);
            return new Pending<>(new Synced(protocolType, protocolName, assignment), coordinator.writes.durable());
        }
    }

    /**
     * Serves a Heartbeat of a classic member of a consumer group.
     *
     * @throws GroupException UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION, or
     *     REBALANCE_IN_PROGRESS: the member must join again
     */
    public void heartbeat(String groupId, String memberId, Optional<String> instanceId, int generationId, long nowMs) {
        synchronized (coordinator) {
            ConsumerGroup group = existing(groupId);
            ConsumerGroupMember member = classicMember(group, memberId, instanceId, generationId);
            member.sessionDeadlineMs = nowMs + member.classic.sessionTimeoutMs();
            if (member.memberEpoch < group.groupEpoch
                    || member.state == MemberState.UNREVOKED_PARTITIONS
                    || (member.state == MemberState.UNRELEASED_PARTITIONS && !waitsOnUnreleased(group, member))) {
                throw mustRejoin(group, member, nowMs);
            }
        }
    }

    /** Whether a partition of the member's target that it does not have yet is still owned by another. */
    private static boolean waitsOnUnreleased(ConsumerGroup group, ConsumerGroupMember member) {
        for (TopicIdPartition partition : group.target.getOrDefault(member.memberId, new TreeSet<>())) {
            if (!member.assigned.contains(partition) && group.owners.ownerOf(partition) != null) {
                return true;
            }
        }
        return false;
    }

    private static GroupException mustRejoin(ConsumerGroup group, ConsumerGroupMember member, long nowMs) {
        if (member.classicJoinDeadlineMs == Long.MAX_VALUE) {
            member.classicJoinDeadlineMs = nowMs + member.rebalanceTimeoutMs;
        }
        return new GroupException(
                Errors.REBALANCE_IN_PROGRESS,
                "A new rebalance is triggered in group " + group.groupId + " and member " + member.memberId
                        + " should rejoin to catch up.");
    }

    /**
     * Serves a LeaveGroup into a consumer group: each classic member named is removed.
     *
     * @return each member's error, in order: NONE, UNKNOWN_MEMBER_ID (also a member that speaks
     *     ConsumerGroupHeartbeat) or FENCED_INSTANCE_ID
     */
    public Pending<List<Errors>> leave(String groupId, List<Leaving> leaving, long nowMs) {
        synchronized (coordinator) {
            ConsumerGroup group = existing(groupId);
            List<Errors> errors = new ArrayList<>();
            Set<ConsumerGroupMember> left = new LinkedHashSet<>();
            for (Leaving leaver : leaving) {
                ConsumerGroupMember member;
                if (leaver.instanceId().isPresent()) {
                    String holderId =
                            group.staticMembers.get(leaver.instanceId().get());
                    member = holderId == null ? null : group.members.get(holderId);
                    if (member != null
                            && !leaver.memberId().isEmpty()
                            && !leaver.memberId().equals(member.memberId)) {
                        errors.add(Errors.FENCED_INSTANCE_ID);
                        continue;
                    }
                } else {
                    member = group.members.get(leaver.memberId());
                }
                if (member == null
                        || (member.classic == null && !leaver.memberId().isEmpty())) {
                    errors.add(Errors.UNKNOWN_MEMBER_ID);
                    continue;
                }
                errors.add(Errors.NONE);
                left.add(member);
            }
            for (ConsumerGroupMember member : left) {
                coordinator.removeMember(group, member, "left the group (LeaveGroup)");
            }
            coordinator.store(group);
            return new Pending<>(errors, coordinator.writes.durable());
        }
    }

    private ConsumerGroup existing(String groupId) {
        ConsumerGroup group = coordinator.group(groupId);
        if (group == null || group.members.isEmpty()) {
            throw new GroupException(Errors.UNKNOWN_MEMBER_ID, "Group " + groupId + " not found.");
        }
        return group;
    }

    /** The member a request names, checked to speak the classic protocol at {@code generationId}. */
    private static ConsumerGroupMember classicMember(
            ConsumerGroup group, String memberId, Optional<String> instanceId, int generationId) {
        ConsumerGroupMember member;
        if (instanceId.isPresent()) {
            String holderId = group.staticMembers.get(instanceId.get());
            member = holderId == null ? null : group.members.get(holderId);
            if (member == null) {
                throw new GroupException(
                        Errors.UNKNOWN_MEMBER_ID,
                        "Member with instance id " + instanceId.get() + " is not a member of group " + group.groupId
                                + ".");
            }
            if (!member.memberId.equals(memberId)) {
                throw new GroupException(
                        Errors.FENCED_INSTANCE_ID,
                        "Static member " + memberId + " with instance id " + instanceId.get() + " was fenced by member "
                                + member.memberId + ".");
            }
        } else {
            member = group.members.get(memberId);
            if (member == null) {
                throw new GroupException(
                        Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group " + group.groupId);
            }
        }
        if (member.classic == null) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " does not use the classic protocol.");
        }
        if (member.memberEpoch != generationId) {
            throw new GroupException(
                    Errors.ILLEGAL_GENERATION,
                    "The request generation id " + generationId + " is not equal to the member epoch "
                            + member.memberEpoch + " of member " + memberId + ".");
        }
        return member;
    }

    /** The partitions a classic member is assigned now (tests). */
    public SortedSet<TopicIdPartition> assigned(String groupId, String memberId) {
        synchronized (coordinator) {
            ConsumerGroup group = coordinator.group(groupId);
            ConsumerGroupMember member = group == null ? null : group.members.get(memberId);
            return member == null ? new TreeSet<>() : new TreeSet<>(member.assigned);
        }
    }
}
