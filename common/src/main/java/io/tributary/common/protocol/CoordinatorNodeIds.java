package io.tributary.common.protocol;

/**
 * The node ids under which FindCoordinator names a group coordinator, kept apart from broker ids.
 *
 * <p><b>Why a reserved range.</b> kafka-clients remembers one connection per node id. Its consumer
 * addresses a group coordinator as {@code Integer.MAX_VALUE - nodeId}, but its AdminClient connects
 * to the coordinator under the node id FindCoordinator answers, as is. If a coordinator answered its
 * coordinator id (0, 1, 2 ...), the AdminClient would reuse its connection to the broker with that
 * id and send group requests (DescribeGroups, OffsetFetch ...) to a broker, which does not serve
 * them ("The node does not support DESCRIBE_GROUPS"). So coordinator {@code i} is node
 * {@link #BASE}{@code + i}, and broker ids are at most {@link #MAX_BROKER_ID} (brokers refuse a
 * larger {@code tributary.broker.id}, the coordinators refuse to register one).
 *
 * <p>Thread-safety: constants and pure functions only.
 */
public final class CoordinatorNodeIds {

    /** Coordinator {@code i} is Kafka node {@code BASE + i}. */
    public static final int BASE = 1_000_000_000;

    /** The largest broker id: broker ids are {@code 0..MAX_BROKER_ID}, below every coordinator node id. */
    public static final int MAX_BROKER_ID = BASE - 1;

    /** The largest coordinator id that still maps to a node id (far more voters than a Raft group has). */
    public static final int MAX_COORDINATOR_ID = Integer.MAX_VALUE - BASE;

    private CoordinatorNodeIds() {}

    /**
     * The Kafka node id FindCoordinator answers for a coordinator.
     *
     * @param coordinatorId the coordinator's id (its index among the Raft voters), {@code 0..MAX_COORDINATOR_ID}
     * @return {@code BASE + coordinatorId}
     */
    public static int nodeId(int coordinatorId) {
        if (coordinatorId < 0 || coordinatorId > MAX_COORDINATOR_ID) {
            throw new IllegalArgumentException(
                    "a coordinator id is 0.." + MAX_COORDINATOR_ID + ", got " + coordinatorId);
        }
        return BASE + coordinatorId;
    }
}
