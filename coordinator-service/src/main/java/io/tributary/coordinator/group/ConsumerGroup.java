package io.tributary.coordinator.group;

import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
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
}
