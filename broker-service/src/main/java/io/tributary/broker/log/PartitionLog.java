package io.tributary.broker.log;

import io.tributary.broker.log.index.Durability;
import io.tributary.broker.log.index.EpochEntry;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.broker.log.index.OffsetPosition;
import io.tributary.broker.log.index.PartitionIndex;
import io.tributary.broker.log.index.PartitionState;
import io.tributary.broker.log.index.TimestampOffset;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one partition replica: segments of Kafka record batches in {@code
 * <data>/<topic>-<partition>/}, indexed in the broker's {@link IndexStore}.
 *
 * <h2>Thread-safety</h2>
 *
 * <p>One writer at a time: every mutating method (appends, roll, truncation, deletion, retention,
 * flush, close) holds this log's writer lock, so concurrent callers are serialised; the replication
 * layer is expected to have one writer per partition anyway. Readers ({@link #read}, the offset
 * queries, the getters) take no lock and never wait for the writer. They see the log up to the
 * published end: after a write completes, the writer publishes the log end offset together with the
 * segment and byte position it corresponds to in one volatile write ({@link LogEnd}), and a reader
 * bounds itself by the end it read, so it never sees a partly written batch. A segment that a
 * truncation, DeleteRecords, retention or a cleaner swap removes from the log is not closed at once:
 * its file is renamed {@code <base>.log.deleted} and stays open for {@code file.delete.delay.ms}
 * ({@code SegmentDeleter}; {@link #deleteRetiredSegments} closes and deletes it after that), so a
 * reader that found it just before, or a region of it being sent, reads the old bytes. A reader
 * holding a region past the delay, or of the active segment's bytes cut by a truncation, may get an
 * error or bytes that are gone; it retries (as a Kafka fetch would after {@code
 * OFFSET_OUT_OF_RANGE}).
 *
 * <h2>Compaction</h2>
 *
 * <p>The log cleaner (package {@code log.cleaner}) works through the log's {@link CompactionHooks}
 * ({@link #compaction()}): it reads closed segments without the lock, from a {@link
 * CompactionHooks#cleanableSection} taken under it, and swaps its cleaned files in with {@link
 * CompactionHooks#swapInCleaned} under the lock, following {@link SegmentSwap}'s crash-safe protocol; opening
 * finishes or drops a swap a crash interrupted. Reads by offset land on the next surviving batch
 * (offsets are never renumbered; a gap is skipped as in a follower's copy of a compacted log).
 *
 * <h2>Durability and recovery</h2>
 *
 * <p>Everything below the recovery point is fsynced and its index entries are durable (the index
 * memtables are flushed before a recovery point is persisted; see {@link IndexStore}). The recovery
 * point advances on every flush ({@code flush.messages}, {@code flush.ms}, {@link #flush()}), after
 * each roll and at clean close. A roll does not fsync on the appending thread: it hands the closed
 * segments to the roll flusher (an {@link Executor}, usually the broker's {@link RollFlusher}),
 * which fsyncs them and the index and then, under the writer lock, moves the recovery point to the
 * rolled segment's end, never past the log end nor past the end of a truncation made meanwhile
 * (a full truncation cancels the move), and persists it. A clean close flushes everything itself,
 * pending roll flushes included, before recording the clean shutdown; a roll flush finishing after
 * the close changes nothing. A clean close records that the log
 * needs no rescan; opening after it reads only the partition state and the file sizes. After any
 * other stop, opening validates the segment containing the recovery point and every later one,
 * batch by batch, truncates at the first bad byte, deletes the segments after it, and rebuilds the
 * index from that segment on.
 */
public final class PartitionLog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

    /** ListOffsets' special timestamps (Kafka's {@code ListOffsetsRequest} constants). */
    public static final long EARLIEST_TIMESTAMP = -2L;

    public static final long LATEST_TIMESTAMP = -1L;
    public static final long MAX_TIMESTAMP = -3L;

    /**
     * A default for the bound on one retention run, {@link #deleteExpiredSegments(int)}: deleting a
     * segment costs an unlink and two RocksDB range deletions, so 16 keeps a run in the
     * milliseconds while a scheduler running every few minutes still catches up with any realistic
     * backlog (Kafka's {@code log.retention.check.interval.ms} is 5 minutes).
     */
    public static final int DEFAULT_RETENTION_SEGMENTS_PER_RUN = 16;

    /**
     * The published end of the log: readers read this once and stay below it.
     *
     * @param nextOffset the log end offset
     * @param segment the active segment
     * @param position the byte in {@code segment} where the next batch will go
     */
    record LogEnd(long nextOffset, LogSegment segment, int position) {}

    private final TopicIdPartition partition;
    private final Path dir;
    private volatile LogConfig config;
    private final ProducerStateConfig producerConfig;
    private final PartitionIndex index;
    private final InstantSource clock;
    private final Executor rollFlusher;
    private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
    private final SegmentDeleter deleter;
    private final Object writeLock = new Object();

    private volatile LogEnd end;
    private volatile long logStartOffset;
    private volatile long recoveryPoint;
    private volatile List<EpochEntry> leaderEpochs = List.of();
    /** The log cleaner's hooks and checkpoint. */
    private final CompactionHooks compaction;

    private final RecoveryReport openReport;

    // Writer state, guarded by writeLock.
    private long maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
    private long offsetOfMaxTimestampSoFar = -1;
    private long lastTimeEntryTimestamp = RecordBatch.NO_TIMESTAMP;
    private long bytesSinceLastIndexEntry;
    private long unflushedMessages;
    private long lastFlushMs;
    private boolean closed;
    private final ProducerState producers = new ProducerState();
    private final List<PendingRollFlush> pendingRollFlushes = new ArrayList<>();
    private CompletableFuture<Long> lastRollFlush = CompletableFuture.completedFuture(0L);

    /**
     * A roll's flush handed to the roll flusher, guarded by the writer lock: the recovery point it
     * may move to, lowered by a truncation below it; {@code cancelled} by a full truncation.
     */
    private static final class PendingRollFlush {
        long target;
        boolean cancelled;
        final CompletableFuture<Long> done = new CompletableFuture<>();

        PendingRollFlush(long target) {
            this.target = target;
        }
    }

    private PartitionLog(
            TopicIdPartition partition,
            Path dir,
            LogConfig config,
            ProducerStateConfig producerConfig,
            IndexStore store,
            InstantSource clock,
            Executor rollFlusher) {
        this.partition = partition;
        this.rollFlusher = rollFlusher;
        this.dir = dir;
        this.config = config;
        this.producerConfig = producerConfig;
        this.index = store.partition(partition.topicId(), partition.partition());
        this.clock = clock;
        this.lastFlushMs = clock.millis();
        this.deleter = new SegmentDeleter(clock);
        this.compaction = new CompactionHooks(this, writeLock, index, segments, deleter);
        synchronized (writeLock) {
            this.openReport = load();
            loadOrRebuildProducerState();
        }
    }

    /**
     * Opens (creating if needed) the log of {@code partition} in {@code <dataDir>/<topic>-<partition>},
     * recovering it if it was not closed cleanly.
     */
    public static PartitionLog open(
            Path dataDir, TopicIdPartition partition, LogConfig config, IndexStore store, InstantSource clock) {
        return open(dataDir, partition, config, ProducerStateConfig.defaults(), store, clock);
    }

    /**
     * {@link #open(Path, TopicIdPartition, LogConfig, IndexStore, InstantSource)} with producer-state
     * bounds; a roll fsyncs the closed segment on the appending thread.
     */
    public static PartitionLog open(
            Path dataDir,
            TopicIdPartition partition,
            LogConfig config,
            ProducerStateConfig producerConfig,
            IndexStore store,
            InstantSource clock) {
        return open(dataDir, partition, config, producerConfig, store, clock, Runnable::run);
    }

    /**
     * Opens the log with a roll flusher that fsyncs rolled segments off the appending thread (the
     * broker's {@link RollFlusher}); {@code Runnable::run} flushes on the appending thread.
     */
    public static PartitionLog open(
            Path dataDir,
            TopicIdPartition partition,
            LogConfig config,
            ProducerStateConfig producerConfig,
            IndexStore store,
            InstantSource clock,
            Executor rollFlusher) {
        Objects.requireNonNull(partition.topicId(), "topic id");
        Path dir = dataDir.resolve(partition.topic() + "-" + partition.partition());
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        return new PartitionLog(
                partition,
                dir,
                Objects.requireNonNull(config),
                Objects.requireNonNull(producerConfig),
                store,
                Objects.requireNonNull(clock),
                Objects.requireNonNull(rollFlusher, "rollFlusher"));
    }

    // ------------------------------------------------------------------------------------------
    // Writes

    /**
     * Appends a producer's batches as the partition leader in {@code leaderEpoch}: validates them,
     * assigns offsets from the log end, stamps the epoch (and LogAppendTime when configured) by
     * rewriting headers in place. The caller hands over {@code records}; they are modified.
     *
     * <p>Batches of idempotent producers are checked against the producer state in the same
     * critical section as the offset assignment (see {@link ProducerState}): a retried batch is not
     * written and is answered with its original offsets ({@link AppendResult#duplicate()}).
     *
     * @throws OutOfOrderSequenceException a producer's sequence would have a hole
     * @throws InvalidProducerEpochException a producer's epoch is older than the one seen
     * @throws TransactionsUnsupportedException a transactional or control batch
     */
    public AppendResult appendAsLeader(MemoryRecords records, int leaderEpoch) {
        synchronized (writeLock) {
            ensureOpen();
            long nowMs = clock.millis();
            ValidatedAppend append = AppendValidator.assignOffsetsAsLeader(
                    partition.topicPartition(), records, end.nextOffset(), leaderEpoch, config, nowMs);
            refuseTransactions(append);
            ProducerState.Analysis analysis = producers.analyze(append.batches(), nowMs);
            if (analysis.duplicate().isPresent()) {
                ProducerState.BatchMetadata original = analysis.duplicate().get();
                log.debug(
                        "{}: duplicate batch answered with its original offsets {}..{}",
                        partition,
                        original.firstOffset(),
                        original.lastOffset());
                return new AppendResult(
                        original.firstOffset(), original.lastOffset(), OptionalLong.empty(), logStartOffset, true);
            }
            write(append, nowMs);
            producers.commit(analysis);
            return new AppendResult(
                    append.firstOffset(),
                    append.lastOffset(),
                    append.logAppendTimeMs(),
                    logStartOffset,
                    false,
                    append.recompression());
        }
    }

    /**
     * Transactional and control batches are refused until markers, the last stable offset and
     * read_committed fetches are in (issue 18): a transaction whose records read_committed readers
     * could see before it commits would break its promise.
     */
    private static void refuseTransactions(ValidatedAppend append) {
        for (BatchHeader batch : append.batches()) {
            if (batch.isTransactional() || batch.isControl()) {
                throw new TransactionsUnsupportedException(
                        "transactional batch of producer " + batch.producerId() + ": transactions are not supported");
            }
        }
    }

    /** Appends batches fetched from the leader, keeping their offsets, which must continue the log. */
    public AppendResult appendAsFollower(MemoryRecords records) {
        synchronized (writeLock) {
            ensureOpen();
            ValidatedAppend append = AppendValidator.validateAsFollower(records, end.nextOffset());
            long nowMs = clock.millis();
            write(append, nowMs);
            append.batches().forEach(batch -> producers.replay(batch, nowMs));
            return new AppendResult(append.firstOffset(), append.lastOffset(), OptionalLong.empty(), logStartOffset);
        }
    }

    private void write(ValidatedAppend append, long nowMs) {
        if (append.sizeInBytes() > config.segmentBytes()) {
            throw new RecordTooLargeException("append of " + append.sizeInBytes()
                    + " bytes is larger than segment.bytes " + config.segmentBytes());
        }
        LogSegment active = end.segment();
        if (shouldRoll(active, append, nowMs)) {
            active = rollAt(append.firstOffset(), nowMs);
        }
        int position = active.append(append.records());
        for (BatchHeader relative : append.batches()) {
            BatchHeader header = relative.at(position + relative.position());
            indexBatch(active, header);
            active.observe(header);
            noteLeaderEpoch(header);
        }
        end = new LogEnd(append.lastOffset() + 1, active, position + append.sizeInBytes());
        unflushedMessages += append.recordCount();
        if (log.isTraceEnabled()) {
            log.trace(
                    "{}: appended offsets {}..{} at byte {} of {}",
                    partition,
                    append.firstOffset(),
                    append.lastOffset(),
                    position,
                    active);
        }
        boolean flushByCount = config.flushMessages().isPresent()
                && unflushedMessages >= config.flushMessages().getAsLong();
        if (flushByCount || flushIntervalElapsed(nowMs)) {
            flushLocked(nowMs);
        }
    }

    private boolean shouldRoll(LogSegment active, ValidatedAppend append, long nowMs) {
        int size = active.sizeInBytes();
        if (size == 0) {
            return false;
        }
        if ((long) size + append.sizeInBytes() > config.segmentBytes()) {
            return true;
        }
        long ageMs;
        if (active.rollsByRecordTime()) {
            long incomingMax = Long.MIN_VALUE; // a validated append has at least one batch
            for (BatchHeader header : append.batches()) {
                incomingMax = Math.max(incomingMax, header.maxTimestamp());
            }
            ageMs = incomingMax - active.rollBaseMs();
        } else {
            ageMs = nowMs - active.rollBaseMs();
        }
        // strictly older, as Kafka's LogSegment.shouldRoll: a batch exactly segment.ms (less the
        // segment's jitter) after the segment's first stays in it
        return ageMs > config.segmentTime().toMillis() - config.segmentJitterMs(partition, active.baseOffset());
    }

    /** Rolls the active segment now, if it holds any batch: later appends go to a new segment. */
    public void roll() {
        synchronized (writeLock) {
            ensureOpen();
            if (end.segment().sizeInBytes() > 0) {
                LogSegment segment = rollAt(end.nextOffset(), clock.millis());
                end = new LogEnd(end.nextOffset(), segment, 0);
            }
        }
    }

    private LogSegment rollAt(long baseOffset, long nowMs) {
        LogSegment old = end.segment();
        LogSegment segment = LogSegment.create(dir, baseOffset, nowMs);
        segments.put(baseOffset, segment);
        log.info(
                "{}: rolled segment {} ({} bytes); new segment {}",
                partition,
                old.path().getFileName(),
                old.sizeInBytes(),
                segment.path().getFileName());
        // The closed segment will not change again: make it durable and move the recovery point past
        // it, so that a crash never rescans closed segments. Off the appending thread, as Kafka's
        // roll schedules its flush.
        scheduleRollFlush(baseOffset);
        return segment;
    }

    /**
     * Hands the segments below {@code target} not yet under the recovery point to the roll flusher.
     * Writer lock held.
     */
    private void scheduleRollFlush(long target) {
        if (target <= recoveryPoint) {
            return;
        }
        Long from = segments.floorKey(recoveryPoint);
        List<LogSegment> toFlush =
                List.copyOf(segments.subMap(from == null ? segments.firstKey() : from, true, target, false)
                        .values());
        PendingRollFlush pending = new PendingRollFlush(target);
        pendingRollFlushes.add(pending);
        lastRollFlush = pending.done;
        rollFlusher.execute(() -> runRollFlush(pending, toFlush));
    }

    /**
     * Fsyncs {@code toFlush} and the index without the writer lock, then moves the recovery point
     * to what is still valid of the pending flush's target. A segment deleted meanwhile (truncation,
     * retention, DeleteRecords) or closed with the log fails its fsync with {@link
     * ClosedChannelException}: its data is gone or the close flushed it, so it is skipped.
     */
    private void runRollFlush(PendingRollFlush pending, List<LogSegment> toFlush) {
        try {
            List<LogSegment> unflushed = new ArrayList<>();
            for (LogSegment segment : toFlush) {
                try {
                    segment.flush();
                } catch (UncheckedIOException e) {
                    if (!(e.getCause() instanceof ClosedChannelException)) {
                        throw e;
                    }
                    unflushed.add(segment);
                }
            }
            index.flushIndex();
            synchronized (writeLock) {
                pendingRollFlushes.remove(pending);
                if (closed || pending.cancelled) {
                    pending.done.complete(recoveryPoint);
                    return;
                }
                for (LogSegment segment : unflushed) {
                    if (segments.get(segment.baseOffset()) == segment) {
                        throw new IllegalStateException(segment.path() + " was closed while still in the log");
                    }
                }
                long target = Math.min(pending.target, end.nextOffset());
                if (target > recoveryPoint) {
                    recoveryPoint = target;
                    persistState(PartitionState.Shutdown.UNCLEAN, Durability.NO_SYNC);
                }
                pending.done.complete(recoveryPoint);
            }
        } catch (RuntimeException e) {
            log.error("{}: flush of rolled segments failed; the recovery point stays", partition, e);
            synchronized (writeLock) {
                pendingRollFlushes.remove(pending);
            }
            pending.done.completeExceptionally(e);
        }
    }

    /**
     * The newest roll's flush: completes with the recovery point after it ran (for tests; a roll
     * without anything to flush leaves the previous one).
     */
    CompletableFuture<Long> lastRollFlush() {
        synchronized (writeLock) {
            return lastRollFlush;
        }
    }

    /**
     * Indexes a batch just written or validated: an offset entry for the first batch of each segment
     * and then once more than {@code index.interval.bytes} have been written since the previous
     * entry, and at the same points a time entry if the largest timestamp so far has grown.
     */
    private void indexBatch(LogSegment segment, BatchHeader header) {
        noteTimestamp(header);
        if (header.position() == 0 || bytesSinceLastIndexEntry > config.indexIntervalBytes()) {
            index.putOffset(new OffsetPosition(header.baseOffset(), segment.baseOffset(), header.position()));
            if (maxTimestampSoFar > lastTimeEntryTimestamp) {
                index.putTime(new TimestampOffset(maxTimestampSoFar, offsetOfMaxTimestampSoFar));
                lastTimeEntryTimestamp = maxTimestampSoFar;
            }
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += header.sizeInBytes();
    }

    private void noteLeaderEpoch(BatchHeader header) {
        int epoch = header.partitionLeaderEpoch();
        if (epoch == RecordBatch.NO_PARTITION_LEADER_EPOCH) {
            return;
        }
        List<EpochEntry> current = leaderEpochs;
        if (current.isEmpty() || epoch > current.getLast().epoch()) {
            List<EpochEntry> next = new ArrayList<>(current);
            next.add(new EpochEntry(epoch, header.baseOffset()));
            leaderEpochs = List.copyOf(next);
        }
    }

    /**
     * Removes every batch at or above the batch containing {@code offset}, for a follower diverging
     * from its leader. The log end becomes the end of the last batch kept (so {@code offset} itself
     * when it is a batch boundary). Below the log start offset, truncates fully and restarts at
     * {@code offset}, as Kafka does. At or past the log end, does nothing.
     */
    public void truncateTo(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        synchronized (writeLock) {
            ensureOpen();
            if (offset >= end.nextOffset()) {
                return;
            }
            if (offset < logStartOffset) {
                truncateFullyAndStartAt(offset);
                return;
            }
            long oldEnd = end.nextOffset();
            int segmentsDeleted = 0;
            for (Long base : List.copyOf(segments.tailMap(offset, false).keySet())) {
                retire(segments.remove(base));
                segmentsDeleted++;
            }
            LogSegment active = segments.lastEntry().getValue();
            Optional<BatchHeader> first = locate(active, offset, active.sizeInBytes());
            int cut = first.map(BatchHeader::position).orElse(active.sizeInBytes());
            // Everything from the batch containing the offset goes; the log end becomes that batch's
            // base offset (the offset itself when no batch contains it, as in Kafka), but never
            // drops below the log start (a batch straddling it may go, the start stays).
            long removedFrom = first.map(BatchHeader::baseOffset).orElse(offset);
            // An offset in a gap between batches (a follower's copy of a compacted log) is itself the end.
            long newEnd = Math.max(Math.min(removedFrom, offset), logStartOffset);
            active.truncateTo(cut);
            active.flush();
            index.deleteOffsetsFrom(removedFrom);
            index.deleteTimesFrom(removedFrom);
            long truncatedEnd = newEnd;
            leaderEpochs = leaderEpochs.stream()
                    .filter(e -> e.startOffset() < truncatedEnd)
                    .toList();
            recoveryPoint = Math.min(recoveryPoint, newEnd);
            compaction.truncatedTo(newEnd);
            // A pending roll flush may move the recovery point only to what is left of its segments:
            // batches appended from here on are not in what it fsyncs.
            pendingRollFlushes.forEach(p -> p.target = Math.min(p.target, newEnd));
            persistState(PartitionState.Shutdown.UNCLEAN, Durability.SYNC);
            end = new LogEnd(newEnd, active, cut);
            restoreIndexingState();
            rebuildProducerState();
            log.info(
                    "{}: truncated to offset {} (log end {} -> {}), {} at byte {}, {} later segments deleted",
                    partition,
                    offset,
                    oldEnd,
                    newEnd,
                    active.path().getFileName(),
                    cut,
                    segmentsDeleted);
        }
    }

    /** Deletes every segment and index entry and restarts the log, empty, at {@code offset}. */
    public void truncateFullyAndStartAt(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        synchronized (writeLock) {
            ensureOpen();
            long oldEnd = end.nextOffset();
            // Every segment a pending roll flush covers goes; the recovery point restarts at offset.
            pendingRollFlushes.forEach(p -> p.cancelled = true);
            for (Long base : List.copyOf(segments.keySet())) {
                retire(segments.remove(base));
            }
            index.deleteOffsetsFrom(0);
            index.deleteTimesFrom(0);
            leaderEpochs = List.of();
            LogSegment segment = LogSegment.create(dir, offset, clock.millis());
            segments.put(offset, segment);
            logStartOffset = offset;
            recoveryPoint = offset;
            end = new LogEnd(offset, segment, 0);
            resetIndexingState();
            producers.clear();
            compaction.restartedAt(offset);
            persistState(PartitionState.Shutdown.UNCLEAN, Durability.SYNC);
            log.info("{}: truncated fully (log end was {}) and restarted at offset {}", partition, oldEnd, offset);
        }
    }

    /**
     * Moves the log start offset up to {@code offset} (Kafka's DeleteRecords) and deletes the closed
     * segments that lie wholly below it. Reads below the new start fail from now on.
     *
     * @throws OffsetOutOfRangeException if {@code offset} is past the log end
     */
    public void deleteRecordsBefore(long offset) {
        synchronized (writeLock) {
            ensureOpen();
            if (offset > end.nextOffset()) {
                throw new OffsetOutOfRangeException(
                        "cannot delete records before " + offset + ": the log ends at " + end.nextOffset());
            }
            if (offset <= logStartOffset) {
                return;
            }
            long oldStart = logStartOffset;
            logStartOffset = offset;
            int deleted = deleteSegmentsBelowLogStart();
            log.info("{}: log start offset {} -> {}, {} segments deleted", partition, oldStart, offset, deleted);
        }
    }

    /**
     * Deletes closed segments that retention no longer keeps, oldest first, at most {@code
     * maxSegments} per call (a scheduler calls this periodically; bounded work per run). A segment
     * goes when its largest timestamp is older than {@code retention.ms} or when the log without
     * it is still at least {@code retention.bytes}, as in Kafka. The active segment is never deleted;
     * a segment without any timestamp is kept by time retention. A topic whose {@code cleanup.policy}
     * lacks {@code delete} (compaction only) deletes nothing, as in Kafka.
     */
    public RetentionResult deleteExpiredSegments(int maxSegments) {
        if (maxSegments < 1) {
            throw new IllegalArgumentException("maxSegments must be at least 1: " + maxSegments);
        }
        synchronized (writeLock) {
            ensureOpen();
            if (!config.compaction().deletes()) {
                return new RetentionResult(0, 0, logStartOffset);
            }
            long nowMs = clock.millis();
            LogSegment active = end.segment();
            long totalBytes = 0;
            for (LogSegment segment : segments.values()) {
                totalBytes += segment == active ? end.position() : segment.sizeInBytes();
            }
            int deleted = 0;
            long bytesDeleted = 0;
            long newStart = logStartOffset;
            for (Map.Entry<Long, LogSegment> entry : segments.entrySet()) {
                LogSegment segment = entry.getValue();
                if (deleted >= maxSegments || segment == active) {
                    break;
                }
                int size = segment.sizeInBytes();
                OptionalLong largest = segment.largestTimestampMs(size);
                boolean expiredByTime = config.retentionTime().isPresent()
                        && largest.isPresent()
                        && nowMs - largest.getAsLong()
                                > config.retentionTime().get().toMillis();
                boolean expiredBySize = config.retentionBytes().isPresent()
                        && totalBytes - size >= config.retentionBytes().getAsLong();
                if (!expiredByTime && !expiredBySize) {
                    break;
                }
                newStart = Math.max(newStart, segments.higherKey(entry.getKey()));
                totalBytes -= size;
                bytesDeleted += size;
                deleted++;
            }
            if (deleted > 0) {
                long oldStart = logStartOffset;
                logStartOffset = newStart;
                deleteSegmentsBelowLogStart();
                log.info(
                        "{}: retention deleted {} segments ({} bytes); log start offset {} -> {}",
                        partition,
                        deleted,
                        bytesDeleted,
                        oldStart,
                        newStart);
            }
            return new RetentionResult(deleted, bytesDeleted, logStartOffset);
        }
    }

    private int deleteSegmentsBelowLogStart() {
        int deleted = 0;
        while (segments.size() > 1) {
            Map.Entry<Long, LogSegment> first = segments.firstEntry();
            Long next = segments.higherKey(first.getKey());
            if (next > logStartOffset || first.getValue() == end.segment()) {
                break;
            }
            retire(segments.remove(first.getKey()));
            deleted++;
        }
        long firstBase = segments.firstKey();
        index.deleteOffsetsBefore(firstBase);
        index.deleteTimesBefore(firstBase);
        if (maxTimestampSoFar != RecordBatch.NO_TIMESTAMP && offsetOfMaxTimestampSoFar < firstBase) {
            forgetDeletedMaxTimestamp();
        }
        List<EpochEntry> epochs = leaderEpochs;
        List<EpochEntry> kept = new ArrayList<>();
        for (int i = 0; i < epochs.size(); i++) {
            EpochEntry entry = epochs.get(i);
            boolean nextStartsAtOrBelow =
                    i + 1 < epochs.size() && epochs.get(i + 1).startOffset() <= logStartOffset;
            if (nextStartsAtOrBelow) {
                continue;
            }
            kept.add(entry.startOffset() < logStartOffset ? new EpochEntry(entry.epoch(), logStartOffset) : entry);
        }
        leaderEpochs = List.copyOf(kept);
        persistState(PartitionState.Shutdown.UNCLEAN, Durability.NO_SYNC);
        return deleted;
    }

    // ------------------------------------------------------------------------------------------
    // Log cleaner hooks (the cleaner itself is package log.cleaner)

    /** What the log offers its cleaner: its cleanable section, the swap of cleaned segments, its checkpoint. */
    public CompactionHooks compaction() {
        return compaction;
    }

    /** A swap replaced {@code range}: the largest timestamp so far may have gone with it (writer lock held). */
    void afterRangeReplaced(SegmentSwap.Range range) {
        if (offsetOfMaxTimestampSoFar >= range.baseOffset() && offsetOfMaxTimestampSoFar < range.endOffset()) {
            forgetDeletedMaxTimestamp();
        }
    }

    /** For each producer the log knows, the last offset of its newest batch (writer lock held). */
    Map<Long, Long> producerLastOffsets() {
        return producers.lastOffsets();
    }

    /** The published end of the log. */
    LogEnd logEnd() {
        return end;
    }

    InstantSource clock() {
        return clock;
    }

    /** Whether the log is closed (writer lock held). */
    boolean isClosed() {
        return closed;
    }

    /**
     * Replaces the topic configs (segment, retention, flush, size and timestamp bounds); they apply
     * from the next append, roll, flush or retention run.
     */
    public void updateConfig(LogConfig newConfig) {
        Objects.requireNonNull(newConfig, "newConfig");
        synchronized (writeLock) {
            if (!newConfig.equals(config)) {
                log.info("{}: config changed to {}", partition, newConfig);
                config = newConfig;
            }
        }
    }

    /**
     * Records the partition's high watermark (the replication layer owns it; the log keeps the
     * checkpoint so that a restarted replica does not start below it). Ignored once closed.
     */
    public void checkpointHighWatermark(long highWatermark) {
        synchronized (writeLock) {
            if (!closed) {
                index.writeHighWatermark(highWatermark);
            }
        }
    }

    /** The last high-watermark checkpoint, if any. */
    public OptionalLong checkpointedHighWatermark() {
        return index.readHighWatermark().map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    /** Drops the state of producers idle for {@code producer.id.expiration}; returns how many went. */
    public int expireProducers() {
        synchronized (writeLock) {
            ensureOpen();
            return producers.expire(clock.millis(), producerConfig.expiration().toMillis());
        }
    }

    /** The epoch the partition knows for {@code producerId}, if any (for tests and diagnostics). */
    public OptionalInt producerEpoch(long producerId) {
        synchronized (writeLock) {
            return producers
                    .entry(producerId)
                    .map(e -> OptionalInt.of(e.epoch()))
                    .orElse(OptionalInt.empty());
        }
    }

    /**
     * After a clean close, loads the producer snapshot written then (when it describes this log
     * end); otherwise rebuilds the state from the log. Then deletes the snapshot, so that only the
     * open right after a clean close uses one.
     */
    private void loadOrRebuildProducerState() {
        Optional<byte[]> snapshot = index.readProducerSnapshot();
        boolean loaded =
                openReport.cleanShutdown() && snapshot.isPresent() && producers.load(snapshot.get(), end.nextOffset());
        if (!loaded) {
            rebuildProducerState();
        }
        if (snapshot.isPresent()) {
            index.deleteProducerSnapshot();
        }
    }

    /**
     * Rebuilds the producer state from the batch headers of the newest segments that together hold
     * at least {@code producerStateRebuildBytes} (all of them when the log is smaller): see {@link
     * ProducerState}. Reads headers only, never records.
     */
    private void rebuildProducerState() {
        producers.clear();
        LogEnd published = end;
        long covered = 0;
        long from = segments.firstKey();
        for (Map.Entry<Long, LogSegment> entry : segments.descendingMap().entrySet()) {
            from = entry.getKey();
            covered += limitOf(entry.getValue(), published);
            if (covered >= producerConfig.rebuildBytes()) {
                break;
            }
        }
        long nowMs = clock.millis();
        long[] batches = {0};
        batchesFrom(Math.max(from, logStartOffset), published).forEach(located -> {
            producers.replay(located.header(), nowMs);
            batches[0]++;
        });
        if (producers.size() > 0) {
            log.info(
                    "{}: producer state rebuilt from {} batch headers: {} producers",
                    partition,
                    batches[0],
                    producers.size());
        }
    }

    /** Forces everything appended to the device and moves the recovery point to the log end. */
    public void flush() {
        synchronized (writeLock) {
            ensureOpen();
            flushLocked(clock.millis());
        }
    }

    /** Flushes if {@code flush.ms} has passed since the last flush; for a periodic scheduler. */
    public void flushIfDue() {
        synchronized (writeLock) {
            ensureOpen();
            long nowMs = clock.millis();
            if (flushIntervalElapsed(nowMs)) {
                flushLocked(nowMs);
            }
        }
    }

    private boolean flushIntervalElapsed(long nowMs) {
        return config.flushInterval().isPresent()
                && end.nextOffset() > recoveryPoint
                && nowMs - lastFlushMs >= config.flushInterval().get().toMillis();
    }

    private void flushLocked(long nowMs) {
        LogEnd flushed = end;
        if (flushed.nextOffset() > recoveryPoint) {
            Long from = segments.floorKey(recoveryPoint);
            for (LogSegment segment :
                    segments.tailMap(from == null ? segments.firstKey() : from).values()) {
                segment.flush();
            }
            index.flushIndex();
            recoveryPoint = Math.max(recoveryPoint, flushed.nextOffset());
            persistState(PartitionState.Shutdown.UNCLEAN, Durability.NO_SYNC);
        }
        unflushedMessages = 0;
        lastFlushMs = nowMs;
    }

    /**
     * Flushes, records a clean shutdown (so the next open does not rescan), and closes the files.
     * Idempotent.
     */
    @Override
    public void close() {
        synchronized (writeLock) {
            if (closed) {
                return;
            }
            flushLocked(clock.millis());
            // Index entries made while opening (recovery re-indexes from its segment's start) may be
            // buffered even when the recovery point did not move: the clean state promises them.
            index.flushIndex();
            index.writeProducerSnapshot(producers.encode(end.nextOffset()));
            persistState(PartitionState.Shutdown.CLEAN, Durability.SYNC);
            segments.values().forEach(LogSegment::close);
            deleter.deleteAll();
            closed = true;
        }
    }

    /**
     * Closes and deletes the segments this log removed (retention, truncation, a cleaner swap) whose
     * {@code file.delete.delay.ms} has passed on the log's clock; a scheduler calls it periodically.
     * Takes no log lock.
     *
     * @return how many segment files were deleted
     */
    public int deleteRetiredSegments() {
        return deleter.deleteDue();
    }

    /** Segments removed from the log whose files are kept open until their delay has passed. */
    public int retiredSegments() {
        return deleter.pending();
    }

    /**
     * Hands a segment the log no longer holds to the deleter, which deletes it now if its delay is
     * zero (writer lock held).
     */
    private void retire(LogSegment segment) {
        deleter.retire(segment, config.fileDeleteDelay());
        deleter.deleteDue();
    }

    /**
     * Releases the files without flushing or recording a clean shutdown: what a crash leaves behind.
     * For tests of recovery.
     */
    void closeAsIfCrashed() {
        synchronized (writeLock) {
            segments.values().forEach(LogSegment::close);
            deleter.closeAll();
            closed = true;
        }
    }

    private void persistState(PartitionState.Shutdown shutdown, Durability durability) {
        index.writeState(new PartitionState(logStartOffset, recoveryPoint, shutdown, leaderEpochs), durability);
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(partition + ": the log is closed");
        }
    }

    // ------------------------------------------------------------------------------------------
    // Reads (no lock)

    /**
     * Reads from the batch containing {@code fetchOffset}, within one segment, up to {@code
     * maxBytes} and below {@code upperBoundOffset} (exclusive, usually the high watermark: a batch
     * whose last offset reaches it is not returned). As in Kafka, the first batch is returned whole
     * even when larger than {@code maxBytes}, and the region may end inside a later batch when the
     * byte limit falls there (consumers drop a trailing partial batch); it never reaches past the
     * published log end, so it never holds a batch being written.
     *
     * @throws OffsetOutOfRangeException if {@code fetchOffset} is below the log start or past the end
     */
    public ReadResult read(long fetchOffset, int maxBytes, long upperBoundOffset) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("negative maxBytes " + maxBytes);
        }
        LogEnd snapshot = end;
        long start = logStartOffset;
        if (fetchOffset < start || fetchOffset > snapshot.nextOffset()) {
            throw new OffsetOutOfRangeException("offset " + fetchOffset + " is outside " + partition + "'s log ["
                    + start + ", " + snapshot.nextOffset() + "]");
        }
        long upper = Math.min(upperBoundOffset, snapshot.nextOffset());
        if (fetchOffset >= upper) {
            return ReadResult.empty(start, snapshot.nextOffset());
        }
        Map.Entry<Long, LogSegment> entry = segments.floorEntry(fetchOffset);
        while (entry != null) {
            LogSegment segment = entry.getValue();
            int limit = limitOf(segment, snapshot);
            Optional<BatchHeader> first = locate(segment, fetchOffset, limit);
            if (first.isPresent()) {
                BatchHeader head = first.get();
                if (head.lastOffset() >= upper) {
                    return ReadResult.empty(start, snapshot.nextOffset());
                }
                // As Kafka does: the region ends at the first batch reaching the upper bound (found
                // through the index), or at the published end, and is at most maxBytes long, but
                // never shorter than the first batch. It may end inside a later batch; Kafka's
                // clients drop a trailing partial batch, and walking every header to avoid it would
                // cost one read per batch.
                int maxPosition = limit;
                if (upper < snapshot.nextOffset()) {
                    maxPosition = locate(segment, upper, limit)
                            .map(BatchHeader::position)
                            .orElse(limit);
                }
                int from = head.position();
                int size = (int) Math.min((long) maxPosition - from, Math.max(maxBytes, head.sizeInBytes()));
                return new ReadResult(segment.slice(from, size), start, snapshot.nextOffset());
            }
            if (segment == snapshot.segment()) {
                break;
            }
            entry = segments.higherEntry(entry.getKey());
        }
        return ReadResult.empty(start, snapshot.nextOffset());
    }

    /**
     * ListOffsets: {@link #EARLIEST_TIMESTAMP}, {@link #LATEST_TIMESTAMP}, {@link #MAX_TIMESTAMP},
     * or a timestamp (at least 0) for the first record whose timestamp is at least it. Empty when no
     * record qualifies.
     */
    public Optional<TimestampAndOffset> listOffset(long timestamp) {
        if (timestamp == EARLIEST_TIMESTAMP) {
            long start = logStartOffset;
            return Optional.of(new TimestampAndOffset(RecordBatch.NO_TIMESTAMP, start, epochAt(start)));
        }
        if (timestamp == LATEST_TIMESTAMP) {
            long leo = end.nextOffset();
            List<EpochEntry> epochs = leaderEpochs;
            OptionalInt epoch = epochs.isEmpty()
                    ? OptionalInt.empty()
                    : OptionalInt.of(epochs.getLast().epoch());
            return Optional.of(new TimestampAndOffset(RecordBatch.NO_TIMESTAMP, leo, epoch));
        }
        if (timestamp == MAX_TIMESTAMP) {
            return offsetOfMaxTimestamp();
        }
        if (timestamp < 0) {
            throw new IllegalArgumentException("unknown ListOffsets timestamp " + timestamp);
        }
        return offsetForTimestamp(timestamp);
    }

    /**
     * The first record (lowest offset at or above the log start) whose timestamp is at least {@code
     * targetMs}. Uses the time index to skip batches that are all older, then reads batch headers
     * and, for the batch found, its records.
     */
    public Optional<TimestampAndOffset> offsetForTimestamp(long targetMs) {
        LogEnd snapshot = end;
        long start = logStartOffset;
        long from = index.floorTime(targetMs - 1)
                .map(TimestampOffset::offset)
                .map(o -> Math.max(o, start))
                .orElse(start);
        for (Located located :
                (Iterable<Located>) () -> batchesFrom(from, snapshot).iterator()) {
            if (located.header().maxTimestamp() >= targetMs) {
                Optional<TimestampAndOffset> found = firstRecordAtOrAfter(located, targetMs, start);
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The first record with the largest timestamp in the log (ListOffsets {@code MAX_TIMESTAMP}).
     * The time index's last entry holds the largest timestamp up to the last offset-index entry, so
     * only batches from there on are read; if retention removed every time entry at or above the
     * log start, the whole log is read.
     */
    public Optional<TimestampAndOffset> offsetOfMaxTimestamp() {
        LogEnd snapshot = end;
        long start = logStartOffset;
        Optional<TimestampOffset> last = index.lastTime().filter(t -> t.offset() >= start);
        long scanFrom = last.isPresent()
                ? Math.max(start, index.lastOffset().map(OffsetPosition::offset).orElse(start))
                : start;
        long bestTimestamp = last.map(TimestampOffset::timestamp).orElse(RecordBatch.NO_TIMESTAMP);
        long bestOffset = last.map(TimestampOffset::offset).orElse(-1L);
        for (Located located :
                (Iterable<Located>) () -> batchesFrom(scanFrom, snapshot).iterator()) {
            if (located.header().maxTimestamp() > bestTimestamp) {
                bestTimestamp = located.header().maxTimestamp();
                bestOffset = located.header().baseOffset();
            }
        }
        if (bestOffset < 0) {
            return Optional.empty();
        }
        long target = bestTimestamp;
        return batchesFrom(bestOffset, snapshot)
                .findFirst()
                .flatMap(located -> firstRecordAtOrAfter(located, target, start));
    }

    private Optional<TimestampAndOffset> firstRecordAtOrAfter(Located located, long targetMs, long start) {
        RecordBatch batch = located.segment().readBatch(located.header());
        for (Record record : batch) {
            if (record.offset() >= start && record.timestamp() >= targetMs) {
                int epoch = batch.partitionLeaderEpoch();
                return Optional.of(new TimestampAndOffset(
                        record.timestamp(),
                        record.offset(),
                        epoch == RecordBatch.NO_PARTITION_LEADER_EPOCH ? OptionalInt.empty() : OptionalInt.of(epoch)));
            }
        }
        return Optional.empty();
    }

    private OptionalInt epochAt(long offset) {
        OptionalInt epoch = OptionalInt.empty();
        for (EpochEntry entry : leaderEpochs) {
            if (entry.startOffset() <= offset) {
                epoch = OptionalInt.of(entry.epoch());
            }
        }
        return epoch;
    }

    /** A batch header and the segment it is in. */
    record Located(LogSegment segment, BatchHeader header) {}

    /**
     * Batches from the one containing {@code offset} to the published end, across segments, read
     * lazily header by header.
     */
    Stream<Located> batchesFrom(long offset, LogEnd snapshot) {
        Iterator<Located> iterator = new Iterator<>() {
            private Map.Entry<Long, LogSegment> entry =
                    Optional.ofNullable(segments.floorEntry(offset)).orElse(segments.firstEntry());
            private Optional<BatchHeader> next = entry == null
                    ? Optional.empty()
                    : locate(entry.getValue(), offset, limitOf(entry.getValue(), snapshot));

            {
                advanceSegment();
            }

            private void advanceSegment() {
                while (next.isEmpty() && entry != null && entry.getValue() != snapshot.segment()) {
                    entry = segments.higherEntry(entry.getKey());
                    if (entry != null) {
                        next = entry.getValue().readHeader(0, limitOf(entry.getValue(), snapshot));
                    }
                }
            }

            @Override
            public boolean hasNext() {
                return next.isPresent();
            }

            @Override
            public Located next() {
                BatchHeader header = next.orElseThrow(NoSuchElementException::new);
                LogSegment segment = entry.getValue();
                next = segment.readHeader(header.position() + header.sizeInBytes(), limitOf(segment, snapshot));
                advanceSegment();
                return new Located(segment, header);
            }
        };
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(iterator, Spliterator.ORDERED), false);
    }

    /** How far a reader holding {@code snapshot} may read in {@code segment}. */
    private static int limitOf(LogSegment segment, LogEnd snapshot) {
        if (segment == snapshot.segment()) {
            return snapshot.position();
        }
        // A segment rolled after the snapshot was taken holds nothing the snapshot published.
        return segment.baseOffset() > snapshot.segment().baseOffset() ? 0 : segment.sizeInBytes();
    }

    /** The first batch in {@code segment} (below {@code limit}) whose last offset is at least {@code offset}. */
    private Optional<BatchHeader> locate(LogSegment segment, long offset, int limit) {
        Optional<OffsetPosition> entry = index.floorOffset(offset)
                .filter(p -> p.segmentBaseOffset() == segment.baseOffset() && p.position() < limit);
        int position = entry.map(OffsetPosition::position).orElse(0);
        if (entry.isPresent()) {
            // While the cleaner swaps a segment in, the index already describes the cleaned file
            // (same base offset) when a reader may still hold the original: an entry whose batch
            // is not where it says is not this file's, so the walk starts at the file's start.
            Optional<BatchHeader> at = segment.readHeader(position, limit);
            if (at.isEmpty() || at.get().baseOffset() != entry.get().offset()) {
                position = 0;
            }
        }
        Optional<BatchHeader> header;
        while ((header = segment.readHeader(position, limit)).isPresent()) {
            if (header.get().lastOffset() >= offset) {
                return header;
            }
            position += header.get().sizeInBytes();
        }
        return Optional.empty();
    }

    // ------------------------------------------------------------------------------------------
    // Opening and recovery

    private RecoveryReport load() {
        long nowMs = clock.millis();
        SegmentDeleter.deleteLeftovers(dir);
        List<SegmentSwap.Range> finishedSwaps = SegmentSwap.recover(dir);
        List<Long> bases = listSegmentBases();
        Optional<PartitionState> saved = index.readState();
        if (bases.isEmpty()) {
            long start = saved.map(PartitionState::logStartOffset).orElse(0L);
            index.deleteOffsetsFrom(0);
            index.deleteTimesFrom(0);
            LogSegment segment = LogSegment.create(dir, start, nowMs);
            segments.put(start, segment);
            logStartOffset = start;
            recoveryPoint = start;
            end = new LogEnd(start, segment, 0);
            compaction.createdAt(start);
            persistState(PartitionState.Shutdown.UNCLEAN, Durability.SYNC);
            return new RecoveryReport(false, 0, 0, 0);
        }
        for (long base : bases) {
            segments.put(base, LogSegment.open(dir, base, nowMs));
        }
        long firstBase = bases.getFirst();
        logStartOffset =
                Math.max(firstBase, saved.map(PartitionState::logStartOffset).orElse(firstBase));
        leaderEpochs = saved.map(PartitionState::leaderEpochs).orElse(List.of());
        compaction.loaded(logStartOffset);
        long savedRecoveryPoint = saved.map(PartitionState::recoveryPoint).orElse(firstBase);
        LogSegment last = segments.lastEntry().getValue();
        boolean clean = saved.isPresent()
                && saved.get().shutdown() == PartitionState.Shutdown.CLEAN
                && savedRecoveryPoint >= last.baseOffset();
        RecoveryReport report;
        if (clean) {
            recoveryPoint = savedRecoveryPoint;
            end = new LogEnd(savedRecoveryPoint, last, last.sizeInBytes());
            report = new RecoveryReport(true, 0, 0, 0);
        } else {
            report = recover(savedRecoveryPoint);
        }
        for (SegmentSwap.Range swap : finishedSwaps) {
            compaction.redoSwapIndex(swap);
        }
        // Finishes a deletion a crash interrupted, and drops index entries below the first segment.
        // The indexing state is rebuilt after it (restoreIndexingState), so the deletion need not
        // recompute the largest timestamp.
        resetIndexingState();
        deleteSegmentsBelowLogStart();
        // Until the next clean close, a crash must lead to a rescan: record that durably first.
        persistState(PartitionState.Shutdown.UNCLEAN, Durability.SYNC);
        restoreIndexingState();
        return report;
    }

    private List<Long> listSegmentBases() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> LogSegment.parseBaseOffset(p.getFileName().toString()))
                    .filter(OptionalLong::isPresent)
                    .map(OptionalLong::getAsLong)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    private RecoveryReport recover(long fromRecoveryPoint) {
        Long startBase = segments.floorKey(fromRecoveryPoint);
        if (startBase == null) {
            startBase = segments.firstKey();
        }
        long start = startBase;
        index.deleteOffsetsFrom(start);
        index.deleteTimesFrom(start);
        leaderEpochs =
                leaderEpochs.stream().filter(e -> e.startOffset() < start).toList();
        resetIndexingState();
        Optional<TimestampOffset> lastTime = index.lastTime();
        if (lastTime.isPresent()) {
            maxTimestampSoFar = lastTime.get().timestamp();
            offsetOfMaxTimestampSoFar = lastTime.get().offset();
            lastTimeEntryTimestamp = maxTimestampSoFar;
        } else {
            // No time entry survives below the start (retention removed them): the batches kept
            // below it may still hold the largest timestamp, so read their headers.
            for (LogSegment segment : segments.headMap(start, false).values()) {
                int position = 0;
                Optional<BatchHeader> header;
                while ((header = segment.readHeader(position, segment.sizeInBytes())).isPresent()) {
                    noteTimestamp(header.get());
                    position += header.get().sizeInBytes();
                }
            }
        }
        log.info(
                "{}: recovering from offset {} (segment {})", partition, fromRecoveryPoint, LogSegment.fileName(start));
        long next = start;
        long scanned = 0;
        long truncated = 0;
        int deleted = 0;
        LogSegment lastGood = segments.get(start);
        List<LogSegment> toScan = List.copyOf(segments.tailMap(start, true).values());
        for (int i = 0; i < toScan.size(); i++) {
            LogSegment segment = toScan.get(i);
            lastGood = segment;
            bytesSinceLastIndexEntry = 0;
            LogSegment.ScanResult result = segment.scan(0, Math.max(segment.baseOffset(), next), header -> {
                indexBatch(segment, header);
                segment.observe(header);
                noteLeaderEpoch(header);
            });
            scanned += result.validBytes();
            next = result.nextOffset();
            if (result.problem().isPresent()) {
                int size = segment.sizeInBytes();
                log.warn(
                        "{}: recovery truncates {} at byte {} of {}: {}",
                        partition,
                        segment.path(),
                        result.validBytes(),
                        size,
                        result.problem().get());
                truncated += size - result.validBytes();
                segment.truncateTo(result.validBytes());
                segment.flush();
                for (LogSegment later : toScan.subList(i + 1, toScan.size())) {
                    log.warn(
                            "{}: recovery deletes {} ({} bytes), which follows a bad batch",
                            partition,
                            later.path(),
                            later.sizeInBytes());
                    truncated += later.sizeInBytes();
                    segments.remove(later.baseOffset());
                    later.delete();
                    deleted++;
                }
                break;
            }
        }
        // The log end never falls below the log start (records before it may have been deleted,
        // or a truncation may have ended the log in a gap, after the last batch).
        next = Math.max(next, logStartOffset);
        recoveryPoint = Math.min(fromRecoveryPoint, next);
        end = new LogEnd(next, lastGood, lastGood.sizeInBytes());
        log.info(
                "{}: recovered to log end offset {}: {} bytes validated, {} bytes truncated, {} segments deleted",
                partition,
                next,
                scanned,
                truncated,
                deleted);
        return new RecoveryReport(false, scanned, truncated, deleted);
    }

    private void noteTimestamp(BatchHeader header) {
        if (header.maxTimestamp() > maxTimestampSoFar) {
            maxTimestampSoFar = header.maxTimestamp();
            offsetOfMaxTimestampSoFar = header.baseOffset();
        }
    }

    /**
     * After segment deletion took the batch that holds the largest timestamp so far: takes the
     * largest timestamp of the batches left on disk, and the first batch to reach it, instead.
     * Kept, the deleted maximum would do two wrong things. The next offset-index point would write
     * a time entry naming the deleted batch (when the maximum had grown since the last time entry:
     * a roll, then the deletion, then an append). And no batch left, nor any appended until one
     * beats it, would get a time entry, so ListOffsets by timestamp and for the max timestamp would
     * read every batch header from the log start. Both need out-of-order timestamps: with growing
     * ones, the maximum is in the newest batch, in the active segment, which is never deleted.
     *
     * <p>Every time entry names a batch at or below the one holding the maximum (that offset only
     * grows between resets), so none is left below it here: the next index point writes one.
     * Segments cache their largest timestamp ({@link LogSegment#largestTimestampMs}), so this reads
     * the headers of one segment, plus, once, those of segments opened from disk whose largest
     * timestamp retention has not read yet.
     */
    private void forgetDeletedMaxTimestamp() {
        LogEnd published = end;
        LogSegment holder = null;
        long largest = RecordBatch.NO_TIMESTAMP;
        for (LogSegment segment : segments.values()) {
            OptionalLong segmentLargest = segment.largestTimestampMs(limitOf(segment, published));
            if (segmentLargest.isPresent() && segmentLargest.getAsLong() > largest) {
                largest = segmentLargest.getAsLong();
                holder = segment;
            }
        }
        maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = -1;
        if (holder != null) {
            int limit = limitOf(holder, published);
            Optional<BatchHeader> header = holder.readHeader(0, limit);
            while (header.isPresent()) {
                noteTimestamp(header.get());
                header =
                        holder.readHeader(header.get().position() + header.get().sizeInBytes(), limit);
            }
        }
        lastTimeEntryTimestamp =
                index.lastTime().map(TimestampOffset::timestamp).orElse(RecordBatch.NO_TIMESTAMP);
    }

    private void resetIndexingState() {
        maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = -1;
        lastTimeEntryTimestamp = RecordBatch.NO_TIMESTAMP;
        bytesSinceLastIndexEntry = 0;
    }

    /**
     * Rebuilds the writer's indexing state after opening or truncating: the largest timestamp so far
     * is the last time entry's or larger in a batch from the last offset entry on (see {@link
     * #offsetOfMaxTimestamp()}), and the index-interval count restarts.
     */
    private void restoreIndexingState() {
        resetIndexingState();
        index.lastTime().ifPresent(t -> {
            maxTimestampSoFar = t.timestamp();
            offsetOfMaxTimestampSoFar = t.offset();
            lastTimeEntryTimestamp = t.timestamp();
        });
        Optional<OffsetPosition> lastEntry = index.lastOffset();
        LogEnd published = end;
        // Count the bytes since the last offset entry as appends would have, so that the entries
        // depend only on the batch layout, not on when the log was reopened.
        bytesSinceLastIndexEntry = lastEntry
                .filter(e -> e.segmentBaseOffset() == published.segment().baseOffset())
                .map(e -> (long) published.position() - e.position())
                .orElse(0L);
        // The last time entry covers the batches up to the last offset entry. Without any time
        // entry (retention removed them), every batch kept on disk has to be read.
        long from = index.lastTime().isPresent()
                ? lastEntry.map(OffsetPosition::offset).orElse(segments.firstKey())
                : segments.firstKey();
        batchesFrom(from, published).forEach(located -> noteTimestamp(located.header()));
    }

    /** Every batch of every segment, read from the files without the index (for audits and tests). */
    List<Located> scanAllBatches() {
        LogEnd snapshot = end;
        List<Located> out = new ArrayList<>();
        for (LogSegment segment : segments.values()) {
            int limit = limitOf(segment, snapshot);
            Optional<BatchHeader> header = segment.readHeader(0, limit);
            while (header.isPresent()) {
                out.add(new Located(segment, header.get()));
                header = segment.readHeader(
                        header.get().position() + header.get().sizeInBytes(), limit);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------
    // Getters (no lock)

    public LogConfig config() {
        return config;
    }

    public TopicIdPartition topicIdPartition() {
        return partition;
    }

    public Path directory() {
        return dir;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    /** The offset the next appended record will get. */
    public long logEndOffset() {
        return end.nextOffset();
    }

    public long recoveryPoint() {
        return recoveryPoint;
    }

    public List<EpochEntry> leaderEpochs() {
        return leaderEpochs;
    }

    /** What opening this log did (whether it scanned, what it cut). */
    public RecoveryReport openReport() {
        return openReport;
    }

    /** Base offsets of the segments, oldest first. */
    public List<Long> segmentBaseOffsets() {
        return List.copyOf(segments.keySet());
    }

    /** Total bytes of the segments. */
    public long sizeInBytes() {
        return segments.values().stream().mapToLong(LogSegment::sizeInBytes).sum();
    }

    @Override
    public String toString() {
        return "PartitionLog(" + partition + ", " + dir + ")";
    }
}
