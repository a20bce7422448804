package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.index.IndexStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM ({@link CrashTestAppender}) appends in a loop and is killed with SIGKILL at a random
 * moment, 20 times over the same directories. After each kill the parent opens the log and checks:
 * every batch below the last recovery point the child reported is there (and, since SIGKILL keeps
 * the page cache, every batch the child reported appended), records are contiguous and hold the
 * values written for their offsets, no segment ends in a partial batch, and the index agrees with
 * a full scan. Progress is awaited by reading the child's stdout, never by sleeping.
 */
class CrashTest {

    private static final int KILLS = 20;

    @TempDir
    Path dir;

    @Test
    void everyBatchUpToTheRecoveryPointSurvivesSigkill() throws Exception {
        Path data = dir.resolve("data");
        Path indexDir = dir.resolve("index");
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(20261129L);
        String java = ProcessHandle.current().info().command().orElseThrow(() -> new AssertionError("no java command"));
        String classpath = System.getProperty("java.class.path");
        long highestSeen = -1;

        for (int round = 0; round < KILLS; round++) {
            int appendsBeforeKill = random.nextInt(1, 250);
            Process child = new ProcessBuilder(
                            java,
                            "--enable-native-access=ALL-UNNAMED",
                            "-Xshare:auto",
                            "-XX:TieredStopAtLevel=1",
                            "-cp",
                            classpath,
                            CrashTestAppender.class.getName(),
                            data.toString(),
                            indexDir.toString(),
                            Long.toString(round))
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            long lastAppended = -1;
            long lastRecoveryPoint = 0;
            int appends = 0;
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while (appends < appendsBeforeKill && (line = out.readLine()) != null) {
                    if (line.startsWith("APPENDED ")) {
                        String[] parts = line.split(" ");
                        lastAppended = Long.parseLong(parts[1]);
                        lastRecoveryPoint = Long.parseLong(parts[2]);
                        appends++;
                    }
                }
                child.destroyForcibly();
                child.waitFor();
            }
            assertThat(appends)
                    .as("round %d: the child must append before it is killed", round)
                    .isEqualTo(appendsBeforeKill);
            highestSeen = Math.max(highestSeen, lastAppended);
            verify(data, indexDir, round, lastAppended, lastRecoveryPoint, random.nextBoolean());
        }
        assertThat(highestSeen).isPositive();
    }

    private static void verify(
            Path data, Path indexDir, int round, long lastAppended, long lastRecoveryPoint, boolean closeCleanly)
            throws IOException {
        String where = "round " + round;
        try (IndexStore store = IndexStore.open(indexDir)) {
            PartitionLog log = PartitionLog.open(
                    data, CrashTestAppender.PARTITION, CrashTestAppender.CONFIG, store, InstantSource.system());
            try {
                assertThat(log.openReport().cleanShutdown()).as(where).isFalse();
                assertThat(log.recoveryPoint())
                        .as(where + ": recovery point")
                        .isGreaterThanOrEqualTo(lastRecoveryPoint);
                assertThat(log.logEndOffset())
                        .as(where + ": every reported batch is there")
                        .isGreaterThan(lastAppended);
                long expected = 0;
                for (PartitionLog.Located located : log.scanAllBatches()) {
                    RecordBatch batch = located.segment().readBatch(located.header());
                    assertThat(batch.isValid()).as(where).isTrue();
                    for (Record record : batch) {
                        assertThat(record.offset())
                                .as(where + ": contiguous offsets")
                                .isEqualTo(expected);
                        String value =
                                StandardCharsets.UTF_8.decode(record.value()).toString();
                        assertThat(value).as(where).startsWith(CrashTestAppender.valueFor(expected) + "-");
                        expected++;
                    }
                }
                assertThat(expected).as(where + ": scanned up to the log end").isEqualTo(log.logEndOffset());
                List<PartitionLog.Located> batches = log.scanAllBatches();
                for (long base : log.segmentBaseOffsets()) {
                    Path file = log.directory().resolve(LogSegment.fileName(base));
                    long end = batches.stream()
                            .filter(l -> l.segment().baseOffset() == base)
                            .mapToLong(l ->
                                    l.header().position() + (long) l.header().sizeInBytes())
                            .max()
                            .orElse(0);
                    assertThat(Files.size(file))
                            .as(where + ": no partial batch in " + file)
                            .isEqualTo(end);
                }
                assertThat(IndexAudit.violations(
                                log,
                                store.partition(
                                        CrashTestAppender.PARTITION.topicId(),
                                        CrashTestAppender.PARTITION.partition())))
                        .as(where + ": index vs full scan")
                        .isEmpty();
            } finally {
                if (closeCleanly) {
                    log.close();
                } else {
                    log.closeAsIfCrashed();
                }
            }
        }
    }
}
