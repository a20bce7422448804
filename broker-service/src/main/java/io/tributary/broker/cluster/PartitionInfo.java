package io.tributary.broker.cluster;

import java.util.List;

/**
 * One partition's placement and leadership, as the coordinators committed it.
 *
 * @param partition the partition index
 * @param replicas the brokers holding a replica, preferred leader first
 * @param leader the leader's broker id, or {@link #NO_LEADER} while the partition is offline
 * @param leaderEpoch bumped on every leader change
 * @param isr the in-sync replicas
 * @param partitionEpoch bumped on every change of this partition (leader, ISR, replicas)
 */
public record PartitionInfo(
        int partition, List<Integer> replicas, int leader, int leaderEpoch, List<Integer> isr, int partitionEpoch) {

    /** The leader of an offline partition. */
    public static final int NO_LEADER = -1;

    public PartitionInfo {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
    }

    public boolean hasLeader() {
        return leader != NO_LEADER;
    }
}
