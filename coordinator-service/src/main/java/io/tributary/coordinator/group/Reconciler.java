package io.tributary.coordinator.group;

import java.util.Collections;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Moves one member towards its target assignment on its heartbeat (Kafka's {@code
 * CurrentAssignmentBuilder}), and why a partition never has two owners:
 *
 * <ul>
 *   <li>assigned partitions no longer in its target become pending revocation, and the member stays
 *       at its epoch ({@link MemberState#UNREVOKED_PARTITIONS}) until a heartbeat at that epoch no
 *       longer lists them in {@code TopicPartitions}; only then are they released;
 *   <li>a target partition is added to {@code assigned} only if no other member owns it (assigned
 *       or pending revocation, {@link OwnershipIndex}); otherwise the member waits for it at the
 *       target epoch ({@link MemberState#UNRELEASED_PARTITIONS}).
 * </ul>
 *
 * So a partition moves from A to B only after A's heartbeat said it no longer owns it, or after A
 * was removed (left, session timeout, rebalance timeout: A's commits are then refused, its member
 * id being unknown). A member revoking gets a rebalance deadline (now plus its rebalance timeout)
 * each time what it must revoke changes.
 *
 * <p>Stateless; used under the {@link GroupCoordinator}'s lock.
 */
final class Reconciler {

    private Reconciler() {}

    /**
     * Reconciles a member on its heartbeat.
     *
     * @param owned what the heartbeat says the member owns (empty: not sent, unchanged)
     * @param ackAllowed whether the heartbeat may acknowledge a revocation (it is at the member's
     *     epoch, or a join)
     */
    static void reconcile(
            ConsumerGroup group,
            ConsumerGroupMember member,
            Optional<SortedSet<TopicIdPartition>> owned,
            boolean ackAllowed,
            long nowMs) {
        MemberState stateBefore = member.state;
        SortedSet<TopicIdPartition> pendingBefore = new TreeSet<>(member.pendingRevocation);
        switch (member.state) {
            case STABLE -> {
                if (member.memberEpoch != group.assignmentEpoch) {
                    computeNext(group, member, owned);
                }
            }
            case UNREVOKED_PARTITIONS -> {
                if (ackAllowed && !ownsAny(owned, member.pendingRevocation)) {
                    group.owners.set(member, member.assigned, Collections.emptySortedSet(), member.memberEpoch);
                    computeNext(group, member, owned);
                }
            }
            case UNRELEASED_PARTITIONS -> computeNext(group, member, owned);
        }
        if (member.state == MemberState.UNREVOKED_PARTITIONS) {
            if (stateBefore != MemberState.UNREVOKED_PARTITIONS || !pendingBefore.equals(member.pendingRevocation)) {
                member.rebalanceDeadlineMs = nowMs + member.rebalanceTimeoutMs;
            }
        } else {
            member.rebalanceDeadlineMs = Long.MAX_VALUE;
        }
    }

    /**
     * What a KIP-848 heartbeat's {@code TopicPartitions} can be taken to say about what the member
     * owns ({@code reported}; empty: not sent). A list that lacks a partition the member was given
     * and still keeps ({@code assigned}) is an acknowledgement of an older assignment than the one
     * it was last sent: the Kafka consumer acknowledges the part of an assignment it could resolve
     * to topic names (a topic the coordinator knows before the client's metadata does) or what it
     * had reconciled when the newer assignment arrived, and goes on to take the rest. Such a list
     * says nothing about what the member will own next, so it is read as "not sent" (it still owns
     * what it must revoke); the member acknowledges again once it has caught up. Without this, the
     * coordinator released partitions a member was about to start consuming, and a second member
     * consumed them at the same time.
     */
    static Optional<SortedSet<TopicIdPartition>> trustedOwned(
            Optional<SortedSet<TopicIdPartition>> reported, Set<TopicIdPartition> assigned) {
        if (reported.isPresent() && !reported.get().containsAll(assigned)) {
            return Optional.empty();
        }
        return reported;
    }

    private static void computeNext(
            ConsumerGroup group, ConsumerGroupMember member, Optional<SortedSet<TopicIdPartition>> owned) {
        SortedSet<TopicIdPartition> target = group.target.getOrDefault(member.memberId, Collections.emptySortedSet());
        SortedSet<TopicIdPartition> kept = new TreeSet<>(member.assigned);
        kept.retainAll(target);
        SortedSet<TopicIdPartition> revoke = new TreeSet<>(member.assigned);
        revoke.removeAll(kept);
        SortedSet<TopicIdPartition> toAssign = new TreeSet<>(target);
        toAssign.removeAll(kept);
        boolean unreleased = toAssign.removeIf(partition -> {
            String owner = group.owners.ownerOf(partition);
            return owner != null && !owner.equals(member.memberId);
        });
        if (!revoke.isEmpty() && ownsAny(owned, revoke)) {
            group.owners.set(member, kept, revoke, member.memberEpoch);
            member.state = MemberState.UNREVOKED_PARTITIONS;
            return;
        }
        SortedSet<TopicIdPartition> assigned = new TreeSet<>(kept);
        assigned.addAll(toAssign);
        group.owners.set(member, assigned, Collections.emptySortedSet(), group.assignmentEpoch);
        member.state = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
        member.setEpoch(group.assignmentEpoch);
    }

    private static boolean ownsAny(Optional<SortedSet<TopicIdPartition>> owned, Set<TopicIdPartition> partitions) {
        if (owned.isEmpty()) {
            return true;
        }
        for (TopicIdPartition partition : partitions) {
            if (owned.get().contains(partition)) {
                return true;
            }
        }
        return false;
    }
}
