package io.tributary.broker.log;

import io.tributary.broker.log.index.CleanerCheckpoint;
import io.tributary.broker.log.index.PartitionIndex;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.kafka.common.TopicIdPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one {@link PartitionLog} offers the log cleaner (package {@code log.cleaner}), and the
 * cleaner's state the log keeps: its {@link CleanerCheckpoint} (the first dirty offset, and the
 * earliest delete horizon of the tombstones the last pass kept), persisted with each swap. The log
 * owns one and hands it out with {@link PartitionLog#compaction()}.
 *
 * <ul>
 *   <li>{@link #cleanableSection} tells the cleaner what it may clean now;
 *   <li>{@link #swapInCleaned} swaps a cleaned file in for the segments it replaces, following
 *       {@link SegmentSwap}'s crash-safe protocol, and records the checkpoint in the same index write
 *       batch ({@link SwapIndexUpdate});
 *   <li>{@link #holdsSegments} tells a cleaner whose read failed whether the log changed under it;
 *   <li>{@link #earliestDeleteHorizonMs} tells the cleaner from when a pass would drop a tombstone,
 *       across restarts.
 * </ul>
 *
 * <p>The log calls the package-private methods: when it opens ({@link #loaded}, {@link
 * #redoSwapIndex}), at a truncation ({@link #truncatedTo}, {@link #restartedAt}).
 *
 * <p>Thread-safety: every method that reads or changes the log's segments takes the log's writer
 * lock; {@link #cleanerCheckpoint()} and {@link #earliestDeleteHorizonMs()} read a volatile. Plain Java, no framework.
 */
public final class CompactionHooks {

    private static final Logger log = LoggerFactory.getLogger(CompactionHooks.class);

    private final PartitionLog owner;
    private final Object writeLock;
    private final PartitionIndex index;
    private final ConcurrentSkipListMap<Long, LogSegment> segments;
    private final SegmentDeleter deleter;
    private final TopicIdPartition partition;
    private final Path dir;

    /** The log cleaner's checkpoint (persisted with each swap; see {@link SegmentSwap}). */
    private volatile CleanerCheckpoint checkpoint = CleanerCheckpoint.at(0);

    CompactionHooks(
            PartitionLog owner,
            Object writeLock,
            PartitionIndex index,
            ConcurrentSkipListMap<Long, LogSegment> segments,
            SegmentDeleter deleter) {
        this.owner = owner;
        this.writeLock = writeLock;
        this.index = index;
        this.segments = segments;
        this.deleter = deleter;
        this.partition = owner.topicIdPartition();
        this.dir = owner.directory();
    }

    /** The log cleaner's checkpoint: the first offset it has not deduplicated yet. */
    public long cleanerCheckpoint() {
        return checkpoint.firstDirtyOffset();
    }

    /**
     * The earliest delete horizon of the tombstones the last pass kept (as their batches carry it),
     * if it kept any: from then on a pass drops one. Read back from the index store when the log
     * opens, so it survives restarts.
     */
    public OptionalLong earliestDeleteHorizonMs() {
        return checkpoint.earliestDeleteHorizonMs();
    }

    /**
     * What the log cleaner may clean now (see {@link CleanableSection}), below {@code
     * upperBoundOffset} (the partition's high watermark: records not yet committed are not cleaned).
     */
    public CleanableSection cleanableSection(long upperBoundOffset) {
        synchronized (writeLock) {
            owner.ensureOpen();
            long nowMs = owner.clock().millis();
            LogConfig config = owner.config();
            long logStartOffset = owner.logStartOffset();
            long bound = Math.min(
                    Math.min(upperBoundOffset, owner.recoveryPoint()),
                    owner.logEnd().segment().baseOffset());
            Long floor = segments.floorKey(bound);
            long firstUncleanable = floor == null ? segments.firstKey() : floor;
            // The log start may be past the bound (a follower whose high watermark is below the records
            // deleted before it): then nothing is cleanable, and the section is empty, not refused.
            long firstDirty = Math.min(
                    Math.max(logStartOffset, Math.min(checkpoint.firstDirtyOffset(), firstUncleanable)),
                    firstUncleanable);
            long minLagMs = config.compaction().minCompactionLag().toMillis();
            if (minLagMs > 0) {
                Long dirtyBase = segments.floorKey(firstDirty);
                for (LogSegment segment : segments.subMap(
                                dirtyBase == null ? segments.firstKey() : dirtyBase, true, firstUncleanable, false)
                        .values()) {
                    OptionalLong largest = segment.largestTimestampMs(segment.sizeInBytes());
                    if (largest.isPresent() && nowMs - largest.getAsLong() < minLagMs) {
                        firstUncleanable = segment.baseOffset();
                        break;
                    }
                }
                firstDirty = Math.min(firstDirty, firstUncleanable);
            }
            List<LogSegment> cleanable =
                    List.copyOf(segments.headMap(firstUncleanable, false).values());
            long cleanBytes = 0;
            long dirtyBytes = 0;
            OptionalLong firstDirtyTimestamp = OptionalLong.empty();
            for (int i = 0; i < cleanable.size(); i++) {
                LogSegment segment = cleanable.get(i);
                long segmentEnd =
                        i + 1 < cleanable.size() ? cleanable.get(i + 1).baseOffset() : firstUncleanable;
                if (segmentEnd <= firstDirty) {
                    cleanBytes += segment.sizeInBytes();
                } else {
                    if (dirtyBytes == 0 && segment.sizeInBytes() > 0 && segment.rollsByRecordTime()) {
                        firstDirtyTimestamp = OptionalLong.of(segment.rollBaseMs());
                    }
                    dirtyBytes += segment.sizeInBytes();
                }
            }
            return new CleanableSection(
                    logStartOffset,
                    firstDirty,
                    firstUncleanable,
                    cleanable,
                    cleanBytes,
                    dirtyBytes,
                    firstDirtyTimestamp,
                    owner.producerLastOffsets(),
                    config);
        }
    }

    /**
     * Swaps the cleaned file {@code <dir>/SegmentSwap.cleanedFileName(range)} (written and fsynced by
     * the cleaner) in for {@code replaced}, the adjacent segments covering {@code range}, following
     * {@link SegmentSwap}'s steps 2 to 6, and records {@code checkpoint} (the last swap of a pass
     * gives it) as the cleaner's checkpoint in the same index write batch. When the log changed since the cleaner took its section
     * (a truncation, retention or another swap replaced one of the segments, or the log closed),
     * deletes the cleaned file and returns false.
     */
    public boolean swapInCleaned(
            List<LogSegment> replaced, SegmentSwap.Range range, Optional<CleanerCheckpoint> checkpoint) {
        return swapInCleaned(replaced, range, checkpoint, SwapObserver.NONE);
    }

    /**
     * {@link #swapInCleaned(List, SegmentSwap.Range, Optional)}, telling {@code observer} after
     * each file operation (a seam for crash tests).
     */
    public boolean swapInCleaned(
            List<LogSegment> replaced,
            SegmentSwap.Range range,
            Optional<CleanerCheckpoint> checkpoint,
            SwapObserver observer) {
        Path cleaned = dir.resolve(SegmentSwap.cleanedFileName(range));
        synchronized (writeLock) {
            if (owner.isClosed() || !stillInLog(replaced, range)) {
                log.info(
                        "{}: the log changed while offsets [{}, {}) were cleaned; the cleaned segment is dropped",
                        partition,
                        range.baseOffset(),
                        range.endOffset());
                SegmentSwap.delete(cleaned);
                return false;
            }
            long nowMs = owner.clock().millis();
            Path swap = SegmentSwap.commit(dir, range, observer);
            LogSegment swapped = LogSegment.openFile(swap, range.baseOffset(), nowMs);
            try {
                replaceIndexOfCleaned(swapped, range, checkpoint);
            } finally {
                swapped.close();
            }
            observer.after(SwapObserver.Step.INDEX_REPLACED, swap);
            List<LogSegment> retired = new ArrayList<>();
            LogSegment fresh;
            try {
                for (LogSegment old : replaced) {
                    Path file = deleter.retire(old, owner.config().fileDeleteDelay());
                    retired.add(old);
                    observer.after(SwapObserver.Step.ORIGINAL_RETIRED, file);
                }
                SegmentSwap.install(dir, range, observer);
                fresh = LogSegment.open(dir, range.baseOffset(), nowMs);
            } catch (RuntimeException e) {
                // Decided but not installed: the next opening finishes it. Until then the log serves
                // the originals, so their retirement must not close them.
                deleter.keepOpen(retired);
                throw e;
            }
            segments.put(range.baseOffset(), fresh);
            for (LogSegment old : replaced) {
                if (old.baseOffset() != range.baseOffset()) {
                    segments.remove(old.baseOffset());
                }
            }
            deleter.deleteDue();
            checkpoint.ifPresent(c -> this.checkpoint = c);
            owner.afterRangeReplaced(range);
            long before = replaced.stream().mapToLong(LogSegment::sizeInBytes).sum();
            log.info(
                    "{}: swapped in the cleaned offsets [{}, {}): {} segments of {} bytes became {} of {} bytes;"
                            + " cleaner checkpoint {}",
                    partition,
                    range.baseOffset(),
                    range.endOffset(),
                    replaced.size(),
                    before,
                    fresh.path().getFileName(),
                    fresh.sizeInBytes(),
                    this.checkpoint);
            return true;
        }
    }

    /**
     * Whether every one of {@code held} is still in the log (the same segment object: not deleted
     * by retention or truncation, nor replaced by a swap), and the log open. A cleaner whose read
     * failed asks this to tell a log that changed under it from a failure of its own.
     */
    public boolean holdsSegments(List<LogSegment> held) {
        synchronized (writeLock) {
            if (owner.isClosed()) {
                return false;
            }
            for (LogSegment segment : held) {
                if (segments.get(segment.baseOffset()) != segment) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Whether {@code replaced} are still exactly the closed segments covering {@code range}. */
    private boolean stillInLog(List<LogSegment> replaced, SegmentSwap.Range range) {
        if (replaced.isEmpty()
                || replaced.getFirst().baseOffset() != range.baseOffset()
                || range.endOffset() > owner.logEnd().segment().baseOffset()
                || range.endOffset() > owner.recoveryPoint()
                || !Long.valueOf(range.endOffset())
                        .equals(segments.higherKey(replaced.getLast().baseOffset()))) {
            return false;
        }
        List<LogSegment> current = List.copyOf(segments.subMap(range.baseOffset(), true, range.endOffset(), false)
                .values());
        if (current.size() != replaced.size()) {
            return false;
        }
        for (int i = 0; i < current.size(); i++) {
            if (current.get(i) != replaced.get(i)) {
                return false;
            }
        }
        return true;
    }

    /** Step 3 of a swap ({@link SwapIndexUpdate}), reading batches up to the published end. */
    private void replaceIndexOfCleaned(
            LogSegment cleaned, SegmentSwap.Range range, Optional<CleanerCheckpoint> checkpoint) {
        PartitionLog.LogEnd published = owner.logEnd();
        SwapIndexUpdate.replace(
                index,
                cleaned,
                range,
                checkpoint,
                owner.config().indexIntervalBytes(),
                segments.firstKey(),
                offset -> owner.batchesFrom(offset, published).iterator());
    }

    // ---- called by the log (writer lock held) ----

    /** The log opened: the checkpoint is the persisted one, or {@code logStartOffset} when none is. */
    void loaded(long logStartOffset) {
        checkpoint = index.readCleanerCheckpoint().orElse(CleanerCheckpoint.at(logStartOffset));
    }

    /**
     * Step 3 again for a swap that opening finished ({@link SegmentSwap#recover}): its index batch
     * may not have been written before the crash.
     */
    void redoSwapIndex(SegmentSwap.Range swap) {
        if (segments.containsKey(swap.baseOffset())
                && swap.endOffset() <= owner.logEnd().segment().baseOffset()) {
            replaceIndexOfCleaned(segments.get(swap.baseOffset()), swap, Optional.empty());
        }
    }

    /** After a truncation to {@code newEnd}: the cleaner has deduplicated nothing past it. */
    void truncatedTo(long newEnd) {
        if (checkpoint.firstDirtyOffset() > newEnd) {
            // The horizon stays: it may be early now (a kept tombstone was cut), which costs a pass.
            checkpoint = new CleanerCheckpoint(newEnd, checkpoint.earliestDeleteHorizonMs());
            index.writeCleanerCheckpoint(checkpoint);
        }
    }

    /** The log was emptied and restarts at {@code offset} (a full truncation): nothing is deduplicated. */
    void restartedAt(long offset) {
        checkpoint = CleanerCheckpoint.at(offset);
        index.writeCleanerCheckpoint(checkpoint);
    }

    /** The log opened without segments, created at {@code offset}: nothing is deduplicated yet. */
    void createdAt(long offset) {
        checkpoint = CleanerCheckpoint.at(offset);
    }
}
