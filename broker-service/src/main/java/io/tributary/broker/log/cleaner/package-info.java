/**
 * The log cleaner: compaction of partition logs whose {@code cleanup.policy} has {@code compact},
 * with Kafka's semantics. Plain Java, no Spring; its clock and bounds come through constructors.
 *
 * <h2>Flow of one pass ({@link io.tributary.broker.log.cleaner.Cleaner})</h2>
 *
 * <pre>
 *  PartitionLog.compaction().cleanableSection(highWatermark)  (under the log's lock: a consistent snapshot)
 *     |   [logStart .. firstDirty)   clean: deduplicated by earlier passes
 *     |   [firstDirty .. firstUncleanable)   dirty: segments closed, fsynced, committed, older than
 *     |                                      min.compaction.lag.ms
 *     v
 *  OffsetMap  &lt;- key digest -&gt; latest offset, for the dirty records (bounded: a full map ends the
 *     |          pass at a batch boundary, the new checkpoint; the rest is the next pass)
 *     v
 *  groups of segments below the checkpoint (at most segment.bytes each)
 *     |   each: MemoryRecords.filterTo into {@code <base>-<end>.cleaned}, fsync
 *     v
 *  CompactionHooks.swapInCleaned (io.tributary.broker.log.SegmentSwap: .cleaned -&gt; .swap -&gt; index
 *     batch -&gt; originals renamed .log.deleted (deleted after file.delete.delay.ms) -&gt; .swap renamed
 *     .log); the last swap stores the checkpoint in partition_state; a SwapObserver (no-op but in
 *     crash tests) hears each file operation
 * </pre>
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>Offsets are never renumbered: a kept record keeps its offset, a kept batch its base offset,
 *       last offset, producer id, epoch and base sequence; only the segment holding it may change.
 *   <li>Below the checkpoint, each key has at most one record, the latest below the checkpoint;
 *       at and past it, nothing is removed.
 *   <li>A tombstone is kept until {@code delete.retention.ms} after its batch was first rewritten by
 *       a pass (the batch's delete horizon), then dropped by the next pass.
 *   <li>The newest batch of every producer the log knows survives, emptied if need be.
 *   <li>The active segment, segments above the recovery point and records at or above the high
 *       watermark are never cleaned.
 *   <li>A crash at any point of a pass leaves either the original segments or their cleaned
 *       replacement, with matching index entries, once the log is opened.
 * </ul>
 *
 * <h2>Threads ({@code log.cleaner.threads})</h2>
 *
 * <pre>
 *  LogCleaner (one per broker; shared by its threads)
 *     |  InProgressCleanings: the logs being cleaned; choosing a log and marking it is one step
 *     |  uncleanable partitions; one IoThrottle (io.max.bytes.per.second for all threads together)
 *     |  stop signal; gauges aggregated over the threads (largest, or summed as Kafka's)
 *     +-- CleanerThread 0 .. threads-1  (one platform thread each: the app's LogCleanerRunner)
 *            own Cleaner with its OffsetMap of dedupe.buffer.size / threads; own last-pass stats
 *            round: measure the logs not in progress -&gt; dirtiest due -&gt; mark -&gt; pass -&gt; unmark
 * </pre>
 *
 * <p>Invariant: at most one thread is inside a pass over a given log (the mark is taken under the
 * lock with the choice and removed in a {@code finally}, an {@link Error} included); a log being
 * truncated, deleted or closed under a pass makes the pass's swap refuse, as with one thread.
 * {@link io.tributary.broker.log.cleaner.PassObserver} hears each pass start and end (a seam for
 * tests).
 *
 * <p>{@link io.tributary.broker.log.cleaner.CleanerThread} runs rounds (the dirtiest due log no
 * other thread is cleaning, one pass; a log whose cleaning fails at any step is marked uncleanable
 * and skipped by every thread, and the round goes on with the next); the broker runs each thread's
 * rounds on its own {@code log-cleaner-<i>} thread ({@code ReplicaManager.runCleaner}, scheduled by
 * the app's {@code LogCleanerRunner}, which counts the threads that died), forgets a partition
 * leaving the broker, and stops the cleaner before the logs close (every running pass ends at its
 * next read). {@link io.tributary.broker.log.cleaner.IoThrottle} bounds the passes' I/O ({@code
 * log.cleaner.io.max.bytes.per.second}); {@link io.tributary.broker.log.cleaner.CleanerMetrics} is
 * what they report (the app implements it with Micrometer).
 */
package io.tributary.broker.log.cleaner;
