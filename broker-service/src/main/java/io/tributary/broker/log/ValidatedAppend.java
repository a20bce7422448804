package io.tributary.broker.log;

import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Batches that passed validation and carry their final offsets, ready to be written as they are.
 *
 * @param records the batches, header-rewritten in place
 * @param batches one header per batch, positions relative to the start of {@code records}
 * @param logAppendTimeMs the time stamped into every batch, when the topic uses LogAppendTime
 * @param recompression the batches the leader rewrote into the topic's codec ({@link BatchRecompression})
 */
record ValidatedAppend(
        MemoryRecords records,
        List<BatchHeader> batches,
        OptionalLong logAppendTimeMs,
        RecompressionStats recompression) {

    /** Batches stored as they came. */
    ValidatedAppend(MemoryRecords records, List<BatchHeader> batches, OptionalLong logAppendTimeMs) {
        this(records, batches, logAppendTimeMs, RecompressionStats.NONE);
    }

    ValidatedAppend {
        batches = List.copyOf(batches);
        java.util.Objects.requireNonNull(recompression, "recompression");
        if (batches.isEmpty()) {
            throw new IllegalArgumentException("a validated append has at least one batch");
        }
    }

    long firstOffset() {
        return batches.getFirst().baseOffset();
    }

    long lastOffset() {
        return batches.getLast().lastOffset();
    }

    long recordCount() {
        return batches.stream().mapToLong(BatchHeader::recordCount).sum();
    }

    int sizeInBytes() {
        return records.sizeInBytes();
    }
}
