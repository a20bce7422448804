package io.tributary.broker.log.index;

import java.util.concurrent.ConcurrentSkipListMap;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The newest offset- and time-index entries of one partition, not yet written to RocksDB: puts go
 * here and are written to RocksDB together, in one {@link WriteBatch}, once {@link
 * IndexStore#bufferedEntriesPerPartition()} of them have gathered, and whenever the store writes
 * every buffer ({@link IndexStore#flushIndex()} before a recovery point is persisted, and at
 * close). One RocksDB write per batch of entries instead of one per appended record batch.
 *
 * <p>The index is derived data, so a buffered entry has the same durability as one written to a
 * memtable without the WAL: none until {@link IndexStore#flushIndex()}, which every persisted
 * recovery point is preceded by; recovery rebuilds the entries above the recovery point.
 *
 * <p>Thread-safety: readers (lookups) use the concurrent maps without locking. Mutations hold the
 * buffer's monitor: the partition's writer puts and deletes, and any thread may write the buffer
 * out through {@link IndexStore#flushIndex()}. A write-out puts the entries in RocksDB before it
 * removes them here, so a reader that looks here first and in RocksDB second never misses one.
 */
final class IndexBuffer {

    /** Offset entries by batch base offset. */
    final ConcurrentSkipListMap<Long, OffsetPosition> offsets = new ConcurrentSkipListMap<>();

    /** Time entries by timestamp. */
    final ConcurrentSkipListMap<Long, TimestampOffset> times = new ConcurrentSkipListMap<>();

    /** {@code offsets.size() + times.size()}, kept here because a skip list counts in linear time. */
    private int size;

    private final IndexStore store;

    IndexBuffer(IndexStore store) {
        this.store = store;
    }

    synchronized void putOffset(PartitionIndex index, OffsetPosition entry) {
        if (offsets.put(entry.offset(), entry) == null) {
            size++;
        }
        writeIfFull(index);
    }

    synchronized void putTime(PartitionIndex index, TimestampOffset entry) {
        if (times.put(entry.timestamp(), entry) == null) {
            size++;
        }
        writeIfFull(index);
    }

    private void writeIfFull(PartitionIndex index) {
        if (size >= store.bufferedEntriesPerPartition()) {
            write(index);
        }
    }

    synchronized int size() {
        return size;
    }

    /** Writes every buffered entry to RocksDB in one batch, then drops them from the buffer. */
    synchronized void write(PartitionIndex index) {
        if (size == 0) {
            return;
        }
        try (WriteBatch batch = new WriteBatch()) {
            for (OffsetPosition entry : offsets.values()) {
                batch.put(store.offsetIndex, index.offsetKey(entry.offset()), PartitionIndex.offsetValue(entry));
            }
            for (TimestampOffset entry : times.values()) {
                batch.put(store.timeIndex, index.timeKey(entry.timestamp()), PartitionIndex.timeValue(entry));
            }
            store.write(batch);
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot write the index", e);
        }
        // Still under the monitor: nothing was added since the batch was built.
        offsets.clear();
        times.clear();
        size = 0;
    }

    /**
     * Runs {@code deletion} of buffered entries and of RocksDB entries under the monitor, so that a
     * concurrent write-out cannot put back an entry the deletion removes.
     */
    synchronized void delete(Runnable deletion) {
        deletion.run();
        size = offsets.size() + times.size();
    }
}
