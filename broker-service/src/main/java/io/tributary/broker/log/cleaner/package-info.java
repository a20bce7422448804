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
 * <p>{@link io.tributary.broker.log.cleaner.LogCleaner} runs rounds (the dirtiest due log, one
 * pass; a log whose cleaning fails at any step is marked uncleanable and skipped, and the round goes
 * on with the next); the broker runs them on one {@code log-cleaner} thread ({@code
 * ReplicaManager.runCleaner}, scheduled by the app's {@code LogCleanerRunner}), which forgets a
 * partition leaving the broker and is stopped before the logs close (a running pass ends at its next
 * read). {@link io.tributary.broker.log.cleaner.IoThrottle} bounds the pass's I/O ({@code
 * log.cleaner.io.max.bytes.per.second}); {@link io.tributary.broker.log.cleaner.CleanerMetrics} is
 * what it reports (the app implements it with Micrometer). Not yet here (issue 17): several cleaner
 * threads ({@code log.cleaner.threads}).
 */
package io.tributary.broker.log.cleaner;
