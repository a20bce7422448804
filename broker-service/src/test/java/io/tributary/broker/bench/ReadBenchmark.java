package io.tributary.broker.bench;

import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.ReadResult;
import io.tributary.broker.log.index.IndexStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.apache.kafka.common.network.TransferableChannel;
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
 * Sequential consumption of a 256 MiB log (16 KiB batches of 1 KiB records, one segment, in the page
 * cache) in 1 MiB fetches: region lookup ({@code PartitionLog.read}) plus {@code transferTo} into a
 * sink, against raw baselines over the same segment file in the same run: a sequential {@code
 * FileChannel.read} into a 1 MiB buffer, and a sequential {@code transferTo} of the same regions (1 MiB
 * from where each engine fetch starts) into the same sink. Three sinks: a Java channel that drops the
 * bytes ({@link BenchSupport.DiscardingChannel}; the JDK copies through a buffer to reach it), a
 * loopback TCP socket drained by another thread ({@link BenchSupport.LoopbackSocketSink}; zero-copy,
 * as a broker's fetch response), and {@code /dev/null} ({@link BenchSupport.DevNullSink}; zero-copy
 * into a sink that costs nothing, so the engine's own work shows in full). MB/s = ops/s x {@link
 * #FETCH_BYTES}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
public class ReadBenchmark {

    static final long LOG_BYTES = 256L * 1024 * 1024;
    static final int FETCH_BYTES = 1024 * 1024;

    /** Bytes between the starts of two consecutive fetches: the whole batches in one fetch. */
    static final long REGION_STRIDE = (long) (FETCH_BYTES / AppendBenchmark.BATCH_BYTES) * AppendBenchmark.BATCH_BYTES;

    private Path dir;
    private IndexStore store;
    private PartitionLog log;
    private FileChannel raw;
    private ByteBuffer readBuffer;
    private final BenchSupport.DiscardingChannel sink = new BenchSupport.DiscardingChannel();
    private BenchSupport.LoopbackSocketSink socket;
    private BenchSupport.DevNullSink devNull;

    private long nextOffset;
    private long rawPosition;
    private long rawSize;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = BenchSupport.tempDir("read");
        store = IndexStore.open(dir.resolve("index"));
        log = BenchSupport.openLog(dir, store);
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(7);
        while (log.sizeInBytes() < LOG_BYTES) {
            log.appendAsLeader(BenchSupport.batch(random, 16, 1024, 1_700_000_000_000L), 0);
        }
        log.flush();
        raw = FileChannel.open(log.directory().resolve("00000000000000000000.log"), StandardOpenOption.READ);
        rawSize = raw.size();
        readBuffer = ByteBuffer.allocateDirect(FETCH_BYTES);
        socket = new BenchSupport.LoopbackSocketSink();
        devNull = new BenchSupport.DevNullSink();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        socket.close();
        devNull.close();
        raw.close();
        log.close();
        store.close();
        BenchSupport.deleteRecursively(dir);
    }

    /** Locate the region for the next offset, then send it with transferTo into the Java sink. */
    @Benchmark
    public long partitionLogReadTransferTo() throws IOException {
        return readAndSend(sink);
    }

    /** Locate the region for the next offset, then send it with transferTo into the socket. */
    @Benchmark
    public long partitionLogReadToSocket() throws IOException {
        return readAndSend(socket);
    }

    private long readAndSend(TransferableChannel destination) throws IOException {
        if (nextOffset >= log.logEndOffset()) {
            nextOffset = 0;
        }
        ReadResult result = log.read(nextOffset, FETCH_BYTES, Long.MAX_VALUE);
        int size = result.records().sizeInBytes();
        long sent = 0;
        while (sent < size) {
            sent += result.records().writeTo(destination, (int) sent, (int) (size - sent));
        }
        // Every batch holds 16 records and has the same size: advance without decoding.
        nextOffset += (size / AppendBenchmark.BATCH_BYTES) * 16L;
        return sent;
    }

    /** Baseline: sequential reads of the same file into a 1 MiB buffer. */
    @Benchmark
    public int rawFileChannelRead() throws IOException {
        if (rawPosition >= rawSize) {
            rawPosition = 0;
        }
        readBuffer.clear();
        int n = raw.read(readBuffer, rawPosition);
        rawPosition += n;
        return n;
    }

    /** Baseline: sequential transferTo of the engine's regions of the same file into the same Java sink. */
    @Benchmark
    public long rawFileChannelTransferTo() throws IOException {
        return rawTransfer(sink);
    }

    /** Locate the region for the next offset, then send it with transferTo into /dev/null. */
    @Benchmark
    public long partitionLogReadToDevNull() throws IOException {
        return readAndSend(devNull);
    }

    /** Baseline: sequential transferTo of the engine's regions of the same file into /dev/null. */
    @Benchmark
    public long rawFileChannelTransferToDevNull() throws IOException {
        return rawTransfer(devNull);
    }

    /** Baseline: sequential transferTo of the engine's regions of the same file into the socket. */
    @Benchmark
    public long rawFileChannelTransferToSocket() throws IOException {
        return rawTransfer(socket);
    }

    /**
     * Sends the next region as the engine reads it: 1 MiB starting where the engine's next fetch
     * starts (a batch boundary, {@link #REGION_STRIDE} after the last), so both send the same bytes
     * from the same file positions. Page-aligned 1 MiB regions (the first version of this baseline)
     * sent into the loopback socket about 25 % slower than these, which made the engine look faster
     * than its baseline.
     */
    private long rawTransfer(TransferableChannel destination) throws IOException {
        if (rawPosition + FETCH_BYTES > rawSize) {
            rawPosition = 0;
        }
        long sent = 0;
        while (sent < FETCH_BYTES) {
            sent += destination.transferFrom(raw, rawPosition + sent, FETCH_BYTES - sent);
        }
        rawPosition += REGION_STRIDE;
        return sent;
    }
}
