package io.tributary.coordinator.group;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who a heartbeat is from and what it changes of its member: finding the member (by member id, or
 * by instance id for static members), joining, a static member's new member id taking over the
 * assignment of one that left with epoch -2 (KIP-345 in KIP-848), fencing by epoch, and the fields a
 * heartbeat updates (rack, client, rebalance timeout capped by {@link
 * GroupConfig#maxRebalanceTimeout}, subscription, server assignor).
 *
 * <p>Thread-safety: immutable itself; the groups it is given are used under the {@link
 * GroupCoordinator}'s lock.
 */
final class Membership {

    private static final Logger log = LoggerFactory.getLogger(Membership.class);

    private final GroupConfig config;
    private final HeartbeatValidator validator;

    Membership(GroupConfig config, HeartbeatValidator validator) {
        this.config = Objects.requireNonNull(config, "config");
        this.validator = Objects.requireNonNull(validator, "validator");
    }

    /**
     * The member a heartbeat is from: found by member id (or by instance id for a static member),
     * joined when the epoch is 0, or a static member's replacement taking over one that left for now.
     *
     * @throws GroupException UNKNOWN_MEMBER_ID, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID,
     *     GROUP_MAX_SIZE_REACHED
     */
    ConsumerGroupMember findOrJoin(ConsumerGroup group, HeartbeatRequest request) {
        int epoch = request.memberEpoch();
        Optional<String> instanceId = request.instanceId();
        if (instanceId.isPresent()) {
            String existingId = group.staticMembers.get(instanceId.get());
            ConsumerGroupMember existing = existingId == null ? null : group.members.get(existingId);
            if (epoch == HeartbeatRequest.JOIN_EPOCH) {
                if (existing == null) {
                    ConsumerGroupMember joined = join(group, request);
                    joined.instanceId = instanceId.get();
                    group.staticMembers.put(joined.instanceId, joined.memberId);
                    return joined;
                }
                if (existing.memberId.equals(request.memberId())) {
                    return existing;
                }
                if (existing.memberEpoch != HeartbeatRequest.STATIC_LEAVE_EPOCH) {
                    throw new GroupException(
                            Errors.UNRELEASED_INSTANCE_ID,
                            "static member " + request.memberId() + " with instance id " + instanceId.get()
                                    + " joins group " + group.groupId + " but member " + existing.memberId
                                    + " still holds that instance id");
                }
                return replaceStatic(group, existing, request.memberId());
            }
            if (existing == null) {
                throw new GroupException(
                        Errors.UNKNOWN_MEMBER_ID,
                        "instance id " + instanceId.get() + " is unknown in group " + group.groupId);
            }
            if (!existing.memberId.equals(request.memberId())) {
                throw new GroupException(
                        Errors.FENCED_INSTANCE_ID,
                        "instance id " + instanceId.get() + " belongs to member " + existing.memberId + ", not "
                                + request.memberId());
            }
            return existing;
        }
        ConsumerGroupMember member = group.members.get(request.memberId());
        if (member != null) {
            return member;
        }
        if (epoch != HeartbeatRequest.JOIN_EPOCH) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID,
                    "member " + request.memberId() + " is not in group " + group.groupId + ": join again");
        }
        return join(group, request);
    }

    private ConsumerGroupMember join(ConsumerGroup group, HeartbeatRequest request) {
        if (group.members.size() >= config.maxGroupSize()) {
            throw new GroupException(
                    Errors.GROUP_MAX_SIZE_REACHED,
                    "group " + group.groupId + " already has " + config.maxGroupSize()
                            + " members (tributary.coordinator.groups.max-group-size)");
        }
        ConsumerGroupMember member = new ConsumerGroupMember(request.memberId());
        group.add(member);
        group.bump("member " + member.memberId + " joined");
        log.info("group {}: member {} joined", group.groupId, member.memberId);
        return member;
    }

    /** A static member with a new member id takes over the assignment of one that left with epoch -2. */
    ConsumerGroupMember replaceStatic(ConsumerGroup group, ConsumerGroupMember previous, String newMemberId) {
        if (group.members.containsKey(newMemberId)) {
            throw new GroupException(
                    Errors.FENCED_INSTANCE_ID,
                    "member id " + newMemberId + " is already in group " + group.groupId
                            + " under another instance id");
        }
        SortedSet<TopicIdPartition> assignment = new TreeSet<>(previous.assigned);
        SortedSet<TopicIdPartition> target = group.target.getOrDefault(previous.memberId, new TreeSet<>());
        ConsumerGroupMember member = new ConsumerGroupMember(newMemberId);
        member.instanceId = previous.instanceId;
        member.rackId = previous.rackId;
        member.rebalanceTimeoutMs = previous.rebalanceTimeoutMs;
        member.subscribedTopicNames = previous.subscribedTopicNames;
        member.subscribedTopicRegex = previous.subscribedTopicRegex;
        member.regex = previous.regex;
        member.serverAssignor = previous.serverAssignor;
        group.remove(previous);
        group.add(member);
        group.staticMembers.put(member.instanceId, member.memberId);
        group.target.put(member.memberId, target);
        // The previous instance left (it sent -2), so it owns nothing: its assignment is the new one's,
        // owned since epoch 0 (the new member id has committed nothing yet; the old one is gone).
        group.owners.set(member, assignment, Collections.emptySortedSet(), 0);
        log.info(
                "group {}: static member {} replaces {} (instance id {})",
                group.groupId,
                newMemberId,
                previous.memberId,
                member.instanceId);
        return member;
    }

    /**
     * Fences a heartbeat ahead of or behind the member's epoch, except the previous epoch with owned
     * partitions within the current assignment (the answer that moved it on was lost).
     *
     * @throws GroupException FENCED_MEMBER_EPOCH
     */
    static void checkEpoch(ConsumerGroupMember member, HeartbeatRequest request) {
        MemberRules.checkHeartbeatEpoch(
                member.memberId,
                request.memberEpoch(),
                member.memberEpoch,
                member.previousMemberEpoch,
                request.ownedPartitions().isPresent()
                        && member.assigned.containsAll(request.ownedPartitions().get()));
    }

    /** Applies the request's changed fields; returns whether the subscription changed. */
    boolean update(ConsumerGroupMember member, HeartbeatRequest request) {
        boolean changed = false;
        request.rackId().ifPresent(rack -> member.rackId = rack);
        member.clientId = request.clientId();
        member.clientHost = request.clientHost();
        if (request.rebalanceTimeoutMs() != -1) {
            member.rebalanceTimeoutMs = (int) Math.min(
                    request.rebalanceTimeoutMs(), config.maxRebalanceTimeout().toMillis());
        }
        if (request.subscribedTopicNames().isPresent()) {
            List<String> names =
                    new ArrayList<>(new TreeSet<>(request.subscribedTopicNames().get()));
            if (!names.equals(member.subscribedTopicNames)) {
                member.subscribedTopicNames = List.copyOf(names);
                changed = true;
            }
        }
        if (request.subscribedTopicRegex().isPresent()) {
            String regex = request.subscribedTopicRegex().get();
            String normalized = regex.isEmpty() ? null : regex;
            if (!Objects.equals(normalized, member.subscribedTopicRegex)) {
                member.subscribedTopicRegex = normalized;
                member.regex = validator.compile(regex);
                changed = true;
            }
        }
        if (request.serverAssignor().isPresent()) {
            member.serverAssignor = request.serverAssignor().get();
        }
        return changed;
    }
}
