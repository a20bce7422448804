package io.tributary.broker.log.index;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The broker's one RocksDB instance: the offset index, the time index and the partition state of
 * every partition replica on the broker. The byte layout of each key and value is documented on
 * {@link PartitionIndex} (index entries) and {@link PartitionState} (state values).
 *
 * <h2>Column families</h2>
 *
 * <ul>
 *   <li>{@code offset_index}: (topic id, partition, offset) to (segment base offset, position).
 *   <li>{@code time_index}: (topic id, partition, max timestamp so far) to offset.
 *   <li>{@code partition_state}: (topic id, partition) to {@link PartitionState}; (topic id,
 *       partition, {@code 0x01}) to the idempotent producers' snapshot of a clean close; {@code
 *       0x02} the high-watermark checkpoint; {@code 0x03} the log cleaner's {@link CleanerCheckpoint}.
 *   <li>{@code aborted_txns}: (topic id, partition, abort marker offset) to the aborted transaction
 *       ({@link AbortedTxnIndex}; derived data like the offset index, flushed with it).
 * </ul>
 *
 * <h2>Durability</h2>
 *
 * <p>The log is the truth and the index is derived from it, so index writes skip RocksDB's WAL
 * ({@code disableWAL}): an index write costs a memtable insert only. The price is that a crash loses
 * the index writes still in the memtable, in any partition. The recovery point is what makes that
 * safe: before a partition persists a recovery point, it calls {@link #flushIndex()}, which writes
 * the index memtables to SST files; so every index entry (and every deletion) below a persisted
 * recovery point is durable, and recovery rebuilds the index only from the recovery point on.
 * Partition-state writes go through the WAL; the ones that must survive power loss (clean
 * shutdown, truncation) are synced.
 *
 * <p>Offset- and time-index entries are buffered per partition ({@link IndexBuffer}) and written
 * to RocksDB in batches of {@link #bufferedEntriesPerPartition()}, and at every {@link
 * #flushIndex()} and {@link #close()}: a RocksDB write per appended record batch was, after the
 * file write itself, the largest cost of an append (docs/benchmarks.md). Lookups consult the buffer
 * too.
 *
 * <p>Thread-safe: RocksDB handles concurrent readers and writers; each partition has one writer.
 */
public final class IndexStore implements AutoCloseable {

    static final String OFFSET_INDEX = "offset_index";
    static final String TIME_INDEX = "time_index";
    static final String PARTITION_STATE = "partition_state";
    static final String ABORTED_TXNS = "aborted_txns";

    static {
        RocksDB.loadLibrary();
    }

    /**
     * The default of {@link #bufferedEntriesPerPartition()}: with the default {@code
     * index.interval.bytes} (4 KiB) and 16 KiB batches, 64 entries are about 1 MiB of log, and
     * buffering them costs a few KiB of heap per partition that is being written.
     */
    public static final int DEFAULT_BUFFERED_ENTRIES_PER_PARTITION = 64;

    private final Path directory;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    private final List<ColumnFamilyHandle> handles;
    private final RocksDB db;
    final ColumnFamilyHandle offsetIndex;
    final ColumnFamilyHandle timeIndex;
    final ColumnFamilyHandle partitionState;
    final ColumnFamilyHandle abortedTxns;
    final WriteOptions indexWrites;
    final WriteOptions syncedWrites;
    final WriteOptions unsyncedWrites;
    private final FlushOptions flushOptions;
    /** Index writes made since the last memtable flush began; see {@link #flushIndex()}. */
    private final AtomicLong unflushedIndexWrites = new AtomicLong();

    private final int bufferedEntriesPerPartition;
    /** One view per partition replica, so that every caller shares its buffer. */
    private final ConcurrentHashMap<TopicIdPartitionKey, PartitionIndex> partitions = new ConcurrentHashMap<>();

    private record TopicIdPartitionKey(Uuid topicId, int partition) {}

    private IndexStore(Path directory, int bufferedEntriesPerPartition) throws RocksDBException {
        this.directory = directory;
        this.bufferedEntriesPerPartition = bufferedEntriesPerPartition;
        this.dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        this.cfOptions = new ColumnFamilyOptions();
        List<ColumnFamilyDescriptor> descriptors = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
                new ColumnFamilyDescriptor(bytes(OFFSET_INDEX), cfOptions),
                new ColumnFamilyDescriptor(bytes(TIME_INDEX), cfOptions),
                new ColumnFamilyDescriptor(bytes(PARTITION_STATE), cfOptions),
                new ColumnFamilyDescriptor(bytes(ABORTED_TXNS), cfOptions));
        this.handles = new ArrayList<>();
        this.db = RocksDB.open(dbOptions, directory.toString(), descriptors, handles);
        this.offsetIndex = handles.get(1);
        this.timeIndex = handles.get(2);
        this.partitionState = handles.get(3);
        this.abortedTxns = handles.get(4);
        this.indexWrites = new WriteOptions().setDisableWAL(true);
        this.syncedWrites = new WriteOptions().setSync(true);
        this.unsyncedWrites = new WriteOptions();
        this.flushOptions = new FlushOptions().setWaitForFlush(true);
    }

    /**
     * Opens (creating if needed) the store in {@code directory}, buffering {@link
     * #DEFAULT_BUFFERED_ENTRIES_PER_PARTITION} index entries per partition. One process may hold it
     * at a time.
     */
    public static IndexStore open(Path directory) {
        return open(directory, DEFAULT_BUFFERED_ENTRIES_PER_PARTITION);
    }

    /**
     * Opens (creating if needed) the store in {@code directory}.
     *
     * @param bufferedEntriesPerPartition how many index entries of a partition are kept in memory
     *     before they are written to RocksDB together (1: every entry is written at once)
     */
    public static IndexStore open(Path directory, int bufferedEntriesPerPartition) {
        if (bufferedEntriesPerPartition < 1) {
            throw new IllegalArgumentException(
                    "bufferedEntriesPerPartition must be at least 1: " + bufferedEntriesPerPartition);
        }
        try {
            Files.createDirectories(directory);
            return new IndexStore(directory, bufferedEntriesPerPartition);
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot open the index store in " + directory, e);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The view of one partition replica's entries (the same object for the same partition). */
    public PartitionIndex partition(Uuid topicId, int partition) {
        checkPartition(topicId, partition);
        return partitions.computeIfAbsent(
                new TopicIdPartitionKey(topicId, partition), key -> new PartitionIndex(this, db, topicId, partition));
    }

    /** The aborted transactions of one partition replica. */
    public AbortedTxnIndex abortedTransactions(Uuid topicId, int partition) {
        checkPartition(topicId, partition);
        return new AbortedTxnIndex(this, db, PartitionIndex.prefix(topicId, partition));
    }

    private static void checkPartition(Uuid topicId, int partition) {
        Objects.requireNonNull(topicId, "topicId");
        if (partition < 0) {
            throw new IllegalArgumentException("negative partition " + partition);
        }
    }

    /** How many index entries of a partition are buffered before they are written to RocksDB. */
    public int bufferedEntriesPerPartition() {
        return bufferedEntriesPerPartition;
    }

    /**
     * Writes every partition's buffered index entries, then the offset- and time-index memtables to
     * SST files, and waits: afterwards every index write made so far survives a crash. Called before
     * a recovery point is persisted.
     */
    public synchronized void flushIndex() {
        partitions.values().forEach(PartitionIndex::writeBuffered);
        // One flush makes every partition's index writes durable, so a partition with nothing new
        // since the last flush (say, at the close of thousands of idle partitions) skips it.
        // Synchronized: a caller that finds nothing to flush waits for a flush in progress, which
        // may hold its own writes, to finish.
        if (unflushedIndexWrites.getAndSet(0) == 0) {
            return;
        }
        try {
            db.flush(flushOptions, List.of(offsetIndex, timeIndex, abortedTxns));
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot flush the index in " + directory, e);
        }
    }

    /** Writes a batch of index entries (without the WAL) and counts it as an index write. */
    void write(WriteBatch batch) throws RocksDBException {
        db.write(indexWrites, batch);
        indexWritten();
    }

    /** Forgets a partition whose entries were all deleted (its view stays usable, with an empty buffer). */
    void forget(Uuid topicId, int partition, PartitionIndex index) {
        partitions.remove(new TopicIdPartitionKey(topicId, partition), index);
    }

    /** Counts an index write; called after the write, so a flush that starts later includes it. */
    void indexWritten() {
        unflushedIndexWrites.incrementAndGet();
    }

    /** SST files at level 0 of the offset index (each memtable flush adds one); for tests. */
    long offsetIndexLevel0Files() {
        try {
            return Long.parseLong(db.getProperty(offsetIndex, "rocksdb.num-files-at-level0"));
        } catch (RocksDBException e) {
            throw new IndexStoreException("cannot read a RocksDB property", e);
        }
    }

    public Path directory() {
        return directory;
    }

    @Override
    public void close() {
        // RocksDB writes its memtables out when it closes; the buffered entries go there first.
        partitions.values().forEach(PartitionIndex::writeBuffered);
        flushOptions.close();
        indexWrites.close();
        syncedWrites.close();
        unsyncedWrites.close();
        for (ColumnFamilyHandle handle : handles) {
            handle.close();
        }
        db.close();
        cfOptions.close();
        dbOptions.close();
    }

    private static byte[] bytes(String name) {
        return name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
