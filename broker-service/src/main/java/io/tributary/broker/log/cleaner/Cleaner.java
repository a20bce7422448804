package io.tributary.broker.log.cleaner;

import io.tributary.broker.log.BatchHeader;
import io.tributary.broker.log.CleanableSection;
import io.tributary.broker.log.CompactionHooks;
import io.tributary.broker.log.LogSegment;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.SegmentSwap;
import io.tributary.broker.log.SwapObserver;
import io.tributary.broker.log.index.CleanerCheckpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cleans one partition log in one pass: deduplicates by key the records below the first
 * uncleanable offset, as Kafka's cleaner does. A pass:
 *
 * <ol>
 *   <li>takes the log's {@link CleanableSection} (under its lock);
 *   <li>builds the {@link OffsetMap} from the dirty records, from the first dirty offset on, batch
 *       by batch, stopping before a batch that might not fit: the pass's new checkpoint is where it
 *       stopped (the first uncleanable offset when everything fit);
 *   <li>groups the segments below the new checkpoint (the first one it falls in included), from the
 *       oldest, into runs of at most {@code segment.bytes}, and rewrites each run into one cleaned
 *       file, keeping a record when it is at or past the new checkpoint, or when the map holds no
 *       later offset for its key and it is not a tombstone whose batch's delete horizon has passed;
 *       records without a key are dropped, as Kafka drops them;
 *   <li>swaps each cleaned file in ({@link CompactionHooks#swapInCleaned}, the file protocol is {@link
 *       SegmentSwap}'s); the last swap records the new checkpoint.
 * </ol>
 *
 * <p>Batches are filtered with kafka-clients' {@code MemoryRecords.filterTo}: a batch losing no
 * record is copied as it is; another is rebuilt with its own codec, base offset, producer id, epoch,
 * base sequence and last offset (so offsets are never renumbered and the producer's last sequence
 * stays); a batch that loses every record disappears, except the newest batch of a producer the log
 * knows, which stays as an empty batch (a header without records, as Kafka keeps it) so that the
 * producer's epoch and sequence survive.
 *
 * <h2>Tombstone delete horizons (KIP-534), in the batches it writes</h2>
 *
 * <p>The first time a pass keeps a tombstone (a record without a value) its batch is rewritten with
 * two header fields changed (offsets from the batch start, big-endian; the layout is {@link
 * BatchHeader}'s):
 *
 * <pre>
 * 21  attributes      int16   bit 6 (0x40) set: "this batch carries a delete horizon"
 * 27  baseTimestamp   int64   the delete horizon: the pass's time + delete.retention.ms (ms since
 *                             the epoch), instead of the first record's timestamp
 * 61  records ...             each record's timestampDelta (varint) is re-taken from the horizon,
 *                             so base + delta is still the record's own timestamp
 * </pre>
 *
 * {@code maxTimestamp} (byte 35) stays the largest timestamp of the records kept, and the CRC (byte
 * 17) covers the new bytes. A batch that already has the flag keeps its horizon whenever it is
 * rewritten again (a later pass never extends it), and a pass at or after the horizon drops its
 * tombstones; the decision depends only on the batch and the clock, so every replica that cleans
 * its copy (or restarts) decides the same. kafka-clients' {@code filterTo} writes these fields, as
 * Kafka's cleaner does. The earliest horizon of the tombstones a pass kept is stored with the
 * checkpoint ({@link CleanerCheckpoint}), which tells {@link LogCleaner} when to clean a log for
 * its tombstones alone, across restarts.
 *
 * <p>Every read of batches and every write goes through the {@link IoThrottle} (Kafka's {@code
 * log.cleaner.io.max.bytes.per.second}); a stop (the broker shutting down) ends the pass at the next
 * read, ABORTED, its partial cleaned file deleted.
 *
 * <p>Memory: the map ({@link CleanerConfig#dedupeBufferBytesPerThread()}, its share of the dedupe
 * buffer) plus reads of at most {@link CleanerConfig#ioBufferBytesPerThread()} (or one batch when
 * larger) and their filtered copy.
 *
 * <p>Not thread-safe: one cleaner per thread (it owns its map). Runs concurrently with the log's
 * appends and reads; a truncation, retention or close meanwhile makes the swap refuse, and the pass
 * ends {@link CleanResult.Outcome#ABORTED}, leaving the log as it was.
 */
public final class Cleaner {

    private static final Logger log = LoggerFactory.getLogger(Cleaner.class);

    private final CleanerConfig config;
    private final InstantSource clock;
    private final OffsetMap map;
    private final IoThrottle throttle;
    private final BooleanSupplier stopRequested;
    private final SwapObserver observer;
    private final BufferSupplier decompression = BufferSupplier.create();

    /** A cleaner without an I/O limit, never stopped. */
    public Cleaner(CleanerConfig config, InstantSource clock) {
        this(config, clock, IoThrottle.unlimited(), () -> false);
    }

    /**
     * A cleaner whose reads and writes go through {@code throttle}, and whose pass ends {@link
     * CleanResult.Outcome#ABORTED} at the next batch read once {@code stopRequested} is true (the
     * broker is stopping), leaving the log as it was.
     */
    public Cleaner(CleanerConfig config, InstantSource clock, IoThrottle throttle, BooleanSupplier stopRequested) {
        this(config, clock, throttle, stopRequested, SwapObserver.NONE);
    }

    /**
     * A cleaner that also tells {@code observer} after each file operation of its swaps (a seam for
     * crash tests: {@link SwapObserver}).
     */
    public Cleaner(
            CleanerConfig config,
            InstantSource clock,
            IoThrottle throttle,
            BooleanSupplier stopRequested,
            SwapObserver observer) {
        this.observer = Objects.requireNonNull(observer, "observer");
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.throttle = Objects.requireNonNull(throttle, "throttle");
        this.stopRequested = Objects.requireNonNull(stopRequested, "stopRequested");
        this.map = new OffsetMap(config.dedupeBufferBytesPerThread(), config.dedupeBufferLoadFactor());
    }

    /** The slots of this cleaner's offset map (its share of the dedupe buffer). */
    int mapSlots() {
        return map.slots();
    }

    /**
     * One pass over {@code partitionLog}, below {@code upperBoundOffset} (its high watermark), if it
     * has dirty records. A log whose {@code cleanup.policy} lacks {@code compact} is not touched.
     */
    public CleanResult clean(PartitionLog partitionLog, long upperBoundOffset) {
        return pass(partitionLog, upperBoundOffset, false);
    }

    /**
     * A pass over {@code partitionLog} even when nothing is dirty: it rewrites the cleaned segments
     * to drop the tombstones whose delete horizon has passed (Kafka cleans a log for that too).
     */
    public CleanResult cleanTombstones(PartitionLog partitionLog, long upperBoundOffset) {
        return pass(partitionLog, upperBoundOffset, true);
    }

    private CleanResult pass(PartitionLog partitionLog, long upperBoundOffset, boolean evenIfNothingDirty) {
        CleanableSection section = partitionLog.compaction().cleanableSection(upperBoundOffset);
        long firstDirty = section.firstDirtyOffset();
        boolean nothingDirty = firstDirty >= section.firstUncleanableOffset();
        if (!section.config().compaction().compacts()
                || section.segments().isEmpty()
                || (nothingDirty && !evenIfNothingDirty)) {
            return new Stats().result(CleanResult.Outcome.NOTHING_TO_CLEAN, firstDirty, firstDirty, section, 0);
        }
        long nowMs = clock.millis();
        Stats stats = new Stats();
        int swapped = 0;
        long checkpoint;
        try {
            checkpoint = buildMap(section);
            stats.bufferUtilization = (double) map.size() / map.slots();
        } catch (StoppedException e) {
            return stopped(partitionLog, section, stats, swapped);
        } catch (RuntimeException e) {
            return abortedOrThrow(partitionLog, section, e, stats, swapped);
        }
        List<Group> groups = groups(section, checkpoint);
        for (int g = 0; g < groups.size(); g++) {
            Group group = groups.get(g);
            boolean last = g == groups.size() - 1;
            try {
                writeCleaned(partitionLog.directory(), group, section, checkpoint, nowMs, stats);
            } catch (StoppedException e) {
                return stopped(partitionLog, section, stats, swapped);
            } catch (RuntimeException e) {
                return abortedOrThrow(partitionLog, section, e, stats, swapped);
            }
            boolean done;
            try {
                done = partitionLog
                        .compaction()
                        .swapInCleaned(
                                group.segments(),
                                group.range(),
                                last
                                        ? Optional.of(
                                                new CleanerCheckpoint(checkpoint, stats.earliestTombstoneHorizon()))
                                        : Optional.empty(),
                                observer);
            } catch (RuntimeException e) {
                // Failed before its commit point, the cleaned file is still ".cleaned": drop it. A ".swap"
                // is decided; the log finishes it when it next opens.
                deleteQuietly(partitionLog.directory().resolve(SegmentSwap.cleanedFileName(group.range())));
                throw e;
            }
            if (!done) {
                return stats.result(
                        CleanResult.Outcome.ABORTED,
                        firstDirty,
                        partitionLog.compaction().cleanerCheckpoint(),
                        section,
                        swapped);
            }
            swapped++;
        }
        log.info(
                "{}: cleaned offsets [{}, {}) against {} keys of [{}, {}): {} -> {} bytes, {} of {} records kept",
                partitionLog.topicIdPartition(),
                section.logStartOffset(),
                checkpoint,
                map.size(),
                firstDirty,
                checkpoint,
                stats.bytesRead,
                stats.bytesWritten,
                stats.recordsRetained,
                stats.recordsRead);
        return stats.result(CleanResult.Outcome.CLEANED, firstDirty, checkpoint, section, swapped);
    }

    /** The pass was stopped (the broker is stopping): what it swapped in stays, the rest is dropped. */
    private static CleanResult stopped(PartitionLog partitionLog, CleanableSection section, Stats stats, int swapped) {
        log.info("{}: the cleaner was stopped during a pass; the pass is dropped", partitionLog.topicIdPartition());
        return aborted(partitionLog, section, stats, swapped);
    }

    private static CleanResult aborted(PartitionLog partitionLog, CleanableSection section, Stats stats, int swapped) {
        return stats.result(
                CleanResult.Outcome.ABORTED,
                section.firstDirtyOffset(),
                partitionLog.compaction().cleanerCheckpoint(),
                section,
                swapped);
    }

    /** Thrown between two reads of a pass once a stop was requested. */
    private static final class StoppedException extends RuntimeException {
        StoppedException() {
            super("the cleaner was stopped", null, false, false);
        }
    }

    private void checkNotStopped() {
        if (stopRequested.getAsBoolean()) {
            throw new StoppedException();
        }
    }

    /**
     * A read or write of the pass failed: when the log no longer holds the section's segments
     * (retention, a truncation or the close took one meanwhile, so its file was closed under the
     * read) the pass ends {@link CleanResult.Outcome#ABORTED}; otherwise the failure is the
     * cleaner's and is thrown.
     */
    private static CleanResult abortedOrThrow(
            PartitionLog partitionLog, CleanableSection section, RuntimeException e, Stats stats, int swapped) {
        if (partitionLog.compaction().holdsSegments(section.segments())) {
            throw e;
        }
        log.info(
                "{}: the log changed while it was cleaned ({}); the pass is dropped",
                partitionLog.topicIdPartition(),
                e.toString());
        return aborted(partitionLog, section, stats, swapped);
    }

    /**
     * Fills the map with the keyed records from the first dirty offset on; returns the offset it
     * stopped at (exclusive), a batch boundary or the first uncleanable offset.
     */
    private long buildMap(CleanableSection section) {
        map.clear();
        long firstDirty = section.firstDirtyOffset();
        long next = firstDirty;
        List<LogSegment> segments = section.segments();
        for (int i = 0; i < segments.size(); i++) {
            long segmentEnd = section.endOf(i);
            if (segmentEnd <= firstDirty) {
                continue;
            }
            LogSegment segment = segments.get(i);
            Optional<BatchHeader> stop = forEachBatch(segment, header -> header.lastOffset() >= firstDirty, batch -> {
                for (Record record : batch) {
                    if (record.offset() >= firstDirty && record.hasKey()) {
                        map.put(record.key(), record.offset());
                    }
                }
            });
            if (stop.isPresent()) {
                if (stop.get().baseOffset() <= firstDirty) {
                    throw new IllegalStateException(
                            "the dedupe buffer (" + map.maxEntries() + " keys) cannot hold"
                                    + " the batch of " + stop.get().recordCount() + " records at offset "
                                    + stop.get().baseOffset() + " of " + segment
                                    + "; raise log.cleaner.dedupe.buffer.size (each of the log.cleaner.threads holds its share)");
                }
                return stop.get().baseOffset();
            }
            next = segmentEnd;
        }
        return next;
    }

    /**
     * Reads the batches of {@code segment} that {@code wanted} accepts, in reads of at most the I/O
     * buffer, handing each to {@code action}, and stops before the first wanted batch whose records
     * might not fit the map; returns that batch's header, or empty when every batch was handled.
     */
    private Optional<BatchHeader> forEachBatch(
            LogSegment segment, Predicate<BatchHeader> wanted, Consumer<MutableRecordBatch> action) {
        int size = segment.sizeInBytes();
        int position;
        long pendingKeys = 0;
        List<BatchHeader> chunk = new ArrayList<>();
        Optional<BatchHeader> header = segment.readHeader(0, size);
        while (header.isPresent()) {
            checkNotStopped();
            BatchHeader h = header.get();
            if (wanted.test(h)) {
                if (!map.fits(pendingKeys + h.recordCount())) {
                    handle(segment, chunk, action);
                    pendingKeys = 0;
                    if (!map.fits(h.recordCount())) {
                        return Optional.of(h);
                    }
                }
                int chunkBytes = chunk.isEmpty()
                        ? 0
                        : chunk.getLast().position()
                                + chunk.getLast().sizeInBytes()
                                - chunk.getFirst().position();
                if (!chunk.isEmpty() && chunkBytes + h.sizeInBytes() > config.ioBufferBytesPerThread()) {
                    handle(segment, chunk, action);
                    pendingKeys = 0;
                }
                chunk.add(h);
                pendingKeys += h.recordCount();
            }
            position = h.position() + h.sizeInBytes();
            header = segment.readHeader(position, size);
        }
        handle(segment, chunk, action);
        return Optional.empty();
    }

    /**
     * Reads the batches of {@code chunk}, adjacent in the file (the wanted batches of a segment are
     * those from the first whose last offset reaches the first dirty offset on), in one read.
     */
    private void handle(LogSegment segment, List<BatchHeader> chunk, Consumer<MutableRecordBatch> action) {
        if (chunk.isEmpty()) {
            return;
        }
        int from = chunk.getFirst().position();
        int to = chunk.getLast().position() + chunk.getLast().sizeInBytes();
        MemoryRecords records = segment.readBatches(from, to - from);
        throttle.acquire(records.sizeInBytes());
        for (MutableRecordBatch batch : records.batches()) {
            action.accept(batch);
        }
        chunk.clear();
    }

    /** Adjacent segments cleaned into one file, and the offsets they cover. */
    record Group(List<LogSegment> segments, SegmentSwap.Range range) {}

    /**
     * The segments below {@code checkpoint} (the one it falls in included), oldest first, in runs of
     * at most {@code segment.bytes} (a larger segment alone), as Kafka groups them so that cleaned
     * segments do not shrink to nothing.
     */
    private static List<Group> groups(CleanableSection section, long checkpoint) {
        List<Group> groups = new ArrayList<>();
        List<LogSegment> segments = section.segments();
        int segmentBytes = section.config().segmentBytes();
        int i = 0;
        while (i < segments.size() && segments.get(i).baseOffset() < checkpoint) {
            List<LogSegment> run = new ArrayList<>();
            long bytes = 0;
            do {
                run.add(segments.get(i));
                bytes += segments.get(i).sizeInBytes();
                i++;
            } while (i < segments.size()
                    && segments.get(i).baseOffset() < checkpoint
                    && bytes + segments.get(i).sizeInBytes() <= segmentBytes);
            groups.add(new Group(
                    List.copyOf(run), new SegmentSwap.Range(run.getFirst().baseOffset(), section.endOf(i - 1))));
        }
        return groups;
    }

    /** Writes the cleaned replacement of {@code group} and fsyncs it (step 1 of the swap). */
    private void writeCleaned(
            Path dir, Group group, CleanableSection section, long checkpoint, long nowMs, Stats stats) {
        Path cleaned = dir.resolve(SegmentSwap.cleanedFileName(group.range()));
        RetainFilter filter = new RetainFilter(
                nowMs,
                section.config().compaction().deleteRetention().toMillis(),
                map,
                checkpoint,
                section.producerLastOffsets(),
                stats);
        boolean written = false;
        try (FileChannel out = FileChannel.open(cleaned, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (LogSegment segment : group.segments()) {
                int size = segment.sizeInBytes();
                int position = 0;
                while (position < size) {
                    checkNotStopped();
                    int chunkEnd = chunkEnd(segment, position, size);
                    MemoryRecords records = segment.readBatches(position, chunkEnd - position);
                    throttle.acquire(records.sizeInBytes());
                    ByteBuffer output = ByteBuffer.allocate(records.sizeInBytes());
                    MemoryRecords.FilterResult result =
                            records.filterTo(filter, output, decompression, Records.SOFT_MAX_ARRAY_LENGTH);
                    stats.bytesRead += result.bytesRead();
                    stats.recordsRead += result.messagesRead();
                    stats.recordsRetained += result.messagesRetained();
                    ByteBuffer filtered = result.outputBuffer();
                    filtered.flip();
                    int filteredBytes = filtered.remaining();
                    stats.bytesWritten += filteredBytes;
                    while (filtered.hasRemaining()) {
                        out.write(filtered);
                    }
                    throttle.acquire(filteredBytes);
                    position = chunkEnd;
                }
            }
            observer.after(SwapObserver.Step.CLEANED_WRITTEN, cleaned);
            out.force(true);
            written = true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + cleaned, e);
        } finally {
            if (!written) {
                deleteQuietly(cleaned);
            }
        }
        observer.after(SwapObserver.Step.CLEANED_SYNCED, cleaned);
    }

    /** The end of the whole batches from {@code position} that fit one I/O buffer (at least one batch). */
    private int chunkEnd(LogSegment segment, int position, int size) {
        int end = position;
        Optional<BatchHeader> header = segment.readHeader(position, size);
        while (header.isPresent()) {
            int next = header.get().position() + header.get().sizeInBytes();
            if (end > position && next - position > config.ioBufferBytesPerThread()) {
                break;
            }
            end = next;
            header = segment.readHeader(end, size);
        }
        if (end == position) {
            throw new IllegalStateException("no whole batch at byte " + position + " of " + segment);
        }
        return end;
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            log.warn("cannot delete {}", file, e);
        }
    }

    /** Kafka's retention rules for a cleaned record, as a kafka-clients record filter. */
    private static final class RetainFilter extends MemoryRecords.RecordFilter {
        private final OffsetMap map;
        private final long checkpoint;
        private final Map<Long, Long> producerLastOffsets;
        private final Stats stats;

        RetainFilter(
                long nowMs,
                long deleteRetentionMs,
                OffsetMap map,
                long checkpoint,
                Map<Long, Long> producerLastOffsets,
                Stats stats) {
            super(nowMs, deleteRetentionMs);
            this.map = map;
            this.checkpoint = checkpoint;
            this.producerLastOffsets = producerLastOffsets;
            this.stats = stats;
        }

        @Override
        protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
            Long last = batch.hasProducerId() ? producerLastOffsets.get(batch.producerId()) : null;
            boolean newestOfProducer = last != null && last == batch.lastOffset();
            return new BatchRetentionResult(
                    newestOfProducer ? BatchRetention.RETAIN_EMPTY : BatchRetention.DELETE_EMPTY, false);
        }

        @Override
        protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
            boolean retained = retains(batch, record);
            if (retained && !record.hasValue()) {
                // The batch keeps its delete horizon, or gets now + delete.retention.ms (filterTo).
                long horizon = batch.deleteHorizonMs().orElse(currentTime + deleteRetentionMs);
                stats.earliestTombstoneHorizonMs = Math.min(stats.earliestTombstoneHorizonMs, horizon);
            }
            return retained;
        }

        private boolean retains(RecordBatch batch, Record record) {
            if (record.offset() >= checkpoint) {
                return true;
            }
            if (!record.hasKey()) {
                return false;
            }
            if (map.get(record.key()) > record.offset()) {
                return false;
            }
            if (record.hasValue()) {
                return true;
            }
            OptionalLong horizon = batch.deleteHorizonMs();
            return horizon.isEmpty() || currentTime < horizon.getAsLong();
        }
    }

    private static final class Stats {
        long bytesRead;
        long bytesWritten;
        long recordsRead;
        long recordsRetained;
        long earliestTombstoneHorizonMs = Long.MAX_VALUE;
        double bufferUtilization;

        CleanResult result(
                CleanResult.Outcome outcome,
                long firstDirty,
                long checkpoint,
                CleanableSection section,
                int segmentsSwapped) {
            return new CleanResult(
                    outcome,
                    firstDirty,
                    checkpoint,
                    section.firstUncleanableOffset(),
                    segmentsSwapped,
                    bytesRead,
                    bytesWritten,
                    recordsRead,
                    recordsRetained,
                    earliestTombstoneHorizon(),
                    bufferUtilization);
        }

        OptionalLong earliestTombstoneHorizon() {
            return earliestTombstoneHorizonMs == Long.MAX_VALUE
                    ? OptionalLong.empty()
                    : OptionalLong.of(earliestTombstoneHorizonMs);
        }
    }
}
