package io.tributary.broker.log.index;

import io.tributary.broker.log.txn.AbortedTransaction;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * One partition replica's aborted transactions in the {@link IndexStore} (the {@code aborted_txns}
 * column family; Kafka keeps a transaction index file per segment): what a {@code read_committed}
 * fetch answers beside the records so the client drops the aborted ones. Derived data, like the
 * offset index: written without the WAL, flushed with it before a recovery point is persisted, and
 * rebuilt from the log's abort markers after the recovery point.
 *
 * <h2>Key and value (big-endian)</h2>
 *
 * <pre>
 * key   (28 bytes)  0: the partition prefix (topic id int64 x 2, partition int32; {@link PartitionIndex})
 *                  20: the offset of the abort marker (lastOffset)            int64, non-negative
 * value (24 bytes)  0: producer id                                            int64
 *                   8: offset of the transaction's first batch here (firstOffset)   int64
 *                  16: the partition's last stable offset right after the marker    int64
 * </pre>
 *
 * <p>Markers come in offset order, so the entries are in marker order and their LSOs never go down.
 * {@link #overlapping} seeks to the first marker at or after the fetch offset and stops at the
 * first entry whose LSO is at or past the fetch's upper bound: every transaction aborted after it
 * started at or after that LSO, so none of them overlaps.
 *
 * <p>Thread-safety: RocksDB's; one writer per partition (the partition log, under its lock).
 */
public final class AbortedTxnIndex {

    static final int KEY_BYTES = PartitionIndex.PREFIX_BYTES + Long.BYTES;
    static final int VALUE_BYTES = 3 * Long.BYTES;

    private final IndexStore store;
    private final RocksDB db;
    private final byte[] prefix;

    AbortedTxnIndex(IndexStore store, RocksDB db, byte[] prefix) {
        this.store = store;
        this.db = db;
        this.prefix = prefix.clone();
    }

    /**
     * Adds an aborted transaction, whose marker is after every one added before.
     *
     * @throws IllegalArgumentException if its marker or LSO is before the last entry's
     */
    public void add(AbortedTransaction aborted) {
        last().ifPresent(last -> {
            if (aborted.lastOffset() <= last.lastOffset() || aborted.lastStableOffset() < last.lastStableOffset()) {
                throw new IllegalArgumentException(
                        "aborted transactions come in marker order: " + aborted + " after " + last);
            }
        });
        byte[] value = ByteBuffer.allocate(VALUE_BYTES)
                .putLong(aborted.producerId())
                .putLong(aborted.firstOffset())
                .putLong(aborted.lastStableOffset())
                .array();
        try {
            db.put(store.abortedTxns, store.indexWrites, key(aborted.lastOffset()), value);
            store.indexWritten();
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot write the aborted-transactions index", e);
        }
    }

    /** The aborted transactions that overlap {@code [fetchOffset, upperBoundOffset)}, in marker order. */
    public List<AbortedTransaction> overlapping(long fetchOffset, long upperBoundOffset) {
        List<AbortedTransaction> out = new ArrayList<>();
        try (Slice bound = new Slice(upperBound());
                ReadOptions options = new ReadOptions().setIterateUpperBound(bound);
                RocksIterator it = db.newIterator(store.abortedTxns, options)) {
            for (it.seek(key(Math.max(0, fetchOffset))); it.isValid(); it.next()) {
                AbortedTransaction a = entry(it.key(), it.value());
                if (a.firstOffset() < upperBoundOffset) {
                    out.add(a);
                }
                if (a.lastStableOffset() >= upperBoundOffset) {
                    break;
                }
            }
            check(it);
        }
        return out;
    }

    /** Forgets the transactions whose marker is before {@code logStartOffset} (their records are gone). */
    public void dropBefore(long logStartOffset) {
        deleteRange(key(0), key(Math.max(0, logStartOffset)));
    }

    /** Forgets the transactions whose marker is at or after {@code offset} (the log was truncated there). */
    public void truncateTo(long offset) {
        deleteRange(key(Math.max(0, offset)), upperBound());
    }

    /** Every entry, in marker order (recovery, tests). */
    public List<AbortedTransaction> all() {
        return overlapping(0, Long.MAX_VALUE);
    }

    /** The entry with the largest marker offset, if any. */
    public Optional<AbortedTransaction> last() {
        try (RocksIterator it = db.newIterator(store.abortedTxns)) {
            it.seekForPrev(upperBound());
            check(it);
            if (!it.isValid() || !Arrays.equals(it.key(), 0, PartitionIndex.PREFIX_BYTES, prefix, 0, prefix.length)) {
                return Optional.empty();
            }
            return Optional.of(entry(it.key(), it.value()));
        }
    }

    /** Removes every entry of the partition (it was deleted from this broker). */
    void deleteAll() {
        deleteRange(prefix, upperBound());
    }

    private byte[] key(long markerOffset) {
        return ByteBuffer.allocate(KEY_BYTES).put(prefix).putLong(markerOffset).array();
    }

    private byte[] upperBound() {
        byte[] bound = Arrays.copyOf(prefix, KEY_BYTES + 1);
        Arrays.fill(bound, PartitionIndex.PREFIX_BYTES, bound.length, (byte) 0xff);
        return bound;
    }

    private static AbortedTransaction entry(byte[] key, byte[] value) {
        if (key.length != KEY_BYTES || value.length != VALUE_BYTES) {
            throw new IndexStoreException(
                    "corrupt aborted-transactions entry: key of " + key.length + " bytes, value of " + value.length,
                    null);
        }
        long lastOffset = ByteBuffer.wrap(key).getLong(PartitionIndex.PREFIX_BYTES);
        ByteBuffer v = ByteBuffer.wrap(value);
        return new AbortedTransaction(v.getLong(), v.getLong(), lastOffset, v.getLong());
    }

    private void deleteRange(byte[] from, byte[] to) {
        try {
            db.deleteRange(store.abortedTxns, store.indexWrites, from, to);
            store.indexWritten();
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot write the aborted-transactions index", e);
        }
    }

    private static void check(RocksIterator it) {
        try {
            it.status();
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot read the aborted-transactions index", e);
        }
    }
}
