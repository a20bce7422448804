package io.tributary.broker.log;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What the log cleaner may clean in one partition log now, taken under the log's writer lock
 * ({@link CompactionHooks#cleanableSection}).
 *
 * <pre>
 *  logStart      firstDirty           firstUncleanable    active segment
 *     |  clean: deduplicated |  dirty: not yet  |  uncleanable  |
 *     [--------------------- segments ---------)
 * </pre>
 *
 * @param logStartOffset the log start offset
 * @param firstDirtyOffset the first offset not deduplicated yet (the cleaner's checkpoint, at least
 *     the log start and at most {@code firstUncleanableOffset})
 * @param firstUncleanableOffset a segment base offset: every segment below it may be cleaned; it is
 *     at most the active segment's base, the upper bound asked for (the high watermark), the
 *     recovery point, and the base of the first segment holding a record younger than {@code
 *     min.compaction.lag.ms}
 * @param segments the segments wholly below {@code firstUncleanableOffset}, oldest first; they stay
 *     readable until a swap or a deletion replaces them (a cleaner racing with one fails and retries)
 * @param cleanBytes the bytes of the segments wholly below {@code firstDirtyOffset}
 * @param dirtyBytes the bytes of the other segments in {@code segments}
 * @param firstDirtyTimestampMs the timestamp of the first batch of the first dirty segment, if it
 *     has one (for {@code max.compaction.lag.ms})
 * @param producerLastOffsets for each producer the log knows, the last offset of its newest batch
 * @param config the log's config when the section was taken
 */
public record CleanableSection(
        long logStartOffset,
        long firstDirtyOffset,
        long firstUncleanableOffset,
        List<LogSegment> segments,
        long cleanBytes,
        long dirtyBytes,
        OptionalLong firstDirtyTimestampMs,
        Map<Long, Long> producerLastOffsets,
        LogConfig config) {

    public CleanableSection {
        segments = List.copyOf(segments);
        producerLastOffsets = Map.copyOf(producerLastOffsets);
        Objects.requireNonNull(firstDirtyTimestampMs, "firstDirtyTimestampMs");
        Objects.requireNonNull(config, "config");
        if (firstDirtyOffset > firstUncleanableOffset) {
            throw new IllegalArgumentException(
                    "first dirty offset " + firstDirtyOffset + " is past the uncleanable " + firstUncleanableOffset);
        }
    }

    /** The base offset of the segment after {@code segments.get(i)}: its end in the log. */
    public long endOf(int i) {
        return i + 1 < segments.size() ? segments.get(i + 1).baseOffset() : firstUncleanableOffset;
    }

    /** Dirty bytes over all bytes of the section (0 when empty): Kafka's dirty ratio. */
    public double dirtyRatio() {
        long total = cleanBytes + dirtyBytes;
        return total == 0 ? 0 : (double) dirtyBytes / total;
    }
}
