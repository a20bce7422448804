package io.tributary.broker.app;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The replica manager's background work and the data path's waiting bounds ({@code
 * tributary.broker.replica.*}).
 *
 * @param retentionCheckInterval how often retention runs over every partition (Kafka's {@code
 *     log.retention.check.interval.ms}, 5 minutes)
 * @param retentionSegmentsPerRun at most this many segments deleted per partition per run, so a
 *     run stays short; a backlog is worked off over several runs
 * @param flushCheckInterval how often partitions with {@code flush.ms} are checked for a due fsync
 *     (Kafka's {@code log.flush.scheduler.interval.ms})
 * @param retiredSegmentsCheckInterval how often the segment files removed from logs (retention,
 *     truncation, compaction) are checked for a passed {@code file.delete.delay.ms}, then closed and
 *     deleted; a file outlives its delay by at most this
 * @param fetchMaxWait a Fetch waits at most this long for {@code min_bytes}, whatever its {@code
 *     max_wait_ms}
 * @param produceMaxTimeout an acks=all Produce waits at most this long for the ISR, whatever its
 *     {@code timeout_ms}
 * @param highWatermarkCheckpointInterval how often each replica's high watermark is checkpointed
 *     (Kafka's {@code replica.high.watermark.checkpoint.interval.ms}, 5 seconds); a restarted
 *     replica starts from its last checkpoint
 * @param deleteThreads threads that delete the data of deleted topics, off the metadata thread
 * @param indexBufferedEntries offset- and time-index entries of one partition kept in memory and
 *     written to RocksDB together (one RocksDB write per this many entries instead of one per
 *     appended batch); they are also written at every flush, roll and close. 1 writes each at once
 * @param rollFlushQueue rolled segments whose fsync may wait for the broker's roll-flusher thread
 *     (a roll hands its closed segment to it instead of fsyncing on the appending thread); when
 *     this many wait, a roll fsyncs on the appending thread, so a slow disk slows appends instead
 *     of letting unflushed segments pile up
 */
@Validated
@ConfigurationProperties("tributary.broker.replica")
public record ReplicaProperties(
        @DefaultValue("5m") @NotNull Duration retentionCheckInterval,
        @DefaultValue("16") @Min(1) @Max(1_000_000) int retentionSegmentsPerRun,
        @DefaultValue("1s") @NotNull Duration flushCheckInterval,
        @DefaultValue("1s") @NotNull Duration retiredSegmentsCheckInterval,
        @DefaultValue("30s") @NotNull Duration fetchMaxWait,
        @DefaultValue("60s") @NotNull Duration produceMaxTimeout,
        @DefaultValue("5s") @NotNull Duration highWatermarkCheckpointInterval,
        @DefaultValue("1") @Min(1) @Max(64) int deleteThreads,
        @DefaultValue("64") @Min(1) @Max(1_000_000) int indexBufferedEntries,
        @DefaultValue("16") @Min(1) @Max(10_000) int rollFlushQueue) {

    public ReplicaProperties {
        requirePositive(retentionCheckInterval, "retention-check-interval");
        requirePositive(flushCheckInterval, "flush-check-interval");
        requirePositive(retiredSegmentsCheckInterval, "retired-segments-check-interval");
        requirePositive(fetchMaxWait, "fetch-max-wait");
        requirePositive(produceMaxTimeout, "produce-max-timeout");
        requirePositive(highWatermarkCheckpointInterval, "high-watermark-checkpoint-interval");
    }

    private static void requirePositive(Duration value, String key) {
        if (value != null && (value.isNegative() || value.isZero())) {
            throw new IllegalArgumentException("tributary.broker.replica." + key + " must be positive, got " + value);
        }
    }
}
