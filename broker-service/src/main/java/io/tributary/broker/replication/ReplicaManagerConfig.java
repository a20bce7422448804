package io.tributary.broker.replication;

import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.ProducerStateConfig;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What the replica manager needs to know of its broker.
 *
 * @param brokerId this broker's id
 * @param dataDir where partition directories ({@code <topic>-<partition>}) live
 * @param defaultLogConfig the broker's default topic configs; a topic's own configs override them
 * @param defaultMinInsyncReplicas {@code min.insync.replicas} of topics that do not set it
 * @param producerState bounds of the idempotent producers' state
 */
public record ReplicaManagerConfig(
        int brokerId,
        Path dataDir,
        LogConfig defaultLogConfig,
        int defaultMinInsyncReplicas,
        ProducerStateConfig producerState) {

    public ReplicaManagerConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(defaultLogConfig, "defaultLogConfig");
        Objects.requireNonNull(producerState, "producerState");
        if (brokerId < 0) {
            throw new IllegalArgumentException("negative broker id " + brokerId);
        }
        if (defaultMinInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1: " + defaultMinInsyncReplicas);
        }
    }
}
