package io.tributary.broker.log;

import io.tributary.broker.log.index.CleanerCheckpoint;
import io.tributary.broker.log.index.PartitionIndex;
import io.tributary.broker.log.index.TimestampOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.LongFunction;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Step 3 of a {@link SegmentSwap}: the index entries of a swapped range become those of its
 * cleaned file, in one write batch with the cleaner's checkpoint. The time index holds the largest
 * timestamp so far at each offset-index point, so when cleaning removed the batch holding the
 * largest timestamp of the range, the index points after the range up to the first time entry that
 * stays (whose timestamp is above every batch before it) get the time entries the removed batch
 * made unnecessary before: found by reading the batch headers between the range and that entry
 * (the whole rest of the log when there is none).
 *
 * <p>Stateless; {@link PartitionLog} calls it under its writer lock (a swap) or while opening (a
 * swap a crash interrupted).
 */
final class SwapIndexUpdate {

    private SwapIndexUpdate() {}

    /**
     * Replaces the index entries of {@code range} with those of {@code cleaned}.
     *
     * @param firstSegmentBase the base offset of the log's first segment
     * @param batchesFrom the log's batches from the one holding an offset to its published end
     */
    static void replace(
            PartitionIndex index,
            LogSegment cleaned,
            SegmentSwap.Range range,
            Optional<CleanerCheckpoint> checkpoint,
            int indexIntervalBytes,
            long firstSegmentBase,
            LongFunction<Iterator<PartitionLog.Located>> batchesFrom) {
        // The largest timestamp below the range: the last time entry below it, or a batch after
        // that entry (between two index points, or covered by an entry a swap just removed).
        Optional<TimestampOffset> below = index.lastTimeBelow(range.baseOffset());
        long previous = below.map(TimestampOffset::timestamp).orElse(RecordBatch.NO_TIMESTAMP);
        long maxBefore = previous;
        long offsetOfMaxBefore = below.map(TimestampOffset::offset).orElse(-1L);
        Iterator<PartitionLog.Located> head =
                batchesFrom.apply(below.map(TimestampOffset::offset).orElse(firstSegmentBase));
        while (head.hasNext()) {
            BatchHeader header = head.next().header();
            if (header.baseOffset() >= range.baseOffset()) {
                break;
            }
            if (header.maxTimestamp() > maxBefore) {
                maxBefore = header.maxTimestamp();
                offsetOfMaxBefore = header.baseOffset();
            }
        }
        SegmentSwap.IndexEntries entries =
                SegmentSwap.indexEntries(cleaned, indexIntervalBytes, previous, maxBefore, offsetOfMaxBefore);
        List<TimestampOffset> times = new ArrayList<>(entries.times());
        long lastEntry = times.isEmpty() ? previous : times.getLast().timestamp();
        long max = entries.maxTimestamp();
        long offsetOfMax = entries.offsetOfMax();
        long stopAt = index.firstTimeAtOrAfter(range.endOffset())
                .map(TimestampOffset::offset)
                .orElse(Long.MAX_VALUE);
        Iterator<PartitionLog.Located> tail = batchesFrom.apply(range.endOffset());
        while (tail.hasNext()) {
            BatchHeader header = tail.next().header();
            if (header.baseOffset() >= stopAt) {
                break;
            }
            if (header.baseOffset() < range.endOffset()) {
                continue;
            }
            if (header.maxTimestamp() > max) {
                max = header.maxTimestamp();
                offsetOfMax = header.baseOffset();
            }
            boolean indexPoint = index.floorOffset(header.baseOffset())
                    .filter(e -> e.offset() == header.baseOffset())
                    .isPresent();
            if (indexPoint && max > lastEntry) {
                times.add(new TimestampOffset(max, offsetOfMax));
                lastEntry = max;
            }
        }
        index.replaceRange(range.baseOffset(), range.endOffset(), entries.offsets(), times, checkpoint);
    }
}
