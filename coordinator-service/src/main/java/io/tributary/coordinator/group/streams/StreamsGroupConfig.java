package io.tributary.coordinator.group.streams;

import java.time.Duration;
import java.util.Objects;

/**
 * What streams groups add to the bounds they share with the other group types ({@code
 * tributary.coordinator.groups.*}: session timeout, heartbeat interval, rebalance timeout cap, group
 * size, groups in memory, id lengths): {@code tributary.coordinator.groups.streams.*}.
 *
 * @param standbyReplicas standby copies of each task (Kafka's {@code
 *     group.streams.num.standby.replicas}, default 0)
 * @param taskOffsetInterval how often members report their tasks' changelog offsets (Kafka's {@code
 *     group.streams.task.offset.interval.ms}, default 60 s)
 * @param acceptableRecoveryLag the changelog lag under which a member counts as caught up (Kafka's
 *     {@code group.streams.acceptable.recovery.lag}, default 10,000; told to members, not used by
 *     this coordinator's assignor, which assigns no warm-up tasks)
 * @param replicationFactor replicas of an internal topic whose topology leaves it to the broker
 *     (Kafka's {@code default.replication.factor}, default 1)
 * @param initialRebalanceDelay how long a new group's first target assignment waits for more members
 *     (Kafka's {@code group.streams.initial.rebalance.delay.ms}, default 3 s; 0: none); members
 *     are told {@code ASSIGNMENT_DELAYED} meanwhile
 * @param maxTopologyTopics the most topic names (source, repartition, changelog) one topology may
 *     name, counted over its subtopologies (default 10,000); more is {@code
 *     STREAMS_INVALID_TOPOLOGY}
 */
public record StreamsGroupConfig(
        int standbyReplicas,
        Duration taskOffsetInterval,
        long acceptableRecoveryLag,
        short replicationFactor,
        Duration initialRebalanceDelay,
        int maxTopologyTopics) {

    public static final StreamsGroupConfig DEFAULTS =
            new StreamsGroupConfig(0, Duration.ofSeconds(60), 10_000, (short) 1, Duration.ofSeconds(3), 10_000);

    /** This configuration with another initial rebalance delay. */
    public StreamsGroupConfig withInitialRebalanceDelay(Duration delay) {
        return new StreamsGroupConfig(
                standbyReplicas,
                taskOffsetInterval,
                acceptableRecoveryLag,
                replicationFactor,
                delay,
                maxTopologyTopics);
    }

    public StreamsGroupConfig {
        Objects.requireNonNull(taskOffsetInterval, "taskOffsetInterval");
        Objects.requireNonNull(initialRebalanceDelay, "initialRebalanceDelay");
        if (initialRebalanceDelay.isNegative()) {
            throw new IllegalArgumentException("initialRebalanceDelay must not be negative");
        }
        if (standbyReplicas < 0) {
            throw new IllegalArgumentException("standbyReplicas must be 0 or more, got " + standbyReplicas);
        }
        if (taskOffsetInterval.isNegative()
                || taskOffsetInterval.isZero()
                || taskOffsetInterval.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("taskOffsetInterval must be positive and fit int32 ms");
        }
        if (acceptableRecoveryLag < 0 || replicationFactor < 1 || maxTopologyTopics < 1) {
            throw new IllegalArgumentException("streams group bounds must be positive: " + this);
        }
    }
}
