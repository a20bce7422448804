package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import io.tributary.broker.log.cleaner.CleanResult;
import io.tributary.broker.log.cleaner.Cleaner;
import io.tributary.broker.log.cleaner.CleanerConfig;
import io.tributary.broker.log.index.IndexStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the cleanable section of a log ends, and what it counts as clean and dirty. */
class CleanableSectionTest {

    private static final TopicIdPartition TP = new TopicIdPartition(new Uuid(3, 4), 0, "section");
    private static final LogConfig COMPACT = LogConfig.defaults()
            .withCompaction(CompactionConfig.defaults().withCleanupPolicy(Set.of(CleanupPolicy.COMPACT)));

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000_000);
    private IndexStore store;
    private PartitionLog log;

    @BeforeEach
    void openStore() {
        store = IndexStore.open(dir.resolve("index"));
    }

    @AfterEach
    void closeAll() {
        if (log != null) {
            log.close();
        }
        store.close();
    }

    /** Three closed segments of ten records (bases 0, 10, 20) and an active one (base 30). */
    private void fill(long... segmentTimestamps) {
        for (long timestamp : segmentTimestamps) {
            SimpleRecord[] records = new SimpleRecord[10];
            for (int i = 0; i < 10; i++) {
                records[i] = new SimpleRecord(timestamp, LogContents.bytes("k" + i), LogContents.bytes("v"));
            }
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records), 0);
            log.roll();
        }
    }

    @Test
    void theSectionEndsAtTheActiveSegmentOrTheSegmentHoldingTheHighWatermark() {
        log = PartitionLog.open(dir.resolve("data"), TP, COMPACT, store, clock);
        fill(999_000, 999_000, 999_000);

        CleanableSection all = log.compaction().cleanableSection(Long.MAX_VALUE);
        CleanableSection belowHighWatermark = log.compaction().cleanableSection(15);

        assertThat(all.firstUncleanableOffset()).isEqualTo(30);
        assertThat(all.segments()).extracting(LogSegment::baseOffset).containsExactly(0L, 10L, 20L);
        assertThat(all.firstDirtyOffset()).isZero();
        assertThat(all.cleanBytes()).isZero();
        assertThat(all.dirtyBytes()).isEqualTo(log.sizeInBytes());
        assertThat(all.firstDirtyTimestampMs()).hasValue(999_000);
        assertThat(belowHighWatermark.firstUncleanableOffset()).isEqualTo(10);
        assertThat(belowHighWatermark.segments())
                .extracting(LogSegment::baseOffset)
                .containsExactly(0L);
        assertThat(log.compaction().cleanableSection(10).firstUncleanableOffset())
                .isEqualTo(10);
    }

    /**
     * A log whose start offset is past the bound (a follower whose high watermark is still below the
     * records deleted before it, as in the degraded test cluster: "first dirty offset 4 is past the
     * uncleanable 0" failed every cleaner round): nothing is cleanable, and asking is no error.
     */
    @Test
    void aLogStartPastTheBoundLeavesNothingCleanable() {
        log = PartitionLog.open(dir.resolve("data"), TP, COMPACT, store, clock);
        fill(999_000, 999_000, 999_000);
        log.deleteRecordsBefore(4);

        CleanableSection section = log.compaction().cleanableSection(2);

        assertThat(section.firstDirtyOffset()).isEqualTo(section.firstUncleanableOffset());
        assertThat(section.dirtyBytes()).isZero();
    }

    @Test
    void segmentsNotYetFsyncedByTheirRollAreNotCleanable() {
        List<Runnable> pendingFlushes = new ArrayList<>();
        log = PartitionLog.open(
                dir.resolve("data"), TP, COMPACT, ProducerStateConfig.defaults(), store, clock, pendingFlushes::add);
        fill(999_000, 999_000, 999_000);

        assertThat(log.compaction().cleanableSection(Long.MAX_VALUE).segments()).isEmpty();
        pendingFlushes.forEach(Runnable::run);
        assertThat(log.compaction().cleanableSection(Long.MAX_VALUE).firstUncleanableOffset())
                .isEqualTo(30);
    }

    @Test
    void aSegmentHoldingARecordYoungerThanTheMinimumCompactionLagEndsTheSection() {
        log = PartitionLog.open(
                dir.resolve("data"),
                TP,
                COMPACT.withCompaction(COMPACT.compaction().withMinCompactionLag(Duration.ofSeconds(10))),
                store,
                clock);
        fill(900_000, 995_000, 999_000);

        assertThat(log.compaction().cleanableSection(Long.MAX_VALUE).firstUncleanableOffset())
                .isEqualTo(10);
        clock.advance(Duration.ofSeconds(6));
        assertThat(log.compaction().cleanableSection(Long.MAX_VALUE).firstUncleanableOffset())
                .isEqualTo(20);
        clock.advance(Duration.ofSeconds(5));
        assertThat(log.compaction().cleanableSection(Long.MAX_VALUE).firstUncleanableOffset())
                .isEqualTo(30);
    }

    @Test
    void afterACleanTheCleanedSegmentsCountAsCleanAndNothingIsDirty() {
        log = PartitionLog.open(dir.resolve("data"), TP, COMPACT, store, clock);
        fill(999_000, 999_000, 999_000);

        CleanResult result = new Cleaner(CleanerConfig.defaults(), clock).clean(log, Long.MAX_VALUE);
        CleanableSection after = log.compaction().cleanableSection(Long.MAX_VALUE);

        assertThat(result.checkpoint()).isEqualTo(30);
        assertThat(after.firstDirtyOffset()).isEqualTo(30);
        assertThat(after.dirtyBytes()).isZero();
        assertThat(after.cleanBytes()).isEqualTo(log.sizeInBytes());
        assertThat(after.dirtyRatio()).isZero();
    }

    @Test
    void aTruncationBelowTheCheckpointLowersItDurably() {
        log = PartitionLog.open(dir.resolve("data"), TP, COMPACT, store, clock);
        fill(999_000, 999_000, 999_000);
        new Cleaner(CleanerConfig.defaults(), clock).clean(log, Long.MAX_VALUE);

        log.truncateTo(25);
        assertThat(log.compaction().cleanerCheckpoint()).isEqualTo(20);
        log.close();
        log = PartitionLog.open(dir.resolve("data"), TP, COMPACT, store, clock);

        assertThat(log.compaction().cleanerCheckpoint()).isEqualTo(20);
        fill(999_500);
        CleanableSection section = log.compaction().cleanableSection(Long.MAX_VALUE);
        assertThat(section.firstUncleanableOffset()).isEqualTo(30);
        assertThat(section.firstDirtyOffset()).isEqualTo(20);
    }

    @Test
    void aSectionsSegmentsAreHeldUntilRetentionTakesOne() {
        log = PartitionLog.open(
                dir.resolve("data"),
                TP,
                COMPACT.withRetentionTime(Optional.of(Duration.ofSeconds(10)))
                        .withCompaction(COMPACT.compaction()
                                .withCleanupPolicy(Set.of(CleanupPolicy.COMPACT, CleanupPolicy.DELETE))),
                store,
                clock);
        fill(900_000, 999_000, 999_000);
        List<LogSegment> segments =
                log.compaction().cleanableSection(Long.MAX_VALUE).segments();

        assertThat(log.compaction().holdsSegments(segments)).isTrue();
        assertThat(log.deleteExpiredSegments(16).segmentsDeleted()).isEqualTo(1);
        assertThat(log.compaction().holdsSegments(segments)).isFalse();
        assertThat(log.compaction().holdsSegments(segments.subList(1, 3))).isTrue();
        log.close();
        assertThat(log.compaction().holdsSegments(List.of())).isFalse();
    }
}
