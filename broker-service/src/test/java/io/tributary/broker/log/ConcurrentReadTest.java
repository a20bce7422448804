package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.index.IndexStore;
import io.tributary.common.testing.BackgroundFailures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers racing one writer: every region a reader gets (with no byte limit) is non-empty below the
 * log end it saw and is made of whole, valid batches with contiguous offsets that stop before that
 * end, and the log end never goes backwards. Readers take no lock, so this is the test of the volatile publication.
 */
class ConcurrentReadTest {

    @TempDir
    Path dir;

    @Test
    void readersNeverSeeAPartlyWrittenBatch() throws Exception {
        TopicIdPartition tp = new TopicIdPartition(new Uuid(3, 3), 0, "race");
        ManualClock clock = new ManualClock(1_000_000);
        try (IndexStore store = IndexStore.open(dir.resolve("index"));
                PartitionLog log = PartitionLog.open(
                        dir.resolve("data"),
                        tp,
                        LogConfig.defaults().withSegmentBytes(64 * 1024).withIndexIntervalBytes(512),
                        store,
                        clock)) {
            AtomicBoolean done = new AtomicBoolean();
            ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
            AtomicLong reads = new AtomicLong();
            // A reader that throws must fail the test, not leave the other to make up the reads.
            BackgroundFailures background = new BackgroundFailures();
            List<BackgroundFailures.Task> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                long seed = r;
                readers.add(background.start("reader-" + r, task -> {
                    RandomGenerator random =
                            RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
                    long lastEnd = 0;
                    while (!done.get() || reads.get() < 100) {
                        long end = log.logEndOffset();
                        if (end < lastEnd) {
                            problems.add("log end went back from " + lastEnd + " to " + end);
                        }
                        lastEnd = end;
                        // Half the reads go for the newest record, where a publication bug would show.
                        long offset = end == 0 ? 0 : random.nextBoolean() ? end - 1 : random.nextLong(end + 1);
                        ReadResult result = log.read(offset, Integer.MAX_VALUE, Long.MAX_VALUE);
                        reads.incrementAndGet();
                        if (offset < result.logEndOffset() && result.isEmpty()) {
                            problems.add("nothing read at " + offset + " below the end " + result.logEndOffset());
                        }
                        int whole = 0;
                        long expected = -1;
                        for (RecordBatch batch : result.records().batches()) {
                            if (!batch.isValid()) {
                                problems.add("invalid batch at " + batch.baseOffset());
                            }
                            if (expected >= 0 && batch.baseOffset() != expected) {
                                problems.add("gap before " + batch.baseOffset());
                            }
                            if (batch.lastOffset() >= result.logEndOffset()) {
                                problems.add("batch " + batch.lastOffset() + " past the end " + result.logEndOffset());
                            }
                            expected = batch.lastOffset() + 1;
                            whole += batch.sizeInBytes();
                        }
                        if (whole != result.records().sizeInBytes()) {
                            problems.add("region of " + result.records().sizeInBytes() + " bytes holds " + whole
                                    + " bytes of whole batches");
                        }
                    }
                }));
            }
            RandomGenerator random =
                    RandomGeneratorFactory.of("L64X128MixRandom").create(99);
            for (int i = 0; i < 3_000; i++) {
                log.appendAsLeader(TestBatches.batch(random.nextInt(1, 10), 1_000 + i, random.nextInt(1, 300)), 0);
            }
            done.set(true);
            for (BackgroundFailures.Task reader : readers) {
                reader.join(Duration.ofSeconds(60));
            }
            background.check();
            assertThat(problems).isEmpty();
            assertThat(reads.get()).isGreaterThanOrEqualTo(100);
            assertThat(log.segmentBaseOffsets()).hasSizeGreaterThan(3);
        }
    }
}
