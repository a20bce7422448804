package io.tributary.broker.bench;

import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.ReadResult;
import io.tributary.broker.log.index.IndexStore;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
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
 * Random offset lookups in a partition holding 10 million offsets (100 000 batches of 100 records
 * of 16 bytes, about 330 MB, default 4096-byte index interval): {@code read(offset, 1, ...)} finds
 * the batch containing the offset (RocksDB seekForPrev, then batch headers from the index entry)
 * and returns its region. Sample mode: the percentiles are per lookup.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
public class OffsetLookupBenchmark {

    static final int BATCHES = 100_000;
    static final int RECORDS_PER_BATCH = 100;
    static final int PROBES = 1 << 16;

    private Path dir;
    private IndexStore store;
    private PartitionLog log;
    private final long[] probes = new long[PROBES];
    private int cursor;

    @Setup(Level.Trial)
    public void setUp() {
        dir = BenchSupport.tempDir("lookup");
        store = IndexStore.open(dir.resolve("index"));
        log = BenchSupport.openLog(dir, store);
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(10);
        MemoryRecords template = BenchSupport.batch(random, RECORDS_PER_BATCH, 16, 1_700_000_000_000L);
        for (int i = 0; i < BATCHES; i++) {
            log.appendAsLeader(template, 0);
        }
        log.flush();
        if (log.logEndOffset() != (long) BATCHES * RECORDS_PER_BATCH) {
            throw new IllegalStateException("expected 10 million offsets, got " + log.logEndOffset());
        }
        for (int i = 0; i < PROBES; i++) {
            probes[i] = random.nextLong(log.logEndOffset());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        log.close();
        store.close();
        BenchSupport.deleteRecursively(dir);
    }

    @Benchmark
    public ReadResult lookup() {
        long offset = probes[cursor++ & (PROBES - 1)];
        return log.read(offset, 1, Long.MAX_VALUE);
    }
}
