package io.tributary.coordinator.app;

import io.tributary.coordinator.liveness.LivenessConfig;
import io.tributary.coordinator.metadata.MetadataLimits;
import io.tributary.coordinator.metadata.raft.RaftNodeConfig;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Bounds of the metadata state machine and of broker liveness ({@code tributary.coordinator.metadata.*});
 * each is described on the core record it becomes ({@link MetadataLimits}, {@link LivenessConfig},
 * {@link RaftNodeConfig}).
 *
 * @param heartbeatInterval how often brokers heartbeat and the leader checks sessions
 * @param sessionTimeout a broker silent this long is fenced
 * @param preferredLeaderDelay a broker unfenced this long gets its preferred leaderships back
 * @param snapshotThresholdEntries a snapshot every this many applied Raft entries
 * @param logSegmentSize the Raft log's segment size (closed segments behind the snapshot are deleted)
 * @param electionTimeoutMin the lower bound of the Raft election timeout (the upper is twice it)
 * @param maxCommandSize the largest command accepted
 * @param maxPartitionsPerTopic the most partitions one topic may have
 * @param maxProducerIdsPerBlock the most producer ids one allocation may take
 * @param maxGroupsWithOffsets the most consumer groups that may hold committed offsets
 * @param maxOffsetsPerGroup the most committed offsets (partitions) of one group
 * @param maxOffsetMetadataSize the largest client metadata string of one committed offset
 * @param maxClassicGroups the most classic groups whose generation may be stored
 * @param maxConsumerGroups the most KIP-848 consumer groups that may be stored
 * @param maxScramUsers the most users that may hold SCRAM credentials
 * @param maxAcls the most ACLs that may be stored
 * @param maxQuotaEntities the most entities that may have client quotas
 * @param maxTransactionalIds the most transactional ids that may be stored
 * @param logFlush when a voter counts a Raft log entry as written: {@code fsync} (the default) or
 *     {@code page-cache} (what each may lose: {@link RaftNodeConfig.LogFlush})
 */
@Validated
@ConfigurationProperties("tributary.coordinator.metadata")
public record MetadataProperties(
        @DefaultValue("1s") @NotNull Duration heartbeatInterval,
        @DefaultValue("6s") @NotNull Duration sessionTimeout,
        @DefaultValue("30s") @NotNull Duration preferredLeaderDelay,
        @DefaultValue("10000") @Min(1) long snapshotThresholdEntries,
        @DefaultValue("8MB") @NotNull DataSize logSegmentSize,
        @DefaultValue("150ms") @NotNull Duration electionTimeoutMin,
        @DefaultValue("1MB") @NotNull DataSize maxCommandSize,
        @DefaultValue("10000") @Min(1) @Max(1_000_000) int maxPartitionsPerTopic,
        @DefaultValue("10000") @Min(1) @Max(1_000_000) int maxProducerIdsPerBlock,
        @DefaultValue("10000") @Min(1) @Max(1_000_000) int maxGroupsWithOffsets,
        @DefaultValue("10000") @Min(1) @Max(1_000_000) int maxOffsetsPerGroup,
        @DefaultValue("4KB") @NotNull DataSize maxOffsetMetadataSize,
        @DefaultValue("10000") @Min(1) @Max(1_000_000) int maxClassicGroups,
        @DefaultValue("10000") @Min(1) @Max(1_000_000) int maxConsumerGroups,
        @DefaultValue("10000") @Min(1) @Max(1_000_000) int maxScramUsers,
        @DefaultValue("100000") @Min(1) @Max(1_000_000) int maxAcls,
        @DefaultValue("10000") @Min(1) @Max(1_000_000) int maxQuotaEntities,
        @DefaultValue("100000") @Min(1) @Max(10_000_000) int maxTransactionalIds,
        @DefaultValue("fsync") @NotNull RaftNodeConfig.LogFlush logFlush) {

    LivenessConfig livenessConfig() {
        return new LivenessConfig(heartbeatInterval, sessionTimeout, preferredLeaderDelay);
    }

    MetadataLimits limits() {
        return new MetadataLimits(
                Math.toIntExact(maxCommandSize.toBytes()),
                maxPartitionsPerTopic,
                maxProducerIdsPerBlock,
                maxGroupsWithOffsets,
                maxOffsetsPerGroup,
                Math.toIntExact(maxOffsetMetadataSize.toBytes()),
                maxClassicGroups,
                maxConsumerGroups,
                maxScramUsers,
                maxAcls,
                maxQuotaEntities,
                maxTransactionalIds);
    }
}
