package io.tributary.coordinator.group.classic;

import java.time.Duration;
import java.util.Objects;

/**
 * Bounds and timers of classic groups ({@code tributary.coordinator.groups.classic.*}, and the
 * group-wide {@code max-group-size} / {@code max-groups} / {@code max-rebalance-timeout}).
 *
 * @param minSessionTimeout the shortest session timeout a member may ask for (Kafka's {@code
 *     group.min.session.timeout.ms}, 6 s); shorter is INVALID_SESSION_TIMEOUT
 * @param maxSessionTimeout the longest (Kafka's {@code group.max.session.timeout.ms}, 30 min)
 * @param initialRebalanceDelay how long the first rebalance of an empty group waits for more members
 *     before it completes, extended by as much each time a member joined meanwhile, up to the
 *     rebalance timeout (Kafka's {@code group.initial.rebalance.delay.ms}, 3 s)
 * @param maxRebalanceTimeout a member's rebalance timeout is lowered to this (default 15 min):
 *     bounds how long a JoinGroup or SyncGroup may wait (Kafka has no such cap)
 * @param maxGroupSize most members (and members that still have to confirm their member id) of one
 *     group; one more is GROUP_MAX_SIZE_REACHED (default 1000; Kafka's {@code group.max.size} is
 *     unbounded)
 * @param maxGroups most classic groups held; a join creating one more forgets an empty group
 *     without pending work, or is refused with the retriable COORDINATOR_NOT_AVAILABLE (10,000)
 * @param maxProtocolBytes most bytes of one JoinGroup's protocols (names and metadata together) and
 *     of one member's assignment in the leader's SyncGroup; more is INVALID_REQUEST (64 KiB)
 * @param maxIdLength the longest group, member, instance and protocol name (characters); longer is
 *     INVALID_REQUEST (1000)
 */
public record ClassicGroupConfig(
        Duration minSessionTimeout,
        Duration maxSessionTimeout,
        Duration initialRebalanceDelay,
        Duration maxRebalanceTimeout,
        int maxGroupSize,
        int maxGroups,
        int maxProtocolBytes,
        int maxIdLength) {

    public static final ClassicGroupConfig DEFAULTS = new ClassicGroupConfig(
            Duration.ofSeconds(6),
            Duration.ofMinutes(30),
            Duration.ofSeconds(3),
            Duration.ofMinutes(15),
            1000,
            10_000,
            64 * 1024,
            1000);

    public ClassicGroupConfig {
        Objects.requireNonNull(minSessionTimeout, "minSessionTimeout");
        Objects.requireNonNull(maxSessionTimeout, "maxSessionTimeout");
        Objects.requireNonNull(initialRebalanceDelay, "initialRebalanceDelay");
        Objects.requireNonNull(maxRebalanceTimeout, "maxRebalanceTimeout");
        if (minSessionTimeout.isNegative() || maxSessionTimeout.compareTo(minSessionTimeout) < 0) {
            throw new IllegalArgumentException("need 0 <= minSessionTimeout <= maxSessionTimeout, got "
                    + minSessionTimeout + " and " + maxSessionTimeout);
        }
        if (maxSessionTimeout.toMillis() > Integer.MAX_VALUE || maxRebalanceTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("timeouts must fit Kafka's int32 milliseconds");
        }
        if (initialRebalanceDelay.isNegative() || !maxRebalanceTimeout.isPositive()) {
            throw new IllegalArgumentException("need initialRebalanceDelay >= 0 and maxRebalanceTimeout > 0");
        }
        if (maxGroupSize < 1 || maxGroups < 1 || maxProtocolBytes < 1 || maxIdLength < 1) {
            throw new IllegalArgumentException("classic group bounds must be positive: " + this);
        }
    }

    /** Another initial rebalance delay (tests, and local clusters, as Kafka's quickstart sets 0). */
    public ClassicGroupConfig withInitialRebalanceDelay(Duration delay) {
        return new ClassicGroupConfig(
                minSessionTimeout,
                maxSessionTimeout,
                delay,
                maxRebalanceTimeout,
                maxGroupSize,
                maxGroups,
                maxProtocolBytes,
                maxIdLength);
    }

    /** Another maximum group size (tests). */
    public ClassicGroupConfig withMaxGroupSize(int size) {
        return new ClassicGroupConfig(
                minSessionTimeout,
                maxSessionTimeout,
                initialRebalanceDelay,
                maxRebalanceTimeout,
                size,
                maxGroups,
                maxProtocolBytes,
                maxIdLength);
    }
}
