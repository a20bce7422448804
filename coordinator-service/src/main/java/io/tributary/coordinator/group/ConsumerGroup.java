package io.tributary.coordinator.group;

import io.tributary.coordinator.group.ConsumerGroupRecord.GroupMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberAssignment;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberMetadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One KIP-848 consumer group as the coordinator holds it: the group epoch, the target assignment
 * and its epoch, the assignor, the members (by member id, and static ones by instance id) and who
 * owns which partition ({@link OwnershipIndex}). Mutable; changed only by the {@link
 * GroupCoordinator} (and the classes it delegates to) under its lock.
 */
final class ConsumerGroup {

    private static final Logger log = LoggerFactory.getLogger(ConsumerGroup.class);

    final String groupId;
    int groupEpoch;
    int assignmentEpoch;
    String assignor;
    /** Members by id, in id order (every result is deterministic). */
    final Map<String, ConsumerGroupMember> members = new TreeMap<>();
    /** Instance id to member id, for static members. */
    final Map<String, String> staticMembers = new HashMap<>();
    /** The target assignment: member id to the partitions it should own at {@link #assignmentEpoch}. */
    Map<String, SortedSet<TopicIdPartition>> target = new TreeMap<>();
    /** Every partition some member owns (assigned or pending revocation), and which member. */
    final OwnershipIndex owners;
    /** The subscribed topics the current target assignment was computed from. */
    SortedMap<String, TopicView.TopicInfo> subscribedTopics = new TreeMap<>();
    /** {@link StoredConsumerGroup#metadataHash} of {@link #subscribedTopics}. */
    long metadataHash = StoredConsumerGroup.metadataHash(subscribedTopics);

    // What was last handed to the store, to write only what changed ({@link ConsumerGroupRecords}).

    /** The group record last stored; null: nothing of the group was ever stored. */
    GroupMetadata storedGroup;
    /** The target epoch last stored. */
    int storedAssignmentEpoch = Integer.MIN_VALUE;

    final Map<String, MemberMetadata> storedMetadata = new HashMap<>();
    final Map<String, MemberAssignment> storedAssignments = new HashMap<>();
    final Map<String, SortedSet<TopicIdPartition>> storedTarget = new HashMap<>();
    /** Members whose records may have changed since the last store. */
    final Set<String> touched = new TreeSet<>();
    /** Members removed since the last store. */
    final Set<String> removed = new TreeSet<>();
    /** Whether the target may have changed since the last store. */
    boolean targetChanged;

    ConsumerGroup(String groupId, int initialEpoch, String assignor) {
        this.groupId = groupId;
        this.groupEpoch = initialEpoch;
        this.assignmentEpoch = initialEpoch;
        this.assignor = assignor;
        this.owners = new OwnershipIndex(groupId);
    }

    /** Moves the group epoch on: the target assignment is to be computed again. */
    void bump(String why) {
        groupEpoch++;
        log.debug("group {} epoch {}: {}", groupId, groupEpoch, why);
    }

    /** Removes a member: what it owns is released, its instance id and target forgotten. */
    void remove(ConsumerGroupMember member) {
        owners.clear(member);
        members.remove(member.memberId);
        if (member.instanceId != null) {
            staticMembers.remove(member.instanceId, member.memberId);
        }
        target.remove(member.memberId);
        touched.remove(member.memberId);
        removed.add(member.memberId);
        targetChanged = true;
    }

    /** Adds a member (joined, or a static member's new member id). */
    void add(ConsumerGroupMember member) {
        members.put(member.memberId, member);
        removed.remove(member.memberId);
        touched.add(member.memberId);
    }

    /** Marks a member whose records may have changed. */
    void touch(ConsumerGroupMember member) {
        touched.add(member.memberId);
    }

    /** Sets the subscribed topics the target is computed from. */
    void subscribedTopics(SortedMap<String, TopicView.TopicInfo> topics) {
        subscribedTopics = topics;
        metadataHash = StoredConsumerGroup.metadataHash(topics);
    }

    /** The group's state as ConsumerGroupDescribe names it. */
    String state() {
        if (members.isEmpty()) {
            return GroupDescription.EMPTY;
        }
        if (groupEpoch > assignmentEpoch) {
            return GroupDescription.ASSIGNING;
        }
        for (ConsumerGroupMember member : members.values()) {
            if (member.state != MemberState.STABLE || member.memberEpoch != assignmentEpoch) {
                return GroupDescription.RECONCILING;
            }
        }
        return GroupDescription.STABLE;
    }

    /** The group as ConsumerGroupDescribe shows it. */
    GroupDescription describe() {
        List<GroupDescription.Member> described = new ArrayList<>();
        for (ConsumerGroupMember member : members.values()) {
            described.add(new GroupDescription.Member(
                    member.memberId,
                    Optional.ofNullable(member.instanceId),
                    Optional.ofNullable(member.rackId),
                    member.memberEpoch,
                    member.state,
                    member.clientId,
                    member.clientHost,
                    member.subscribedTopicNames,
                    Optional.ofNullable(member.subscribedTopicRegex),
                    member.assigned,
                    member.pendingRevocation,
                    target.getOrDefault(member.memberId, Collections.emptySortedSet()),
                    Optional.ofNullable(member.classic)));
        }
        return new GroupDescription(groupId, state(), groupEpoch, assignmentEpoch, assignor, described);
    }

    /**
     * Checks the ownership index against the members (simulation and tests): every owned partition
     * has exactly one owner, and the index says who.
     *
     * @throws IllegalStateException if not
     */
    void checkOwnership() {
        Map<TopicIdPartition, String> seen = new HashMap<>();
        for (ConsumerGroupMember member : members.values()) {
            for (TopicIdPartition partition : OwnershipIndex.union(member.assigned, member.pendingRevocation)) {
                String previous = seen.put(partition, member.memberId);
                if (previous != null) {
                    throw new IllegalStateException(
                            "group %s: %s owned by %s and %s".formatted(groupId, partition, previous, member.memberId));
                }
            }
        }
        if (!seen.equals(owners.asMap())) {
            throw new IllegalStateException(
                    "group %s: owner index %s differs from members %s".formatted(groupId, owners.asMap(), seen));
        }
    }
}
