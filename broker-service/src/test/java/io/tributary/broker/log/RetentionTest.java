package io.tributary.broker.log;

import static io.tributary.broker.log.TestBatches.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.log.index.IndexStore;
import io.tributary.broker.log.index.OffsetPosition;
import io.tributary.broker.log.index.TimestampOffset;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionTest {

    private static final TopicIdPartition TP = new TopicIdPartition(new Uuid(5, 5), 0, "retained");
    private static final int BATCH_BYTES = batch(1, 0, 100).sizeInBytes();

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(10_000_000);
    private IndexStore store;
    private PartitionLog log;

    @BeforeEach
    void openStore() {
        store = IndexStore.open(dir.resolve("index"));
    }

    @AfterEach
    void closeAll() {
        log.close();
        store.close();
    }

    /** Two batches per segment; batch i has timestamp {@code 1000 * i}. */
    private void fill(LogConfig config, int batches) {
        log = PartitionLog.open(dir.resolve("data"), TP, config.withSegmentBytes(2 * BATCH_BYTES), store, clock);
        for (int i = 0; i < batches; i++) {
            log.appendAsLeader(batch(1, 1_000L * i, 100), 0);
        }
    }

    @Test
    void timeRetentionDeletesClosedSegmentsWhoseNewestRecordIsTooOld() {
        clock.advance(Duration.ofMillis(-10_000_000 + 10_000)); // now = 10 000 ms
        fill(LogConfig.defaults().withRetentionTime(Optional.of(Duration.ofMillis(8_500))), 7);
        // segments [0,1] newest 1000, [2,3] newest 3000, [4,5] newest 5000, [6] active

        RetentionResult result = log.deleteExpiredSegments(10);

        assertThat(result).isEqualTo(new RetentionResult(1, 2L * BATCH_BYTES, 2));
        assertThat(log.segmentBaseOffsets()).containsExactly(2L, 4L, 6L);
        assertThat(log.logStartOffset()).isEqualTo(2);
        assertThatThrownBy(() -> log.read(1, 100, Long.MAX_VALUE)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(store.partition(TP.topicId(), TP.partition()).offsetEntries())
                .extracting(OffsetPosition::offset)
                .allSatisfy(o -> assertThat(o).isGreaterThanOrEqualTo(2));
    }

    @Test
    void timeRetentionNeverDeletesTheActiveSegment() {
        clock.advance(Duration.ofDays(30));
        fill(LogConfig.defaults(), 3);

        log.deleteExpiredSegments(10);

        assertThat(log.segmentBaseOffsets()).containsExactly(2L);
        assertThat(log.logStartOffset()).isEqualTo(2);
        assertThat(log.logEndOffset()).isEqualTo(3);
    }

    @Test
    void eachRunDeletesAtMostTheGivenNumberOfSegments() {
        clock.advance(Duration.ofDays(30));
        fill(LogConfig.defaults(), 9);

        assertThat(log.deleteExpiredSegments(2).segmentsDeleted()).isEqualTo(2);
        assertThat(log.segmentBaseOffsets()).containsExactly(4L, 6L, 8L);
        assertThat(log.deleteExpiredSegments(2).segmentsDeleted()).isEqualTo(2);
        assertThat(log.segmentBaseOffsets()).containsExactly(8L);
        assertThat(log.deleteExpiredSegments(2).segmentsDeleted()).isZero();
    }

    @Test
    void sizeRetentionDeletesOldestSegmentsWhileTheRestStillReachesTheLimit() {
        fill(
                LogConfig.defaults()
                        .withRetentionTime(Optional.empty())
                        .withRetentionBytes(OptionalLong.of(3L * BATCH_BYTES)),
                7); // 7 batches in segments of 2, 2, 2, 1

        RetentionResult result = log.deleteExpiredSegments(10);

        // 7 - 2 = 5 >= 3: delete; 5 - 2 = 3 >= 3: delete; 3 - 2 = 1 < 3: keep.
        assertThat(result.segmentsDeleted()).isEqualTo(2);
        assertThat(log.segmentBaseOffsets()).containsExactly(4L, 6L);
        assertThat(log.sizeInBytes()).isEqualTo(3L * BATCH_BYTES);
    }

    @Test
    void unlimitedRetentionDeletesNothing() {
        clock.advance(Duration.ofDays(3650));
        fill(LogConfig.defaults().withRetentionTime(Optional.empty()), 7);

        assertThat(log.deleteExpiredSegments(10).segmentsDeleted()).isZero();
        assertThat(log.logStartOffset()).isZero();
    }

    @Test
    void segmentsWithoutTimestampsAreKeptByTimeRetention() {
        clock.advance(Duration.ofDays(30));
        log = PartitionLog.open(
                dir.resolve("data"), TP, LogConfig.defaults().withSegmentBytes(2 * BATCH_BYTES), store, clock);
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(
                    MemoryRecords.withRecords(
                            RecordBatch.MAGIC_VALUE_V2,
                            0L,
                            Compression.NONE,
                            TimestampType.CREATE_TIME,
                            new SimpleRecord(RecordBatch.NO_TIMESTAMP, null, new byte[100])),
                    0);
        }

        assertThat(log.deleteExpiredSegments(10).segmentsDeleted()).isZero();
    }

    @Test
    void retentionSurvivesAReopenWithoutRescanning() {
        clock.advance(Duration.ofDays(30));
        fill(LogConfig.defaults(), 5);
        log.close();
        log = PartitionLog.open(
                dir.resolve("data"), TP, LogConfig.defaults().withSegmentBytes(2 * BATCH_BYTES), store, clock);

        assertThat(log.deleteExpiredSegments(10).segmentsDeleted()).isEqualTo(2);
        log.close();
        log = PartitionLog.open(
                dir.resolve("data"), TP, LogConfig.defaults().withSegmentBytes(2 * BATCH_BYTES), store, clock);
        assertThat(log.logStartOffset()).isEqualTo(4);
        assertThat(log.openReport().cleanShutdown()).isTrue();
    }

    /**
     * Out-of-order timestamps: segment [0, 1] holds the largest timestamp (9000, at offset 1, which
     * is not an index point), the log rolls, and time retention deletes that segment before anything
     * is appended to the next one. The next index point must not name offset 1, which is gone: the
     * largest timestamp is the one of the batches left.
     */
    @Test
    void aTimeEntryNeverNamesABatchOfADeletedSegment() {
        clock.advance(Duration.ofMillis(-10_000_000 + 20_000)); // now = 20 000 ms
        log = PartitionLog.open(
                dir.resolve("data"),
                TP,
                LogConfig.defaults().withRetentionTime(Optional.of(Duration.ofMillis(5_000))),
                store,
                clock);
        log.appendAsLeader(batch(1, 1_000, 100), 0);
        log.appendAsLeader(batch(1, 9_000, 100), 0);
        log.roll();

        assertThat(log.deleteExpiredSegments(10).segmentsDeleted()).isEqualTo(1);
        log.appendAsLeader(batch(1, 2_000, 100), 0);
        log.appendAsLeader(batch(1, 3_000, 100), 0);

        assertThat(store.partition(TP.topicId(), TP.partition()).timeEntries())
                .containsExactly(new TimestampOffset(2_000, 2));
        assertThat(IndexAudit.violations(log, store.partition(TP.topicId(), TP.partition())))
                .isEmpty();
        assertThat(log.listOffset(1_500).orElseThrow().offset()).isEqualTo(2);
        assertThat(log.listOffset(2_500).orElseThrow().offset()).isEqualTo(3);
        assertThat(log.listOffset(9_000)).isEmpty();
        assertThat(log.listOffset(PartitionLog.MAX_TIMESTAMP).orElseThrow().offset())
                .isEqualTo(3);
    }

    /**
     * Deleting the records that held the largest timestamp (DeleteRecords up to a new segment) must
     * not leave it in force: the batches after it get time entries for their own, smaller
     * timestamps, so that ListOffsets by timestamp can skip batches instead of reading every header
     * from the log start.
     */
    @Test
    void theLargestTimestampOfDeletedRecordsStopsHoldingBackTimeEntries() {
        log = PartitionLog.open(dir.resolve("data"), TP, LogConfig.defaults().withIndexIntervalBytes(0), store, clock);
        log.appendAsLeader(batch(1, 1_000, 100), 0);
        log.appendAsLeader(batch(1, 9_000, 100), 0);
        log.roll();

        log.deleteRecordsBefore(2);
        log.appendAsLeader(batch(1, 2_000, 100), 0);
        log.appendAsLeader(batch(1, 3_000, 100), 0);
        log.appendAsLeader(batch(1, 2_500, 100), 0);

        assertThat(store.partition(TP.topicId(), TP.partition()).timeEntries())
                .containsExactly(new TimestampOffset(2_000, 2), new TimestampOffset(3_000, 3));
        assertThat(log.listOffset(2_800).orElseThrow().offset()).isEqualTo(3);
        assertThat(log.listOffset(PartitionLog.MAX_TIMESTAMP).orElseThrow().offset())
                .isEqualTo(3);
    }

    @Test
    void maxSegmentsMustBePositive() {
        fill(LogConfig.defaults(), 1);

        assertThatThrownBy(() -> log.deleteExpiredSegments(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
