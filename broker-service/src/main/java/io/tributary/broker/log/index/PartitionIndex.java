package io.tributary.broker.log.index;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.Uuid;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * One partition replica's entries in the {@link IndexStore}.
 *
 * <h2>Key and value encodings (all integers big-endian)</h2>
 *
 * <p>Every key starts with the same 20-byte partition prefix, so that one partition's entries are
 * contiguous and ordered by the rest of the key under RocksDB's default bytewise comparator:
 *
 * <pre>
 *  0  topic id, most significant 64 bits    int64
 *  8  topic id, least significant 64 bits   int64
 * 16  partition                              int32 (non-negative)
 * </pre>
 *
 * <p>{@code offset_index} (sparse: one entry per {@code index.interval.bytes} of batches, and the
 * first batch of every segment):
 *
 * <pre>
 * key   (28 bytes)  prefix, then 20: batch base offset   int64 (non-negative)
 * value (12 bytes)  0: segment base offset  int64,  8: byte position of the batch in that segment  int32
 * </pre>
 *
 * <p>{@code time_index} (written at the same points as the offset index, when the largest batch
 * max-timestamp seen so far has grown since the previous time entry; keys and values both increase):
 *
 * <pre>
 * key   (28 bytes)  prefix, then 20: max timestamp so far, in ms, XOR 0x8000000000000000  int64
 * value (8 bytes)   0: base offset of the first batch that reached that timestamp          int64
 * </pre>
 *
 * The sign bit of the timestamp is flipped so that bytewise order is numeric order for negative
 * timestamps too.
 *
 * <p>{@code partition_state}: key = the 20-byte prefix alone; value = {@link PartitionState}'s
 * encoding. And key = the prefix then the byte {@code 0x01} (21 bytes): the idempotent producers'
 * snapshot written at a clean close (its encoding is documented on the log's {@code ProducerState});
 * deleted when the log opens, so only the open right after a clean close can use it. And key = the
 * prefix then the byte {@code 0x02} (21 bytes): the high-watermark checkpoint, an int64 (8 bytes).
 * And key = the prefix then the byte {@code 0x03} (21 bytes): the log cleaner's checkpoint,
 * {@link CleanerCheckpoint}'s 16 bytes (the first offset the cleaner has not deduplicated yet, its
 * "first dirty offset", then the earliest delete horizon of the tombstones it kept); written in the
 * write batch that swaps cleaned segments in ({@link #replaceRange}) and at a truncation below it.
 *
 * <p>Lookups are {@code seekForPrev} (the greatest key at or below the probe) checked against the
 * prefix, and a look at the partition's {@link IndexBuffer} of entries not yet written to RocksDB
 * (the greater key wins). Thread-safe; index writes skip the WAL (see {@link IndexStore}).
 */
public final class PartitionIndex {

    static final int PREFIX_BYTES = 20;
    static final int KEY_BYTES = 28;
    private static final int OFFSET_VALUE_BYTES = 12;

    private final IndexStore store;
    private final RocksDB db;
    private final byte[] prefix;
    private final byte[] producerSnapshotKey;
    private final byte[] highWatermarkKey;
    private final byte[] cleanerCheckpointKey;
    private final IndexBuffer buffer;
    private final Uuid topicId;
    private final int partition;

    PartitionIndex(IndexStore store, RocksDB db, Uuid topicId, int partition) {
        this.topicId = topicId;
        this.partition = partition;
        this.store = store;
        this.db = db;
        this.buffer = new IndexBuffer(store);
        this.prefix = prefix(topicId, partition);
        this.producerSnapshotKey = Arrays.copyOf(prefix, PREFIX_BYTES + 1);
        this.producerSnapshotKey[PREFIX_BYTES] = PRODUCER_SNAPSHOT_TAG;
        this.highWatermarkKey = Arrays.copyOf(prefix, PREFIX_BYTES + 1);
        this.highWatermarkKey[PREFIX_BYTES] = HIGH_WATERMARK_TAG;
        this.cleanerCheckpointKey = Arrays.copyOf(prefix, PREFIX_BYTES + 1);
        this.cleanerCheckpointKey[PREFIX_BYTES] = CLEANER_CHECKPOINT_TAG;
    }

    /** The byte after the prefix in the log cleaner's checkpoint key. */
    static final byte CLEANER_CHECKPOINT_TAG = 3;

    /** The byte after the prefix in the high-watermark checkpoint's key. */
    static final byte HIGH_WATERMARK_TAG = 2;

    /** The byte after the prefix in the producer snapshot's key. */
    static final byte PRODUCER_SNAPSHOT_TAG = 1;

    // ---- offset index ----

    /** Records that the batch with base offset {@code entry.offset()} starts at the given place. */
    public void putOffset(OffsetPosition entry) {
        buffer.putOffset(this, entry);
    }

    /** The entry with the greatest offset at or below {@code offset}. */
    public Optional<OffsetPosition> floorOffset(long offset) {
        // The buffer first, RocksDB second: a write-out puts entries in RocksDB before dropping them
        // from the buffer, so this order never misses one.
        Map.Entry<Long, OffsetPosition> buffered = buffer.offsets.floorEntry(offset);
        return greater(
                buffered,
                floor(store.offsetIndex, offsetKey(offset)).map(PartitionIndex::offsetEntry),
                OffsetPosition::offset);
    }

    /** Of a buffered and a persisted entry, the one with the greater key; on equal keys the buffered (newer) one. */
    private static <V> Optional<V> greater(Map.Entry<Long, V> buffered, Optional<V> persisted, ToLongFunction<V> key) {
        if (buffered != null && (persisted.isEmpty() || key.applyAsLong(persisted.get()) <= buffered.getKey())) {
            return Optional.of(buffered.getValue());
        }
        return persisted;
    }

    /** The entry with the greatest offset. */
    public Optional<OffsetPosition> lastOffset() {
        return floorOffset(Long.MAX_VALUE);
    }

    /** Removes entries with offset at or above {@code offset}. */
    public void deleteOffsetsFrom(long offset) {
        buffer.delete(() -> {
            buffer.offsets.tailMap(offset).clear();
            deleteRange(store.offsetIndex, offsetKey(offset), upperBound());
        });
    }

    /** Removes entries with offset below {@code offset}. */
    public void deleteOffsetsBefore(long offset) {
        buffer.delete(() -> {
            buffer.offsets.headMap(offset).clear();
            deleteRange(store.offsetIndex, offsetKey(0), offsetKey(offset));
        });
    }

    /** Every offset entry in order (for recovery checks and tests; proportional to the log). */
    public List<OffsetPosition> offsetEntries() {
        TreeMap<Long, OffsetPosition> entries = new TreeMap<>(buffer.offsets);
        forEach(store.offsetIndex, (key, value) -> {
            OffsetPosition entry = offsetEntry(key, value);
            entries.putIfAbsent(entry.offset(), entry);
        });
        return List.copyOf(entries.values());
    }

    // ---- time index ----

    public void putTime(TimestampOffset entry) {
        buffer.putTime(this, entry);
    }

    /** The entry with the greatest timestamp at or below {@code timestamp}. */
    public Optional<TimestampOffset> floorTime(long timestamp) {
        // The same order as floorOffset.
        Map.Entry<Long, TimestampOffset> buffered = buffer.times.floorEntry(timestamp);
        return greater(
                buffered,
                floor(store.timeIndex, timeKey(timestamp)).map(PartitionIndex::timeEntry),
                TimestampOffset::timestamp);
    }

    /** The entry with the greatest timestamp (and offset). */
    public Optional<TimestampOffset> lastTime() {
        return floorTime(Long.MAX_VALUE);
    }

    /**
     * Removes entries whose offset is at or above {@code offset} (the newest entries). The keys are
     * timestamps, so there is no range to delete by offset: the walk goes from the newest entry down
     * and stops at the first one below {@code offset}, which is right because values increase with
     * keys (the log's writer keeps it so).
     */
    public void deleteTimesFrom(long offset) {
        buffer.delete(() -> {
            buffer.times.values().removeIf(entry -> entry.offset() >= offset);
            deletePersistedTimesFrom(offset);
        });
    }

    private void deletePersistedTimesFrom(long offset) {
        try (RocksIterator it = db.newIterator(store.timeIndex)) {
            for (it.seekForPrev(timeKey(Long.MAX_VALUE)); it.isValid() && hasPrefix(it.key()); it.prev()) {
                if (ByteBuffer.wrap(it.value()).getLong() < offset) {
                    break;
                }
                delete(store.timeIndex, it.key());
            }
        }
    }

    /**
     * Removes entries whose offset is below {@code offset} (the oldest entries): a walk from the
     * oldest entry up to the first one at or above {@code offset}, as {@link #deleteTimesFrom}.
     */
    public void deleteTimesBefore(long offset) {
        buffer.delete(() -> {
            buffer.times.values().removeIf(entry -> entry.offset() < offset);
            deletePersistedTimesBefore(offset);
        });
    }

    private void deletePersistedTimesBefore(long offset) {
        try (RocksIterator it = db.newIterator(store.timeIndex)) {
            for (it.seek(timeKey(Long.MIN_VALUE)); it.isValid() && hasPrefix(it.key()); it.next()) {
                if (ByteBuffer.wrap(it.value()).getLong() >= offset) {
                    break;
                }
                delete(store.timeIndex, it.key());
            }
        }
    }

    public List<TimestampOffset> timeEntries() {
        TreeMap<Long, TimestampOffset> entries = new TreeMap<>(buffer.times);
        forEach(store.timeIndex, (key, value) -> {
            TimestampOffset entry = timeEntry(key, value);
            entries.putIfAbsent(entry.timestamp(), entry);
        });
        return List.copyOf(entries.values());
    }

    // ---- partition state ----

    public Optional<PartitionState> readState() {
        try {
            byte[] value = db.get(store.partitionState, prefix);
            return value == null ? Optional.empty() : Optional.of(PartitionState.decode(value));
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot read partition state", e);
        }
    }

    public void writeState(PartitionState state, Durability durability) {
        try {
            db.put(
                    store.partitionState,
                    durability == Durability.SYNC ? store.syncedWrites : store.unsyncedWrites,
                    prefix,
                    state.encode());
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot write partition state", e);
        }
    }

    // ---- high-watermark checkpoint ----

    public Optional<Long> readHighWatermark() {
        return readLong(highWatermarkKey, "the high-watermark checkpoint");
    }

    /** An int64 value of {@code partition_state}, if present and 8 bytes long. */
    private Optional<Long> readLong(byte[] key, String what) {
        try {
            byte[] value = db.get(store.partitionState, key);
            if (value == null || value.length != Long.BYTES) {
                return Optional.empty();
            }
            return Optional.of(ByteBuffer.wrap(value).getLong());
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot read " + what, e);
        }
    }

    /** Writes the checkpoint through the WAL, unsynced: losing the latest one only makes it older. */
    public void writeHighWatermark(long highWatermark) {
        writeLong(highWatermarkKey, highWatermark, store.unsyncedWrites, "the high-watermark checkpoint");
    }

    private void writeLong(byte[] key, long value, WriteOptions options, String what) {
        try {
            db.put(
                    store.partitionState,
                    options,
                    key,
                    ByteBuffer.allocate(Long.BYTES).putLong(value).array());
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot write " + what, e);
        }
    }

    // ---- log cleaner ----

    /** The cleaner's checkpoint, if the cleaner ever swapped segments in. */
    public Optional<CleanerCheckpoint> readCleanerCheckpoint() {
        try {
            return CleanerCheckpoint.decode(db.get(store.partitionState, cleanerCheckpointKey));
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot read the cleaner checkpoint", e);
        }
    }

    /**
     * The time entry with the greatest timestamp among those naming an offset below {@code offset}
     * (a walk from the oldest entry; values increase with keys).
     */
    public Optional<TimestampOffset> lastTimeBelow(long offset) {
        Optional<TimestampOffset> last = Optional.empty();
        for (TimestampOffset entry : timesNamingOffsetsBelow(offset)) {
            last = Optional.of(entry);
        }
        return last;
    }

    /** The time entry naming the lowest offset at or above {@code offset} (a walk from the oldest entry). */
    public Optional<TimestampOffset> firstTimeAtOrAfter(long offset) {
        Optional<TimestampOffset> buffered =
                buffer.times.values().stream().filter(t -> t.offset() >= offset).findFirst();
        try (RocksIterator it = db.newIterator(store.timeIndex)) {
            for (it.seek(timeKey(Long.MIN_VALUE)); it.isValid() && hasPrefix(it.key()); it.next()) {
                TimestampOffset entry = timeEntry(it.key(), it.value());
                if (entry.offset() >= offset) {
                    return buffered.isPresent() && buffered.get().offset() < entry.offset()
                            ? buffered
                            : Optional.of(entry);
                }
            }
        }
        return buffered;
    }

    private List<TimestampOffset> timesNamingOffsetsBelow(long offset) {
        TreeMap<Long, TimestampOffset> found = new TreeMap<>();
        buffer.times.values().stream().filter(t -> t.offset() < offset).forEach(t -> found.put(t.timestamp(), t));
        try (RocksIterator it = db.newIterator(store.timeIndex)) {
            for (it.seek(timeKey(Long.MIN_VALUE)); it.isValid() && hasPrefix(it.key()); it.next()) {
                TimestampOffset entry = timeEntry(it.key(), it.value());
                if (entry.offset() >= offset) {
                    break;
                }
                found.putIfAbsent(entry.timestamp(), entry);
            }
        }
        return List.copyOf(found.values());
    }

    /**
     * Replaces the offset- and time-index entries naming offsets in {@code [fromOffset, toOffset)}
     * with {@code offsets} (which must name offsets in that range) and adds {@code times} (the
     * time entries at the range's index points and at those after it that the removal of the
     * range's largest timestamp calls for; the caller keeps keys and values increasing), and
     * writes the
     * cleaner's checkpoint when given: one RocksDB write batch, through the WAL and synced, so that
     * the replacement is all-or-nothing and durable before the caller goes on (the log cleaner's
     * swap, see {@code SegmentSwap}). Entries of the range still buffered are dropped.
     */
    public void replaceRange(
            long fromOffset,
            long toOffset,
            List<OffsetPosition> offsets,
            List<TimestampOffset> times,
            Optional<CleanerCheckpoint> cleanerCheckpoint) {
        for (OffsetPosition entry : offsets) {
            if (entry.offset() < fromOffset || entry.offset() >= toOffset) {
                throw new IllegalArgumentException(entry + " is outside [" + fromOffset + ", " + toOffset + ")");
            }
        }
        buffer.delete(() -> {
            buffer.offsets.subMap(fromOffset, toOffset).clear();
            buffer.times.values().removeIf(t -> t.offset() >= fromOffset && t.offset() < toOffset);
            try (WriteBatch batch = new WriteBatch();
                    RocksIterator it = db.newIterator(store.timeIndex)) {
                batch.deleteRange(store.offsetIndex, offsetKey(fromOffset), offsetKey(toOffset));
                for (it.seek(timeKey(Long.MIN_VALUE)); it.isValid() && hasPrefix(it.key()); it.next()) {
                    long named = ByteBuffer.wrap(it.value()).getLong();
                    if (named >= toOffset) {
                        break;
                    }
                    if (named >= fromOffset) {
                        batch.delete(store.timeIndex, it.key());
                    }
                }
                for (OffsetPosition entry : offsets) {
                    batch.put(store.offsetIndex, offsetKey(entry.offset()), offsetValue(entry));
                }
                for (TimestampOffset entry : times) {
                    batch.put(store.timeIndex, timeKey(entry.timestamp()), timeValue(entry));
                }
                if (cleanerCheckpoint.isPresent()) {
                    batch.put(
                            store.partitionState,
                            cleanerCheckpointKey,
                            cleanerCheckpoint.get().encode());
                }
                db.write(store.syncedWrites, batch);
                store.indexWritten();
            } catch (RocksDBException e) {
                throw new IndexStoreException(
                        "cannot replace the index entries of [" + fromOffset + ", " + toOffset + ")", e);
            }
        });
    }

    /** Writes the cleaner's checkpoint alone (after a truncation below it), synced. */
    public void writeCleanerCheckpoint(CleanerCheckpoint checkpoint) {
        try {
            db.put(store.partitionState, store.syncedWrites, cleanerCheckpointKey, checkpoint.encode());
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot write the cleaner checkpoint", e);
        }
    }

    // ---- producer snapshot ----

    public Optional<byte[]> readProducerSnapshot() {
        try {
            return Optional.ofNullable(db.get(store.partitionState, producerSnapshotKey));
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot read the producer snapshot", e);
        }
    }

    /**
     * Writes the producer snapshot through the WAL without syncing it: the clean-shutdown state
     * written after it is synced, which makes both durable.
     */
    public void writeProducerSnapshot(byte[] value) {
        try {
            db.put(store.partitionState, store.unsyncedWrites, producerSnapshotKey, value);
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot write the producer snapshot", e);
        }
    }

    public void deleteProducerSnapshot() {
        try {
            db.delete(store.partitionState, store.unsyncedWrites, producerSnapshotKey);
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot delete the producer snapshot", e);
        }
    }

    /** The 20-byte key prefix of a partition's entries (see the class comment). */
    static byte[] prefix(Uuid topicId, int partition) {
        return ByteBuffer.allocate(PREFIX_BYTES)
                .putLong(topicId.getMostSignificantBits())
                .putLong(topicId.getLeastSignificantBits())
                .putInt(partition)
                .array();
    }

    /** Removes every entry of this partition: offsets, times, aborted transactions, state, producer snapshot, checkpoints. */
    public void deleteAll() {
        buffer.delete(() -> {
            buffer.offsets.clear();
            buffer.times.clear();
            deleteRange(store.offsetIndex, prefix, upperBound());
            deleteRange(store.timeIndex, prefix, upperBound());
        });
        new AbortedTxnIndex(store, db, prefix).deleteAll();
        store.forget(topicId, partition, this);
        try {
            db.delete(store.partitionState, store.unsyncedWrites, producerSnapshotKey);
            db.delete(store.partitionState, store.unsyncedWrites, highWatermarkKey);
            db.delete(store.partitionState, store.unsyncedWrites, cleanerCheckpointKey);
            db.delete(store.partitionState, store.syncedWrites, prefix);
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot delete partition state", e);
        }
    }

    /** Entries in memory, not yet written to RocksDB (for tests). */
    int bufferedEntries() {
        return buffer.size();
    }

    /** See {@link IndexStore#flushIndex()}. */
    public void flushIndex() {
        store.flushIndex();
    }

    /**
     * Writes this partition's buffered entries to RocksDB now (to the memtable, without the WAL,
     * as every index write); {@link #flushIndex()} does it for every partition and makes them durable.
     */
    public void writeBuffered() {
        buffer.write(this);
    }

    // ---- encoding ----

    static byte[] offsetValue(OffsetPosition entry) {
        return ByteBuffer.allocate(OFFSET_VALUE_BYTES)
                .putLong(entry.segmentBaseOffset())
                .putInt(entry.position())
                .array();
    }

    static byte[] timeValue(TimestampOffset entry) {
        return ByteBuffer.allocate(Long.BYTES).putLong(entry.offset()).array();
    }

    byte[] offsetKey(long offset) {
        return ByteBuffer.allocate(KEY_BYTES).put(prefix).putLong(offset).array();
    }

    byte[] timeKey(long timestamp) {
        return ByteBuffer.allocate(KEY_BYTES)
                .put(prefix)
                .putLong(timestamp ^ Long.MIN_VALUE)
                .array();
    }

    /** The first key after every key of this partition: the prefix with its last byte plus one. */
    private byte[] upperBound() {
        byte[] bound = Arrays.copyOf(prefix, KEY_BYTES + 1);
        Arrays.fill(bound, PREFIX_BYTES, bound.length, (byte) 0xff);
        return bound;
    }

    private static OffsetPosition offsetEntry(byte[][] kv) {
        return offsetEntry(kv[0], kv[1]);
    }

    private static OffsetPosition offsetEntry(byte[] key, byte[] value) {
        ByteBuffer v = ByteBuffer.wrap(value);
        return new OffsetPosition(ByteBuffer.wrap(key).getLong(PREFIX_BYTES), v.getLong(), v.getInt());
    }

    private static TimestampOffset timeEntry(byte[][] kv) {
        return timeEntry(kv[0], kv[1]);
    }

    private static TimestampOffset timeEntry(byte[] key, byte[] value) {
        return new TimestampOffset(
                ByteBuffer.wrap(key).getLong(PREFIX_BYTES) ^ Long.MIN_VALUE,
                ByteBuffer.wrap(value).getLong());
    }

    private boolean hasPrefix(byte[] key) {
        return key.length == KEY_BYTES && Arrays.equals(key, 0, PREFIX_BYTES, prefix, 0, PREFIX_BYTES);
    }

    private Optional<byte[][]> floor(ColumnFamilyHandle cf, byte[] probe) {
        try (RocksIterator it = db.newIterator(cf)) {
            it.seekForPrev(probe);
            if (it.isValid() && hasPrefix(it.key())) {
                return Optional.of(new byte[][] {it.key(), it.value()});
            }
            return Optional.empty();
        }
    }

    private void forEach(ColumnFamilyHandle cf, java.util.function.BiConsumer<byte[], byte[]> action) {
        try (RocksIterator it = db.newIterator(cf)) {
            for (it.seek(prefix); it.isValid() && hasPrefix(it.key()); it.next()) {
                action.accept(it.key(), it.value());
            }
        }
    }

    private void delete(ColumnFamilyHandle cf, byte[] key) {
        try {
            db.delete(cf, store.indexWrites, key);
            store.indexWritten();
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot write the index", e);
        }
    }

    private void deleteRange(ColumnFamilyHandle cf, byte[] from, byte[] to) {
        try {
            db.deleteRange(cf, store.indexWrites, from, to);
            store.indexWritten();
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot write the index", e);
        }
    }
}
