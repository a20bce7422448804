package io.tributary.broker.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.LogContents;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.SegmentSwap;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LogCleanerTest {

    private static final LogConfig COMPACT = CleanerTestLogs.COMPACT;

    private final InstantSource clock = InstantSource.fixed(Instant.ofEpochMilli(1_000_000));

    @RegisterExtension
    final CleanerTestLogs logs = new CleanerTestLogs(clock);

    private PartitionLog open(String topic, LogConfig config) {
        return logs.open(topic, config);
    }

    /** {@code segments} closed segments of one batch of {@code records} records over ten keys. */
    private static void fill(PartitionLog log, int segments, int records) {
        CleanerTestLogs.fill(log, segments, records, 999_000);
    }

    /** A compacted log of {@code segments} closed segments of {@code records} records. */
    private PartitionLog dirty(String topic, int segments, int records) {
        PartitionLog log = open(topic, COMPACT);
        fill(log, segments, records);
        return log;
    }

    private static LogCleaner.Target target(PartitionLog log) {
        return CleanerTestLogs.target(log);
    }

    @Test
    void eachRoundCleansTheDirtiestDueLogAndNeverOneThatDoesNotCompact() {
        PartitionLog mostlyClean = dirty("mostly-clean", 3, 10);
        new Cleaner(CleanerConfig.defaults(), clock).clean(mostlyClean, Long.MAX_VALUE);
        fill(mostlyClean, 2, 10);
        PartitionLog dirty = dirty("dirty", 3, 10);
        PartitionLog deleting = open("deleting", LogConfig.defaults());
        fill(deleting, 3, 10);
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock);
        List<LogCleaner.Target> targets = List.of(target(mostlyClean), target(dirty), target(deleting));

        Optional<CleanResult> first = cleaner.runRound(targets);
        Optional<CleanResult> second = cleaner.runRound(targets);
        Optional<CleanResult> third = cleaner.runRound(targets);

        assertThat(first).hasValueSatisfying(r -> assertThat(r.checkpoint()).isEqualTo(30));
        assertThat(dirty.compaction().cleanerCheckpoint()).isEqualTo(30);
        assertThat(second)
                .hasValueSatisfying(r -> assertThat(r.firstDirtyBefore()).isEqualTo(30));
        assertThat(mostlyClean.compaction().cleanerCheckpoint()).isEqualTo(50);
        assertThat(third).isEmpty();
        assertThat(deleting.compaction().cleanerCheckpoint()).isZero();
        assertThat(LogContents.records(deleting)).hasSize(30);
    }

    @Test
    void aLogWhoseCleaningFailsIsMarkedUncleanableAndTheSameRoundCleansTheNext() {
        PartitionLog tooManyKeysInABatch = dirty("too-many-keys", 2, 20);
        PartitionLog fine = dirty("fine", 2, 5);
        // 11 slots, 9 keys: a batch of 20 records never fits, one of 5 does. Both logs are all
        // dirty: the tie goes to the first given.
        LogCleaner cleaner = new LogCleaner(new CleanerConfig(24 * 12, 0.9, 4096), clock);
        List<LogCleaner.Target> targets = List.of(target(tooManyKeysInABatch), target(fine));

        Optional<CleanResult> first = cleaner.runRound(targets);
        Optional<CleanResult> next = cleaner.runRound(targets);

        // The map holds one batch of 5 at a time: the pass stops after it (the rest is not dirty enough
        // for the next round), and the failed log is not tried again.
        assertThat(first).hasValueSatisfying(r -> assertThat(r.checkpoint()).isEqualTo(5));
        assertThat(fine.compaction().cleanerCheckpoint()).isEqualTo(5);
        assertThat(next).isEmpty();
        assertThat(cleaner.uncleanablePartitions()).containsExactly(tooManyKeysInABatch.topicIdPartition());
        assertThat(LogContents.records(tooManyKeysInABatch)).hasSize(40);
        cleaner.forget(tooManyKeysInABatch.topicIdPartition());
        assertThat(cleaner.uncleanablePartitions()).isEmpty();
    }

    @Test
    void aLogWithACorruptSegmentIsMarkedUncleanableWhileTheRoundCleansAnotherAndLaterRoundsSkipIt() {
        PartitionLog corrupt = dirty("corrupt", 3, 10);
        PartitionLog fine = dirty("fine", 3, 10);
        CorruptSegments.corruptFirstRecord(corrupt);
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock);
        List<LogCleaner.Target> targets = List.of(target(corrupt), target(fine));

        Optional<CleanResult> first = cleaner.runRound(targets);
        fill(fine, 3, 10);
        Optional<CleanResult> second = cleaner.runRound(targets);

        // The corrupt log came first (equal dirty ratios): its failure did not end the round.
        assertThat(first).hasValueSatisfying(r -> {
            assertThat(r.outcome()).isEqualTo(CleanResult.Outcome.CLEANED);
            assertThat(r.checkpoint()).isEqualTo(30);
        });
        assertThat(cleaner.uncleanablePartitions()).containsExactly(corrupt.topicIdPartition());
        assertThat(corrupt.compaction().cleanerCheckpoint()).isZero();
        assertThat(second)
                .hasValueSatisfying(r -> assertThat(r.firstDirtyBefore()).isEqualTo(30));
        assertThat(fine.compaction().cleanerCheckpoint()).isEqualTo(60);
        assertThat(corrupt.directory()).isDirectoryNotContaining("glob:**.{cleaned,swap}");
    }

    @Test
    void aLogWhoseSwapFailsIsMarkedUncleanableWhileTheRoundCleansAnother() throws Exception {
        PartitionLog blocked = dirty("blocked", 3, 10);
        PartitionLog fine = dirty("fine", 3, 10);
        // A non-empty directory where step 2 renames the cleaned file to: the rename fails.
        String swapName =
                SegmentSwap.cleanedFileName(new SegmentSwap.Range(0, 30)).replace(".cleaned", ".swap");
        Files.createDirectories(blocked.directory().resolve(swapName).resolve("occupied"));
        var before = LogContents.records(blocked);
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock);

        Optional<CleanResult> round = cleaner.runRound(List.of(target(blocked), target(fine)));

        assertThat(round).hasValueSatisfying(r -> assertThat(r.checkpoint()).isEqualTo(30));
        assertThat(fine.compaction().cleanerCheckpoint()).isEqualTo(30);
        assertThat(cleaner.uncleanablePartitions()).containsExactly(blocked.topicIdPartition());
        assertThat(LogContents.records(blocked)).isEqualTo(before);
        assertThat(blocked.compaction().cleanerCheckpoint()).isZero();
        assertThat(blocked.directory()).isDirectoryNotContaining("glob:**.cleaned");
    }

    @Test
    void aLogClosedUnderTheCleanerIsNotMarkedUncleanable() {
        PartitionLog closed = dirty("closed", 3, 10);
        PartitionLog fine = dirty("fine", 3, 10);
        closed.close();
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock);

        Optional<CleanResult> round = cleaner.runRound(List.of(target(closed), target(fine)));

        assertThat(round).hasValueSatisfying(r -> assertThat(r.checkpoint()).isEqualTo(30));
        assertThat(cleaner.uncleanablePartitions()).isEmpty();
    }

    @Test
    void aStoppedCleanerRunsNoRound() {
        PartitionLog dirty = dirty("dirty", 3, 10);
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock);

        cleaner.stop();

        assertThat(cleaner.runRound(List.of(target(dirty)))).isEmpty();
        assertThat(dirty.compaction().cleanerCheckpoint()).isZero();
    }

    @Test
    void stopWakesAPassSleepingInTheThrottleAndEndsItWithoutChangingTheLog() throws Exception {
        PartitionLog dirty = dirty("throttled", 3, 10);
        var before = LogContents.records(dirty);
        // 1 byte a second on a clock that never moves: the first read sleeps for minutes.
        LogCleaner cleaner = new LogCleaner(new CleanerConfig(1 << 20, 0.9, 4096, OptionalLong.of(1)), clock);
        CompletableFuture<Optional<CleanResult>> round = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().name("throttled-cleaner").start(() -> {
            try {
                round.complete(cleaner.runRound(List.of(target(dirty))));
            } catch (Throwable t) {
                round.completeExceptionally(t);
            }
        });
        Awaitility.await().until(() -> thread.getState() == Thread.State.TIMED_WAITING);

        cleaner.stop();

        assertThat(round.get(30, TimeUnit.SECONDS))
                .hasValueSatisfying(r -> assertThat(r.outcome()).isEqualTo(CleanResult.Outcome.ABORTED));
        thread.join();
        assertThat(LogContents.records(dirty)).isEqualTo(before);
        assertThat(dirty.compaction().cleanerCheckpoint()).isZero();
        assertThat(cleaner.uncleanablePartitions()).isEmpty();
    }

    @Test
    void tombstonesKeptByAPassAreDroppedByARoundAfterTheirHorizonThoughNothingIsDirty() {
        AtomicLong nowMs = new AtomicLong(1_000_000);
        InstantSource movingClock = () -> Instant.ofEpochMilli(nowMs.get());
        LogConfig config = COMPACT.withCompaction(COMPACT.compaction().withDeleteRetention(Duration.ofSeconds(1)));
        PartitionLog log = logs.open("tombstones", config, movingClock);
        fill(log, 1, 10);
        SimpleRecord[] tombstones = new SimpleRecord[10];
        for (int i = 0; i < 10; i++) {
            tombstones[i] = new SimpleRecord(999_000, LogContents.bytes("k" + i), null);
        }
        log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, tombstones), 0);
        log.roll();
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), movingClock);
        List<LogCleaner.Target> targets = List.of(target(log));

        Optional<CleanResult> first = cleaner.runRound(targets);
        Optional<CleanResult> beforeHorizon = cleaner.runRound(targets);
        nowMs.addAndGet(1_000);
        Optional<CleanResult> atHorizon = cleaner.runRound(targets);
        Optional<CleanResult> after = cleaner.runRound(targets);

        assertThat(first)
                .hasValueSatisfying(
                        r -> assertThat(r.earliestTombstoneHorizonMs()).hasValue(1_001_000));
        assertThat(beforeHorizon).isEmpty();
        assertThat(atHorizon).hasValueSatisfying(r -> {
            assertThat(r.outcome()).isEqualTo(CleanResult.Outcome.CLEANED);
            assertThat(r.earliestTombstoneHorizonMs()).isEmpty();
        });
        assertThat(LogContents.records(log)).isEmpty();
        assertThat(after).isEmpty();
    }
}
