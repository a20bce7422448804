package io.tributary.coordinator.group.classic;

/**
 * The states of a classic group, with the names Kafka's DescribeGroups and ListGroups report.
 *
 * <pre>
 *   Empty --join--> PreparingRebalance --all joined / rebalance timeout--> CompletingRebalance
 *     ^                 ^      |                                              |  leader's SyncGroup
 *     |                 |      +--no member left------------> Empty           v  stored
 *     +--last member    +--join with new protocols, leave, expiry-------- Stable
 *        leaves/expires
 * </pre>
 */
public enum ClassicGroupState {
    /** No members; the group may still hold committed offsets. */
    EMPTY("Empty"),
    /** A rebalance started: the coordinator waits for the members' JoinGroup. */
    PREPARING_REBALANCE("PreparingRebalance"),
    /** The join barrier completed: the coordinator waits for the leader's assignment (SyncGroup). */
    COMPLETING_REBALANCE("CompletingRebalance"),
    /** The generation's assignment was handed out; members heartbeat. */
    STABLE("Stable");

    private final String kafkaName;

    ClassicGroupState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /** The state's name in Kafka's DescribeGroups and ListGroups. */
    public String kafkaName() {
        return kafkaName;
    }
}
