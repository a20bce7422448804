package io.tributary.coordinator.group;

import java.time.Duration;
import java.util.Objects;

/**
 * Bounds of the consumer-group state machine ({@code tributary.coordinator.groups.*}).
 *
 * @param sessionTimeout a member not heard from for longer than this is removed and its partitions
 *     reassigned (default 45 s, Kafka's {@code group.consumer.session.timeout.ms})
 * @param heartbeatInterval how often members are told to heartbeat (default 5 s, Kafka's {@code
 *     group.consumer.heartbeat.interval.ms}); shorter than the session timeout
 * @param maxRebalanceTimeout the longest rebalance timeout a member may ask for; a larger {@code
 *     RebalanceTimeoutMs} is lowered to it (default 15 min; the client sends its {@code
 *     max.poll.interval.ms}, 5 min by default)
 * @param maxGroupSize the most members one group may have; one more is refused with {@code
 *     GROUP_MAX_SIZE_REACHED} (default 1000)
 * @param maxGroups the most groups held in memory; a join that would create one more forgets a group
 *     without members (its offsets stay), or, when every group has members, is refused with the
 *     retriable {@code COORDINATOR_NOT_AVAILABLE} (default 10000)
 * @param maxMetadataBytes the longest committed-offset metadata string, in UTF-8 bytes; longer is
 *     {@code OFFSET_METADATA_TOO_LARGE} (default 4096, Kafka's {@code offset.metadata.max.bytes})
 * @param maxRegexLength the longest {@code SubscribedTopicRegex}, in characters (default 1000);
 *     longer is {@code INVALID_REGULAR_EXPRESSION}
 * @param maxIdLength the longest group id, member id, instance id and rack id, in characters
 *     (default 1000); longer is {@code INVALID_REQUEST}
 * @param maxSubscribedTopics the most topic names one member may subscribe to by name (default
 *     10000); more is {@code INVALID_REQUEST}
 * @param defaultAssignor the server assignor of a group whose members name none (default {@code
 *     uniform})
 */
public record GroupConfig(
        Duration sessionTimeout,
        Duration heartbeatInterval,
        Duration maxRebalanceTimeout,
        int maxGroupSize,
        int maxGroups,
        int maxMetadataBytes,
        int maxRegexLength,
        int maxIdLength,
        int maxSubscribedTopics,
        String defaultAssignor) {

    public static final GroupConfig DEFAULTS = new GroupConfig(
            Duration.ofSeconds(45),
            Duration.ofSeconds(5),
            Duration.ofMinutes(15),
            1000,
            10_000,
            4096,
            1000,
            1000,
            10_000,
            UniformAssignor.NAME);

    public GroupConfig {
        Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(maxRebalanceTimeout, "maxRebalanceTimeout");
        Objects.requireNonNull(defaultAssignor, "defaultAssignor");
        if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
            throw new IllegalArgumentException("heartbeatInterval must be positive");
        }
        if (sessionTimeout.compareTo(heartbeatInterval) <= 0) {
            throw new IllegalArgumentException("sessionTimeout (%s) must be longer than heartbeatInterval (%s)"
                    .formatted(sessionTimeout, heartbeatInterval));
        }
        if (sessionTimeout.toMillis() > Integer.MAX_VALUE || maxRebalanceTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("timeouts must fit Kafka's int32 milliseconds");
        }
        if (maxRebalanceTimeout.isNegative() || maxRebalanceTimeout.isZero()) {
            throw new IllegalArgumentException("maxRebalanceTimeout must be positive");
        }
        if (maxGroupSize < 1
                || maxGroups < 1
                || maxMetadataBytes < 0
                || maxRegexLength < 1
                || maxIdLength < 1
                || maxSubscribedTopics < 1) {
            throw new IllegalArgumentException("group bounds must be positive: " + this);
        }
        if (!Assignors.NAMES.contains(defaultAssignor)) {
            throw new IllegalArgumentException(
                    "defaultAssignor must be one of " + Assignors.NAMES + ", got '" + defaultAssignor + "'");
        }
    }

    /** Another session timeout (tests). */
    public GroupConfig withSessionTimeout(Duration timeout) {
        return new GroupConfig(
                timeout,
                heartbeatInterval,
                maxRebalanceTimeout,
                maxGroupSize,
                maxGroups,
                maxMetadataBytes,
                maxRegexLength,
                maxIdLength,
                maxSubscribedTopics,
                defaultAssignor);
    }

    /** Another maximum group size (tests). */
    public GroupConfig withMaxGroupSize(int size) {
        return new GroupConfig(
                sessionTimeout,
                heartbeatInterval,
                maxRebalanceTimeout,
                size,
                maxGroups,
                maxMetadataBytes,
                maxRegexLength,
                maxIdLength,
                maxSubscribedTopics,
                defaultAssignor);
    }
}
