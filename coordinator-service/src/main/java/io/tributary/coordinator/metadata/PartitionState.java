package io.tributary.coordinator.metadata;

import java.util.List;

/**
 * The replicated state of one partition.
 *
 * <p>Invariants (checked on construction): replicas are distinct and non-empty; the ISR is a
 * non-empty subset of the replicas, in replica order; the leader is {@link #NO_LEADER} or a member
 * of the ISR; epochs are 0 or more. The leader epoch grows by one on every leader change (including
 * to and from {@link #NO_LEADER}); the partition epoch grows by one on every change of leader or ISR.
 *
 * @param replicas the assigned replicas; the first is the preferred leader
 * @param leader the leader's broker id, or {@link #NO_LEADER} when the partition is offline
 * @param leaderEpoch the leader epoch
 * @param isr the in-sync replicas
 * @param partitionEpoch the partition epoch
 */
public record PartitionState(
        List<Integer> replicas, int leader, int leaderEpoch, List<Integer> isr, int partitionEpoch) {

    /** The leader of an offline partition (Kafka's -1). */
    public static final int NO_LEADER = -1;

    public PartitionState {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        if (replicas.isEmpty() || replicas.stream().distinct().count() != replicas.size()) {
            throw new IllegalStateException("replicas must be distinct and non-empty: " + replicas);
        }
        if (isr.isEmpty()
                || !replicas.containsAll(isr)
                || isr.stream().distinct().count() != isr.size()) {
            throw new IllegalStateException("ISR " + isr + " must be a non-empty subset of replicas " + replicas);
        }
        if (leader != NO_LEADER && !isr.contains(leader)) {
            throw new IllegalStateException("leader " + leader + " is not in the ISR " + isr);
        }
        if (leaderEpoch < 0 || partitionEpoch < 0) {
            throw new IllegalStateException("negative epoch");
        }
    }

    /** The preferred leader: the first replica. */
    public int preferredLeader() {
        return replicas.getFirst();
    }

    /** Whether the partition has no leader. */
    public boolean offline() {
        return leader == NO_LEADER;
    }

    /**
     * The state after a change of leader and/or ISR: the leader epoch grows if the leader changed,
     * the partition epoch grows if anything changed; {@code this} if nothing did. The ISR is put in
     * replica order.
     */
    PartitionState change(int newLeader, List<Integer> newIsr) {
        List<Integer> ordered = replicas.stream().filter(newIsr::contains).toList();
        if (ordered.size() != newIsr.size()) {
            throw new IllegalStateException("ISR " + newIsr + " is not a subset of replicas " + replicas);
        }
        boolean leaderChanged = newLeader != leader;
        if (!leaderChanged && ordered.equals(isr)) {
            return this;
        }
        return new PartitionState(
                replicas, newLeader, leaderChanged ? leaderEpoch + 1 : leaderEpoch, ordered, partitionEpoch + 1);
    }
}
