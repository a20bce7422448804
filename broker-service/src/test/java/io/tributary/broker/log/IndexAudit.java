package io.tributary.broker.log;

import io.tributary.broker.log.index.OffsetPosition;
import io.tributary.broker.log.index.PartitionIndex;
import io.tributary.broker.log.index.TimestampOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Checks that a partition's index agrees with a full scan of its segments (read without the index).
 * The offset index is a function of the batch layout: the first batch of each segment and each
 * batch more than {@code index.interval.bytes} after the previous indexed batch of its segment. The
 * time index's entries name real batches and their max timestamps, increase in both fields, and at
 * every offset entry hold at least the largest timestamp of the batches up to it.
 */
final class IndexAudit {

    private IndexAudit() {}

    static List<String> violations(PartitionLog log, PartitionIndex index) {
        List<String> problems = new ArrayList<>();
        List<PartitionLog.Located> batches = log.scanAllBatches();
        int interval = log.config().indexIntervalBytes();

        List<OffsetPosition> expected = new ArrayList<>();
        long segment = -1;
        int lastIndexed = 0;
        for (PartitionLog.Located located : batches) {
            BatchHeader header = located.header();
            if (located.segment().baseOffset() != segment) {
                segment = located.segment().baseOffset();
                lastIndexed = 0;
            }
            if (header.position() == 0 || header.position() - lastIndexed > interval) {
                expected.add(new OffsetPosition(header.baseOffset(), segment, header.position()));
                lastIndexed = header.position();
            }
        }
        List<OffsetPosition> actual = index.offsetEntries();
        if (!actual.equals(expected)) {
            problems.add("offset index " + actual + " but a full scan gives " + expected);
        }

        Map<Long, BatchHeader> byBase = new HashMap<>();
        batches.forEach(l -> byBase.put(l.header().baseOffset(), l.header()));
        List<TimestampOffset> times = index.timeEntries();
        for (int i = 0; i < times.size(); i++) {
            TimestampOffset entry = times.get(i);
            BatchHeader header = byBase.get(entry.offset());
            if (header == null || header.maxTimestamp() != entry.timestamp()) {
                problems.add("time entry " + entry + " does not name a batch with that max timestamp: " + header);
            }
            if (i > 0
                    && (entry.timestamp() <= times.get(i - 1).timestamp()
                            || entry.offset() <= times.get(i - 1).offset())) {
                problems.add("time entries do not increase: " + times.get(i - 1) + ", " + entry);
            }
            if (entry.offset() >= log.logEndOffset()) {
                problems.add("time entry " + entry + " at or past the log end " + log.logEndOffset());
            }
        }
        long maxSoFar = RecordBatch.NO_TIMESTAMP;
        int t = -1;
        int e = 0;
        for (PartitionLog.Located located : batches) {
            BatchHeader header = located.header();
            maxSoFar = Math.max(maxSoFar, header.maxTimestamp());
            boolean indexed = e < expected.size() && expected.get(e).offset() == header.baseOffset();
            if (!indexed) {
                continue;
            }
            e++;
            while (t + 1 < times.size() && times.get(t + 1).offset() <= header.baseOffset()) {
                t++;
            }
            // Once segments are deleted, so are the time entries naming their batches: the offset
            // entries kept have none until the next index point writes the largest timestamp of
            // the batches left.
            boolean historyDeleted = log.logStartOffset() > 0;
            boolean missing = t < 0 ? !historyDeleted : times.get(t).timestamp() < maxSoFar;
            if (maxSoFar != RecordBatch.NO_TIMESTAMP && missing) {
                problems.add("at offset entry " + header.baseOffset() + " the time index holds "
                        + (t < 0 ? "nothing" : times.get(t)) + " but the batches reach " + maxSoFar);
            }
        }
        return problems;
    }
}
