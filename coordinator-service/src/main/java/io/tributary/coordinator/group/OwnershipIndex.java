package io.tributary.coordinator.group;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which member of one group owns each partition (assigned or pending revocation): the index that
 * reconciliation asks before it gives a partition to a member ({@link Reconciler}), kept exact by
 * being the only way a member's ownership changes ({@link #set}). A partition given to one member
 * while another owns it is a bug, and fails at once.
 *
 * <p>Not thread-safe: used under the {@link GroupCoordinator}'s lock.
 */
final class OwnershipIndex {

    private final String groupId;
    private final Map<TopicIdPartition, String> owners = new HashMap<>();

    OwnershipIndex(String groupId) {
        this.groupId = groupId;
    }

    /** The member id owning a partition, or null. */
    String ownerOf(TopicIdPartition partition) {
        return owners.get(partition);
    }

    /** The index as a map (for checks). */
    Map<TopicIdPartition, String> asMap() {
        return Collections.unmodifiableMap(owners);
    }

    /**
     * Sets what a member owns, keeping the index exact and the member's assignment epochs: a
     * partition it already owned keeps its epoch, a newly owned one gets {@code epochOfNew}.
     *
     * @throws IllegalStateException if a partition is owned by another member
     */
    void set(
            ConsumerGroupMember member,
            SortedSet<TopicIdPartition> assigned,
            SortedSet<TopicIdPartition> pending,
            int epochOfNew) {
        release(member);
        member.assigned = new TreeSet<>(assigned);
        member.pendingRevocation = new TreeSet<>(pending);
        for (TopicIdPartition partition : member.assigned) {
            claim(member, partition);
        }
        for (TopicIdPartition partition : member.pendingRevocation) {
            claim(member, partition);
        }
        member.assignmentEpochs
                .keySet()
                .removeIf(p -> !member.assigned.contains(p) && !member.pendingRevocation.contains(p));
        for (TopicIdPartition partition : union(member.assigned, member.pendingRevocation)) {
            member.assignmentEpochs.putIfAbsent(partition, epochOfNew);
        }
    }

    /** Releases everything a member owns (it is being removed). */
    void clear(ConsumerGroupMember member) {
        set(member, Collections.emptySortedSet(), Collections.emptySortedSet(), 0);
    }

    private void release(ConsumerGroupMember member) {
        for (TopicIdPartition partition : member.assigned) {
            owners.remove(partition, member.memberId);
        }
        for (TopicIdPartition partition : member.pendingRevocation) {
            owners.remove(partition, member.memberId);
        }
    }

    private void claim(ConsumerGroupMember member, TopicIdPartition partition) {
        String previous = owners.putIfAbsent(partition, member.memberId);
        if (previous != null && !previous.equals(member.memberId)) {
            throw new IllegalStateException("group %s: partition %s given to %s while %s owns it"
                    .formatted(groupId, partition, member.memberId, previous));
        }
    }

    static Set<TopicIdPartition> union(Set<TopicIdPartition> a, Set<TopicIdPartition> b) {
        Set<TopicIdPartition> union = new HashSet<>(a);
        union.addAll(b);
        return union;
    }
}
