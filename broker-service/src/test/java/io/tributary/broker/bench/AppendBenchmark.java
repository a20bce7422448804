package io.tributary.broker.bench;

import io.tributary.broker.log.AppendResult;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.RollFlusher;
import io.tributary.broker.log.index.IndexStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGeneratorFactory;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Appending 1 KiB records in 16 KiB batches (16 records, 16.6 KB with headers) as the leader,
 * against writing the same bytes to a plain {@code FileChannel}. Each iteration starts from an
 * empty log and an empty file; MB/s = ops/s x {@link #BATCH_BYTES}. Kafka's defaults (1 GiB
 * segments, no fsync policy), so a roll happens about once per GiB; as in the broker, the rolled
 * segment is fsynced by a {@link RollFlusher} thread, not by the appending thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
public class AppendBenchmark {

    static final int RECORDS_PER_BATCH = 16;
    static final int RECORD_BYTES = 1024;
    static final int BATCH_BYTES = BenchSupport.batch(
                    RandomGeneratorFactory.of("L64X128MixRandom").create(1), RECORDS_PER_BATCH, RECORD_BYTES, 0)
            .sizeInBytes();

    private Path dir;
    private IndexStore store;
    private RollFlusher rollFlusher;
    private PartitionLog log;
    private MemoryRecords batch;
    private FileChannel raw;
    private ByteBuffer rawBytes;

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
        dir = BenchSupport.tempDir("append");
        store = IndexStore.open(dir.resolve("index"));
        rollFlusher = new RollFlusher(RollFlusher.DEFAULT_QUEUE_CAPACITY);
        log = BenchSupport.openLog(dir, store, rollFlusher);
        batch = BenchSupport.batch(
                RandomGeneratorFactory.of("L64X128MixRandom").create(42),
                RECORDS_PER_BATCH,
                RECORD_BYTES,
                1_700_000_000_000L);
        raw = FileChannel.open(dir.resolve("raw.log"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        rawBytes = batch.buffer().duplicate();
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws IOException {
        log.close();
        rollFlusher.close();
        store.close();
        raw.close();
        BenchSupport.deleteRecursively(dir);
    }

    /** Validation, header rewrite, write, index update and publication of one batch. */
    @Benchmark
    public AppendResult partitionLogAppend() {
        // The same buffer every time: the leader rewrites offset and epoch in place, which the CRC
        // does not cover, so the batch stays valid.
        return log.appendAsLeader(batch, 0);
    }

    /** The baseline: the same bytes, sequentially, through a plain FileChannel. */
    @Benchmark
    public int rawFileChannelWrite() throws IOException {
        ByteBuffer bytes = rawBytes.duplicate();
        int written = 0;
        while (bytes.hasRemaining()) {
            written += raw.write(bytes);
        }
        return written;
    }
}
