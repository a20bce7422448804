package io.tributary.broker.log;

import java.util.OptionalLong;

/**
 * What an append did (Kafka's {@code LogAppendInfo}, the part a Produce response needs).
 *
 * @param firstOffset the offset of the first record written
 * @param lastOffset the offset of the last record written
 * @param logAppendTimeMs the broker time stamped into the batches, when the topic uses LogAppendTime
 * @param logStartOffset the log start offset after the append
 * @param duplicate true when nothing was written because the batch repeats one of the idempotent
 *     producer's last batches: the offsets are that batch's original ones
 * @param recompression the batches the leader rewrote into the topic's {@code compression.type}
 */
public record AppendResult(
        long firstOffset,
        long lastOffset,
        OptionalLong logAppendTimeMs,
        long logStartOffset,
        boolean duplicate,
        RecompressionStats recompression) {

    public AppendResult {
        java.util.Objects.requireNonNull(recompression, "recompression");
    }

    /** An append without recompression, written or a duplicate. */
    public AppendResult(
            long firstOffset, long lastOffset, OptionalLong logAppendTimeMs, long logStartOffset, boolean duplicate) {
        this(firstOffset, lastOffset, logAppendTimeMs, logStartOffset, duplicate, RecompressionStats.NONE);
    }

    /** A written append. */
    public AppendResult(long firstOffset, long lastOffset, OptionalLong logAppendTimeMs, long logStartOffset) {
        this(firstOffset, lastOffset, logAppendTimeMs, logStartOffset, false);
    }
}
