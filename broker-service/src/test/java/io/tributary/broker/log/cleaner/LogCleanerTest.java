package io.tributary.broker.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.CompactionConfig;
import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.LogContents;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.index.IndexStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogCleanerTest {

    private static final LogConfig COMPACT = LogConfig.defaults()
            .withCompaction(CompactionConfig.defaults().withCleanupPolicy(Set.of(CleanupPolicy.COMPACT)));

    @TempDir
    Path dir;

    private final InstantSource clock = InstantSource.fixed(Instant.ofEpochMilli(1_000_000));
    private IndexStore store;
    private final List<PartitionLog> logs = new ArrayList<>();

    @BeforeEach
    void openStore() {
        store = IndexStore.open(dir.resolve("index"));
    }

    @AfterEach
    void closeAll() {
        logs.forEach(PartitionLog::close);
        store.close();
    }

    private PartitionLog open(String topic, LogConfig config) {
        PartitionLog log = PartitionLog.open(
                dir.resolve("data"), new TopicIdPartition(Uuid.randomUuid(), 0, topic), config, store, clock);
        logs.add(log);
        return log;
    }

    /** {@code segments} closed segments of one batch of {@code records} records over ten keys. */
    private static void fill(PartitionLog log, int segments, int records) {
        for (int s = 0; s < segments; s++) {
            SimpleRecord[] batch = new SimpleRecord[records];
            for (int i = 0; i < records; i++) {
                batch[i] = new SimpleRecord(
                        999_000, LogContents.bytes("k" + (i % 10)), LogContents.bytes("v" + s + "-" + i));
            }
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, batch), 0);
            log.roll();
        }
    }

    private static LogCleaner.Target target(PartitionLog log) {
        return new LogCleaner.Target(log, Long.MAX_VALUE);
    }

    @Test
    void eachRoundCleansTheDirtiestDueLogAndNeverOneThatDoesNotCompact() {
        PartitionLog mostlyClean = open("mostly-clean", COMPACT);
        fill(mostlyClean, 3, 10);
        new Cleaner(CleanerConfig.defaults(), clock).clean(mostlyClean, Long.MAX_VALUE);
        fill(mostlyClean, 2, 10);
        PartitionLog dirty = open("dirty", COMPACT);
        fill(dirty, 3, 10);
        PartitionLog deleting = open("deleting", LogConfig.defaults());
        fill(deleting, 3, 10);
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock);
        List<LogCleaner.Target> targets = List.of(target(mostlyClean), target(dirty), target(deleting));

        Optional<CleanResult> first = cleaner.runRound(targets);
        Optional<CleanResult> second = cleaner.runRound(targets);
        Optional<CleanResult> third = cleaner.runRound(targets);

        assertThat(first).hasValueSatisfying(r -> assertThat(r.checkpoint()).isEqualTo(30));
        assertThat(dirty.cleanerCheckpoint()).isEqualTo(30);
        assertThat(second)
                .hasValueSatisfying(r -> assertThat(r.firstDirtyBefore()).isEqualTo(30));
        assertThat(mostlyClean.cleanerCheckpoint()).isEqualTo(50);
        assertThat(third).isEmpty();
        assertThat(deleting.cleanerCheckpoint()).isZero();
        assertThat(LogContents.records(deleting)).hasSize(30);
    }

    @Test
    void aLogWhoseCleaningFailsIsMarkedUncleanableAndTheOthersAreStillCleaned() {
        PartitionLog tooManyKeysInABatch = open("too-many-keys", COMPACT);
        fill(tooManyKeysInABatch, 2, 20);
        PartitionLog fine = open("fine", COMPACT);
        fill(fine, 2, 5);
        // 11 slots, 9 keys: a batch of 20 records never fits, one of 5 does. Both logs are all
        // dirty: the tie goes to the first given.
        LogCleaner cleaner = new LogCleaner(new CleanerConfig(24 * 12, 0.9, 4096), clock);

        Optional<CleanResult> failed = cleaner.runRound(List.of(target(tooManyKeysInABatch), target(fine)));
        Optional<CleanResult> next = cleaner.runRound(List.of(target(tooManyKeysInABatch), target(fine)));

        assertThat(failed).isEmpty();
        assertThat(cleaner.uncleanablePartitions()).containsExactly(tooManyKeysInABatch.topicIdPartition());
        assertThat(next).hasValueSatisfying(r -> assertThat(r.outcome()).isEqualTo(CleanResult.Outcome.CLEANED));
        assertThat(fine.cleanerCheckpoint()).isPositive();
        assertThat(LogContents.records(tooManyKeysInABatch)).hasSize(40);
        cleaner.forget(tooManyKeysInABatch.topicIdPartition());
        assertThat(cleaner.uncleanablePartitions()).isEmpty();
    }

    @Test
    void tombstonesKeptByAPassAreDroppedByARoundAfterTheirHorizonThoughNothingIsDirty() {
        AtomicLong nowMs = new AtomicLong(1_000_000);
        InstantSource movingClock = () -> Instant.ofEpochMilli(nowMs.get());
        LogConfig config = COMPACT.withCompaction(COMPACT.compaction().withDeleteRetention(Duration.ofSeconds(1)));
        PartitionLog log = PartitionLog.open(
                dir.resolve("data"),
                new TopicIdPartition(Uuid.randomUuid(), 0, "tombstones"),
                config,
                store,
                movingClock);
        logs.add(log);
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
