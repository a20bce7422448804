package io.tributary.coordinator.app;

import io.tributary.coordinator.group.ConsumerMigrationPolicy;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.OffsetRetention;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.streams.StreamsGroupConfig;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Consumer groups ({@code tributary.coordinator.groups.*}); each bound is described on {@link
 * GroupConfig}, which this becomes.
 *
 * @param sessionTimeout a member silent this long is removed
 * @param heartbeatInterval how often members heartbeat
 * @param maxRebalanceTimeout the cap on a member's rebalance timeout
 * @param maxGroupSize the most members of one group
 * @param maxGroups the most groups held in memory
 * @param maxMetadataSize the longest committed-offset metadata
 * @param maxRegexLength the longest subscription regular expression
 * @param maxIdLength the longest group, member, instance and rack id
 * @param maxSubscribedTopics the most topic names one member subscribes to
 * @param defaultAssignor the assignor of groups whose members name none ({@code uniform} or {@code range})
 * @param consumerMigrationPolicy whether a group with members moves between the classic and the
 *     KIP-848 protocol: {@code disabled}, {@code downgrade}, {@code upgrade} or {@code bidirectional}
 *     (Kafka's {@code group.consumer.migration.policy}; see {@link ConsumerMigrationPolicy})
 * @param tickInterval how often the leader checks session and rebalance timeouts and topic changes
 * @param offsetsRetention how long committed offsets are kept once they may expire (Kafka's {@code
 *     offsets.retention.minutes}; see {@link OffsetRetention})
 * @param offsetsRetentionCheckInterval how often the leader looks for expired offsets (Kafka's
 *     {@code offsets.retention.check.interval.ms})
 * @param classic the classic protocol's own settings ({@code tributary.coordinator.groups.classic.*})
 * @param streams streams groups' own settings ({@code tributary.coordinator.groups.streams.*})
 */
@Validated
@ConfigurationProperties("tributary.coordinator.groups")
public record GroupProperties(
        @DefaultValue("45s") @NotNull Duration sessionTimeout,
        @DefaultValue("5s") @NotNull Duration heartbeatInterval,
        @DefaultValue("15m") @NotNull Duration maxRebalanceTimeout,
        @DefaultValue("1000") @Min(1) @Max(1_000_000) int maxGroupSize,
        @DefaultValue("10000") @Min(1) @Max(10_000_000) int maxGroups,
        @DefaultValue("4KB") @NotNull DataSize maxMetadataSize,
        @DefaultValue("1000") @Min(1) @Max(100_000) int maxRegexLength,
        @DefaultValue("1000") @Min(1) @Max(100_000) int maxIdLength,
        @DefaultValue("10000") @Min(1) @Max(1_000_000) int maxSubscribedTopics,

        @DefaultValue("uniform") @NotNull @Pattern(regexp = "uniform|range")
        String defaultAssignor,

        @DefaultValue("bidirectional") @NotNull @Pattern(regexp = "disabled|downgrade|upgrade|bidirectional")
        String consumerMigrationPolicy,

        @DefaultValue("500ms") @NotNull Duration tickInterval,
        @DefaultValue("7d") @NotNull Duration offsetsRetention,
        @DefaultValue("10m") @NotNull Duration offsetsRetentionCheckInterval,
        @DefaultValue @NotNull @Valid Classic classic,
        @DefaultValue @NotNull @Valid Streams streams) {

    public GroupProperties {
        requirePositive("offsetsRetention", offsetsRetention);
        requirePositive("offsetsRetentionCheckInterval", offsetsRetentionCheckInterval);
    }

    private static void requirePositive(String name, Duration value) {
        if (value != null && (value.isNegative() || value.isZero())) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    /**
     * The classic protocol's settings; each is described on {@link ClassicGroupConfig}.
     *
     * @param minSessionTimeout the shortest session timeout a member may ask for (Kafka's {@code
     *     group.min.session.timeout.ms})
     * @param maxSessionTimeout the longest (Kafka's {@code group.max.session.timeout.ms})
     * @param initialRebalanceDelay how long an empty group's first rebalance waits for more members
     *     (Kafka's {@code group.initial.rebalance.delay.ms}; {@code bin/tributary up} sets 0, as
     *     Kafka's quickstart configuration does)
     * @param maxProtocolSize the largest protocols of one JoinGroup and assignment of one member
     */
    public record Classic(
            @DefaultValue("6s") @NotNull Duration minSessionTimeout,
            @DefaultValue("30m") @NotNull Duration maxSessionTimeout,
            @DefaultValue("3s") @NotNull Duration initialRebalanceDelay,
            @DefaultValue("64KB") @NotNull DataSize maxProtocolSize) {}

    OffsetRetention toRetention() {
        return new OffsetRetention(offsetsRetention);
    }

    /**
     * Streams groups' settings (KIP-1071); each is described on {@link StreamsGroupConfig}.
     *
     * @param standbyReplicas standby copies of each task (Kafka's {@code group.streams.num.standby.replicas})
     * @param taskOffsetInterval how often members report their tasks' changelog offsets
     * @param acceptableRecoveryLag the lag members are told counts as caught up
     * @param replicationFactor replicas of an internal topic whose topology leaves it to the cluster
     * @param initialRebalanceDelay how long a new group's first assignment waits for more members
     *     (Kafka's {@code group.streams.initial.rebalance.delay.ms})
     * @param maxTopologyTopics the most topic names one topology may name
     */
    public record Streams(
            @DefaultValue("0") @Min(0) @Max(100) int standbyReplicas,
            @DefaultValue("60s") @NotNull Duration taskOffsetInterval,
            @DefaultValue("10000") @Min(0) long acceptableRecoveryLag,
            @DefaultValue("1") @Min(1) @Max(Short.MAX_VALUE) int replicationFactor,
            @DefaultValue("3s") @NotNull Duration initialRebalanceDelay,
            @DefaultValue("10000") @Min(1) @Max(1_000_000) int maxTopologyTopics) {}

    StreamsGroupConfig toStreamsConfig() {
        return new StreamsGroupConfig(
                streams.standbyReplicas(),
                streams.taskOffsetInterval(),
                streams.acceptableRecoveryLag(),
                (short) streams.replicationFactor(),
                streams.initialRebalanceDelay(),
                streams.maxTopologyTopics());
    }

    GroupConfig toConfig() {
        return new GroupConfig(
                sessionTimeout,
                heartbeatInterval,
                maxRebalanceTimeout,
                maxGroupSize,
                maxGroups,
                Math.toIntExact(maxMetadataSize.toBytes()),
                maxRegexLength,
                maxIdLength,
                maxSubscribedTopics,
                defaultAssignor);
    }

    ConsumerMigrationPolicy toMigrationPolicy() {
        return ConsumerMigrationPolicy.of(consumerMigrationPolicy);
    }

    ClassicGroupConfig toClassicConfig() {
        return new ClassicGroupConfig(
                classic.minSessionTimeout(),
                classic.maxSessionTimeout(),
                classic.initialRebalanceDelay(),
                maxRebalanceTimeout,
                maxGroupSize,
                maxGroups,
                Math.toIntExact(classic.maxProtocolSize().toBytes()),
                maxIdLength);
    }
}
