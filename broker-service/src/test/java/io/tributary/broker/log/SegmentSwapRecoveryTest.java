package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import io.tributary.broker.log.cleaner.CleanResult;
import io.tributary.broker.log.cleaner.Cleaner;
import io.tributary.broker.log.cleaner.CleanerConfig;
import io.tributary.broker.log.index.CleanerCheckpoint;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.broker.log.index.PartitionIndex;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A crash at each step of {@link SegmentSwap}'s protocol, simulated by leaving the partition
 * directory (and the index) as the step leaves them, then opening the log: it holds either every
 * original record or exactly the cleaned log, with an index that agrees with its segments, and no
 * {@code .cleaned} or {@code .swap} file. The cleaned bytes come from a twin log that really cleaned
 * the same appends.
 */
class SegmentSwapRecoveryTest {

    private static final TopicIdPartition TP = new TopicIdPartition(new Uuid(5, 6), 0, "swapped");

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000_000);
    private IndexStore twinStore;
    private IndexStore store;

    private static final LogConfig CONFIG = LogConfig.defaults()
            .withIndexIntervalBytes(150)
            .withCompaction(CompactionConfig.defaults().withCleanupPolicy(Set.of(CleanupPolicy.COMPACT)));

    @BeforeEach
    void openStores() {
        twinStore = IndexStore.open(dir.resolve("twin-index"));
        store = IndexStore.open(dir.resolve("index"));
    }

    @AfterEach
    void closeStores() {
        twinStore.close();
        store.close();
    }

    /** Where the crash leaves the swap of the cleaned range [0, end of the third segment). */
    enum CrashPoint {
        /** Step 1 cut short: half of the cleaned file written. */
        CLEANED_FILE_TORN(false),
        /** Step 1 done, not yet committed: the whole cleaned file, fsynced, under its .cleaned name. */
        CLEANED_FILE_WHOLE(false),
        /** Step 2 done: renamed to .swap; index untouched. */
        SWAP_COMMITTED(true),
        /** Step 3 done: the index entries of the range replaced. */
        INDEX_REPLACED(true),
        /** Step 4 cut short: the second original deleted, the third not. */
        ORIGINALS_PARTLY_DELETED(true),
        /** Step 4 done: every original but the first deleted. */
        ORIGINALS_DELETED(true),
        /** Step 5 done: the swap file renamed over the first original. */
        SWAP_RENAMED(true);

        final boolean cleanedWins;

        CrashPoint(boolean cleanedWins) {
            this.cleanedWins = cleanedWins;
        }
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void openingAfterACrashLeavesTheOriginalsOrTheCleanedLogNeverAMix(CrashPoint crash) throws IOException {
        PartitionLog twin = PartitionLog.open(dir.resolve("twin"), TP, CONFIG, twinStore, clock);
        List<Long> bases = fill(twin);
        long end = bases.get(3);
        TreeMap<Long, String> original = LogContents.records(twin);
        CleanResult cleaned = new Cleaner(CleanerConfig.defaults(), clock).clean(twin, twin.logEndOffset());
        assertThat(cleaned.segmentsSwapped()).isEqualTo(1);
        assertThat(twin.segmentBaseOffsets()).containsExactly(0L, end);
        TreeMap<Long, String> compacted = LogContents.records(twin);
        assertThat(compacted).isNotEqualTo(original);
        byte[] cleanedBytes = Files.readAllBytes(twin.directory().resolve(LogSegment.fileName(0)));
        twin.close();

        PartitionLog log = PartitionLog.open(dir.resolve("data"), TP, CONFIG, store, clock);
        assertThat(fill(log)).isEqualTo(bases);
        Path partitionDir = log.directory();
        log.closeAsIfCrashed();
        SegmentSwap.Range range = new SegmentSwap.Range(0, end);
        Path cleanedFile = partitionDir.resolve(SegmentSwap.cleanedFileName(range));
        Path swapFile = partitionDir.resolve(SegmentSwap.swapFileName(range));
        switch (crash) {
            case CLEANED_FILE_TORN -> Files.write(cleanedFile, Arrays.copyOf(cleanedBytes, cleanedBytes.length / 2));
            case CLEANED_FILE_WHOLE -> Files.write(cleanedFile, cleanedBytes);
            case SWAP_COMMITTED -> Files.write(swapFile, cleanedBytes);
            case INDEX_REPLACED -> {
                Files.write(swapFile, cleanedBytes);
                replaceIndexAsStepThree(swapFile, range);
            }
            case ORIGINALS_PARTLY_DELETED -> {
                Files.write(swapFile, cleanedBytes);
                replaceIndexAsStepThree(swapFile, range);
                Files.delete(partitionDir.resolve(LogSegment.fileName(bases.get(1))));
            }
            case ORIGINALS_DELETED -> {
                Files.write(swapFile, cleanedBytes);
                replaceIndexAsStepThree(swapFile, range);
                Files.delete(partitionDir.resolve(LogSegment.fileName(bases.get(1))));
                Files.delete(partitionDir.resolve(LogSegment.fileName(bases.get(2))));
            }
            case SWAP_RENAMED -> {
                Files.write(swapFile, cleanedBytes);
                replaceIndexAsStepThree(swapFile, range);
                Files.delete(partitionDir.resolve(LogSegment.fileName(bases.get(1))));
                Files.delete(partitionDir.resolve(LogSegment.fileName(bases.get(2))));
                Files.move(swapFile, partitionDir.resolve(LogSegment.fileName(0)), StandardCopyOption.REPLACE_EXISTING);
            }
        }

        PartitionLog reopened = PartitionLog.open(dir.resolve("data"), TP, CONFIG, store, clock);
        try {
            assertThat(LogContents.records(reopened))
                    .as(crash.name())
                    .isEqualTo(crash.cleanedWins ? compacted : original);
            assertThat(reopened.segmentBaseOffsets())
                    .as(crash.name())
                    .isEqualTo(crash.cleanedWins ? List.of(0L, end) : bases);
            assertThat(IndexAudit.violations(reopened, index()))
                    .as(crash.name())
                    .isEmpty();
            try (Stream<Path> files = Files.list(partitionDir)) {
                assertThat(files.map(p -> p.getFileName().toString())).allMatch(name -> name.endsWith(".log"));
            }
            // A clean after the recovery gives the compacted log.
            new Cleaner(CleanerConfig.defaults(), clock).clean(reopened, reopened.logEndOffset());
            assertThat(LogContents.records(reopened)).as(crash.name()).isEqualTo(compacted);
            assertThat(IndexAudit.violations(reopened, index()))
                    .as(crash.name())
                    .isEmpty();
        } finally {
            reopened.close();
        }
    }

    @Test
    void aSwapOfSegmentsATruncationChangedIsRefusedAndItsFileDeleted() throws IOException {
        PartitionLog log = PartitionLog.open(dir.resolve("data"), TP, CONFIG, store, clock);
        try {
            List<Long> bases = fill(log);
            CleanableSection section = log.compaction().cleanableSection(log.logEndOffset());
            assertThat(section.segments()).hasSize(3);
            SegmentSwap.Range range = new SegmentSwap.Range(0, bases.get(1));
            Path cleanedFile = log.directory().resolve(SegmentSwap.cleanedFileName(range));
            Files.copy(log.directory().resolve(LogSegment.fileName(0)), cleanedFile);
            log.truncateTo(5);
            TreeMap<Long, String> truncated = LogContents.records(log);

            boolean swapped = log.compaction()
                    .swapInCleaned(
                            List.of(section.segments().getFirst()),
                            range,
                            Optional.of(CleanerCheckpoint.at(bases.get(1))));

            assertThat(swapped).isFalse();
            assertThat(cleanedFile).doesNotExist();
            assertThat(LogContents.records(log)).isEqualTo(truncated);
            assertThat(log.compaction().cleanerCheckpoint()).isZero();
        } finally {
            log.close();
        }
    }

    private PartitionIndex index() {
        return store.partition(TP.topicId(), TP.partition());
    }

    /** What step 3 writes: the cleaned file's entries over the range, in one batch. */
    private void replaceIndexAsStepThree(Path swapFile, SegmentSwap.Range range) {
        LogSegment swapped = LogSegment.openFile(swapFile, range.baseOffset(), clock.millis());
        try {
            SegmentSwap.IndexEntries entries = SegmentSwap.indexEntries(
                    swapped, CONFIG.indexIntervalBytes(), RecordBatch.NO_TIMESTAMP, RecordBatch.NO_TIMESTAMP, -1);
            index().replaceRange(
                            range.baseOffset(),
                            range.endOffset(),
                            entries.offsets(),
                            entries.times(),
                            Optional.of(CleanerCheckpoint.at(range.endOffset())));
        } finally {
            swapped.close();
        }
    }

    /**
     * Three closed segments of ten batches of three records over five keys (so most records have a
     * later version), with increasing timestamps, then an active segment of two batches; flushed.
     * Returns the segment base offsets.
     */
    private List<Long> fill(PartitionLog log) {
        long timestamp = 500_000;
        for (int segment = 0; segment < 3; segment++) {
            for (int b = 0; b < 10; b++) {
                append(log, segment * 10 + b, timestamp);
                timestamp += 10;
            }
            log.roll();
        }
        append(log, 100, timestamp);
        append(log, 101, timestamp + 10);
        log.flush();
        return log.segmentBaseOffsets();
    }

    private static void append(PartitionLog log, int batch, long timestamp) {
        SimpleRecord[] records = new SimpleRecord[3];
        for (int i = 0; i < 3; i++) {
            int key = (batch * 3 + i) % 5;
            byte[] value = (batch % 7 == 3 && i == 0) ? null : LogContents.bytes("b" + batch + "-" + i);
            records[i] = new SimpleRecord(timestamp + i, LogContents.bytes("key-" + key), value);
        }
        Compression codec =
                batch % 2 == 0 ? Compression.NONE : Compression.gzip().build();
        log.appendAsLeader(MemoryRecords.withRecords(codec, records), 0);
    }
}
