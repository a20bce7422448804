/**
 * Partition log storage: segment files of Kafka record batches, the RocksDB offset and time index,
 * recovery and retention. Core: plain Java, no Spring (an architecture test enforces it). Its clock,
 * limits and directories come through constructors.
 *
 * <h2>Flow of an append</h2>
 *
 * <pre>
 *  MemoryRecords (producer bytes)
 *     |  AppendValidator: magic 2, max.message.bytes, CRC, count = lastOffsetDelta + 1;
 *     |  leader: keys (compacted topics), timestamps within TimestampBounds (CreateTime): records
 *     |  read (decompressed when compressed) but not copied or re-encoded
 *     |  leader: setLastOffset / setPartitionLeaderEpoch / setMaxTimestamp (header rewrite, no re-encoding)
 *     |  leader, topic with a compression.type codec: BatchRecompression rewrites batches of another
 *     |  codec into the topic's (offsets, producer fields, records kept)
 *     |  ProducerState: idempotent producers' duplicates, sequence gaps, fenced epochs (same lock)
 *     v
 *  LogSegment.append (FileChannel write at the end of the active segment)
 *     v
 *  index (log.index, RocksDB, no WAL): one offset entry per index.interval.bytes, time entries
 *     v
 *  publish the log end (offset, segment, byte position) in one volatile write
 * </pre>
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>A segment file holds whole batches back to back, offsets strictly increasing, every base
 *       offset at least the file's base offset; the file name is the base offset in 20 digits.
 *   <li>Bytes are never decoded to be appended and never re-encoded; only header fields change.
 *       The one exception on the append path is a leader's batch whose codec is not its topic's
 *       {@code compression.type} ({@link io.tributary.broker.log.BatchRecompression}, as Kafka);
 *       followers store the leader's bytes as they are.
 *       Only the log cleaner ({@code log.cleaner}) rewrites batches, of closed segments, keeping
 *       every kept record's offset; its files are swapped in by {@link
 *       io.tributary.broker.log.SegmentSwap}'s crash-safe protocol.
 *   <li>Readers see only batches below the published log end, and never wait for the writer.
 *   <li>The log is the truth; the index is derived and is repaired from the log on recovery.
 *   <li>A segment leaves the log (retention, DeleteRecords, truncation, a cleaner swap) by being
 *       retired: renamed {@code <base>.log.deleted} and kept open for {@code file.delete.delay.ms}
 *       so that reads in flight finish, then closed and deleted ({@code SegmentDeleter}); opening
 *       deletes leftover {@code .deleted} files.
 *   <li>Operating errors are the {@link io.tributary.broker.log.LogException} subclasses;
 *       programmer errors are {@code IllegalArgumentException}/{@code IllegalStateException}.
 * </ul>
 */
package io.tributary.broker.log;
