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
 * @param rollFlushQueue rolled segments' flushes that may wait for the broker's {@link
 *     io.tributary.broker.log.RollFlusher} thread; beyond it, a roll flushes on the appending thread
 */
public record ReplicaManagerConfig(
        int brokerId,
        Path dataDir,
        LogConfig defaultLogConfig,
        int defaultMinInsyncReplicas,
        ProducerStateConfig producerState,
        int rollFlushQueue) {

    /** With the default {@code rollFlushQueue}, {@link io.tributary.broker.log.RollFlusher#DEFAULT_QUEUE_CAPACITY}. */
    public ReplicaManagerConfig(
            int brokerId,
            Path dataDir,
            LogConfig defaultLogConfig,
            int defaultMinInsyncReplicas,
            ProducerStateConfig producerState) {
        this(
                brokerId,
                dataDir,
                defaultLogConfig,
                defaultMinInsyncReplicas,
                producerState,
                io.tributary.broker.log.RollFlusher.DEFAULT_QUEUE_CAPACITY);
    }

    public ReplicaManagerConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(defaultLogConfig, "defaultLogConfig");
        Objects.requireNonNull(producerState, "producerState");
        if (rollFlushQueue < 1) {
            throw new IllegalArgumentException("rollFlushQueue must be at least 1: " + rollFlushQueue);
        }
        if (brokerId < 0) {
            throw new IllegalArgumentException("negative broker id " + brokerId);
        }
        if (defaultMinInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1: " + defaultMinInsyncReplicas);
        }
    }
}
