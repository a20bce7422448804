package io.tributary.broker.log;

import static io.tributary.broker.log.TestBatches.batch;
import static io.tributary.broker.log.TestBatches.batchAt;
import static io.tributary.broker.log.TestBatches.offsetsOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.log.index.EpochEntry;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.broker.log.index.OffsetPosition;
import io.tributary.broker.log.index.PartitionIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {

    static final TopicIdPartition TP = new TopicIdPartition(new Uuid(7, 8), 3, "orders");

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

    private PartitionLog open(LogConfig config) {
        log = PartitionLog.open(dir.resolve("data"), TP, config, store, clock);
        return log;
    }

    private PartitionIndex index() {
        return store.partition(TP.topicId(), TP.partition());
    }

    @Test
    void leaderAppendsGetConsecutiveOffsetsFromZero() {
        open(LogConfig.defaults());

        AppendResult first = log.appendAsLeader(batch(3, 100, 10), 0);
        AppendResult second = log.appendAsLeader(batch(2, 200, 10), 0);

        assertThat(first).isEqualTo(new AppendResult(0, 2, OptionalLong.empty(), 0));
        assertThat(second).isEqualTo(new AppendResult(3, 4, OptionalLong.empty(), 0));
        assertThat(log.logEndOffset()).isEqualTo(5);
        assertThat(offsetsOf(
                        log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE).records().batches()))
                .containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(log.directory()).isEqualTo(dir.resolve("data").resolve("orders-3"));
        assertThat(log.directory().resolve("00000000000000000000.log")).exists();
    }

    @Test
    void appendReportsTheLogAppendTimeWhenTheTopicUsesIt() {
        open(LogConfig.defaults().withTimestampType(MessageTimestampType.LOG_APPEND_TIME));

        AppendResult result = log.appendAsLeader(batch(1, 5, 1), 0);

        assertThat(result.logAppendTimeMs()).hasValue(1_000_000);
    }

    @Test
    void readStartsAtTheBatchContainingTheOffset() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(3, 100, 10), 0);
        log.appendAsLeader(batch(3, 100, 10), 0);

        ReadResult result = log.read(4, Integer.MAX_VALUE, Long.MAX_VALUE);

        assertThat(offsetsOf(result.records().batches())).containsExactly(3L, 4L, 5L);
        assertThat(result.logEndOffset()).isEqualTo(6);
        assertThat(result.logStartOffset()).isZero();
    }

    @Test
    void readReturnsTheFirstBatchWholeEvenWhenLargerThanTheLimit() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 500), 0);
        log.appendAsLeader(batch(2, 100, 500), 0);

        ReadResult result = log.read(0, 10, Long.MAX_VALUE);

        assertThat(offsetsOf(result.records().batches())).containsExactly(0L, 1L);
    }

    @Test
    void readIsBoundedByTheLimitAfterTheFirstBatchAsInKafka() {
        open(LogConfig.defaults());
        MemoryRecords one = batch(1, 100, 100);
        int size = one.sizeInBytes();
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch(1, 100, 100), 0);
        }

        assertThat(log.read(0, 3 * size, Long.MAX_VALUE).records().sizeInBytes())
                .isEqualTo(3 * size);
        ReadResult cut = log.read(0, 3 * size - 1, Long.MAX_VALUE);
        assertThat(cut.records().sizeInBytes()).isEqualTo(3 * size - 1);
        assertThat(offsetsOf(cut.records().batches()))
                .as("the cut batch is not parsed")
                .containsExactly(0L, 1L);
    }

    @Test
    void readStopsBelowTheUpperBound() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);
        log.appendAsLeader(batch(2, 100, 1), 0);

        assertThat(offsetsOf(log.read(0, Integer.MAX_VALUE, 2).records().batches()))
                .containsExactly(0L, 1L);
        assertThat(log.read(0, Integer.MAX_VALUE, 1).isEmpty()).isTrue();
        assertThat(log.read(2, Integer.MAX_VALUE, 2).isEmpty()).isTrue();
    }

    @Test
    void readAtTheLogEndIsEmpty() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);

        assertThat(log.read(2, 100, Long.MAX_VALUE).isEmpty()).isTrue();
    }

    @Test
    void readPastTheLogEndIsOutOfRange() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);

        assertThatThrownBy(() -> log.read(3, 100, Long.MAX_VALUE)).isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void readBelowTheLogStartIsOutOfRange() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);
        log.deleteRecordsBefore(1);

        assertThatThrownBy(() -> log.read(0, 100, Long.MAX_VALUE)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(offsetsOf(log.read(1, 100, Long.MAX_VALUE).records().batches()))
                .containsExactly(0L, 1L);
    }

    @Test
    void readRegionIsSentWithTransferTo() throws IOException {
        open(LogConfig.defaults());
        MemoryRecords appended = batch(3, 100, 50);
        log.appendAsLeader(appended, 0);
        ReadResult result = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE);
        Path out = dir.resolve("out");

        try (FileChannel target = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            int sent = result.records()
                    .writeTo(
                            new FileTransferChannel(target), 0, result.records().sizeInBytes());
            assertThat(sent).isEqualTo(appended.sizeInBytes());
        }

        byte[] bytes = Files.readAllBytes(out);
        assertThat(ByteBuffer.wrap(bytes))
                .isEqualTo(appended.buffer().duplicate().rewind());
    }

    @Test
    void rollsBeforeAnAppendWouldExceedSegmentBytes() {
        int size = batch(1, 100, 100).sizeInBytes();
        open(LogConfig.defaults().withSegmentBytes(2 * size));

        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch(1, 100, 100), 0);
        }

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L, 4L);
        assertThat(log.directory().resolve("00000000000000000002.log")).exists();
        assertThat(log.recoveryPoint()).isEqualTo(4);
    }

    @Test
    void appendLargerThanASegmentIsRejected() {
        MemoryRecords records = batch(1, 100, 100);
        open(LogConfig.defaults().withSegmentBytes(records.sizeInBytes() - 1));

        assertThatThrownBy(() -> log.appendAsLeader(records, 0)).isInstanceOf(RecordTooLargeException.class);
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void rollsOnceTheFirstBatchIsMoreThanSegmentMsOlderThanTheIncomingOne() {
        open(LogConfig.defaults().withSegmentTime(Duration.ofMillis(1_000)));

        log.appendAsLeader(batch(1, 10_000, 1), 0);
        log.appendAsLeader(batch(1, 10_999, 1), 0);
        // exactly segment.ms apart: not yet (Kafka compares with ">")
        log.appendAsLeader(batch(1, 11_000, 1), 0);
        assertThat(log.segmentBaseOffsets()).containsExactly(0L);
        log.appendAsLeader(batch(1, 11_001, 1), 0);

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 3L);
    }

    @Test
    void segmentJitterMsRollsEachSegmentThatMuchEarlier() {
        LogConfig config = LogConfig.defaults()
                .withSegmentTime(Duration.ofMillis(1_000))
                .withSegmentJitter(Duration.ofMillis(500));
        long jitterMs = config.segmentJitterMs(TP, 0);
        assertThat(jitterMs).as("this partition's first segment has a jitter").isBetween(1L, 499L);
        open(config);

        log.appendAsLeader(batch(1, 10_000, 1), 0);
        // exactly segment.ms - jitter apart: not yet (Kafka compares with ">")
        log.appendAsLeader(batch(1, 10_000 + 1_000 - jitterMs, 1), 0);
        assertThat(log.segmentBaseOffsets()).containsExactly(0L);
        log.appendAsLeader(batch(1, 10_000 + 1_000 - jitterMs + 1, 1), 0);

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L);
    }

    @Test
    void batchesWithoutTimestampsRollByTheClock() {
        open(LogConfig.defaults().withSegmentTime(Duration.ofSeconds(10)));
        MemoryRecords noTimestamp = MemoryRecords.withRecords(
                org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                0L,
                org.apache.kafka.common.compress.Compression.NONE,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME,
                new org.apache.kafka.common.record.internal.SimpleRecord(-1L, null, new byte[1]));
        log.appendAsLeader(noTimestamp, 0);
        clock.advance(Duration.ofMillis(10_000));
        log.appendAsLeader(batch(1, 0, 1), 0);
        assertThat(log.segmentBaseOffsets()).containsExactly(0L);

        clock.advance(Duration.ofMillis(1));
        log.appendAsLeader(batch(1, 0, 1), 0);

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L);
    }

    @Test
    void flushMsIsAlsoCheckedOnAppend() {
        open(LogConfig.defaults().withFlushInterval(Optional.of(Duration.ofSeconds(1))));
        log.appendAsLeader(batch(1, 100, 1), 0);
        assertThat(log.recoveryPoint()).isZero();
        clock.advance(Duration.ofSeconds(1));

        log.appendAsLeader(batch(1, 100, 1), 0);

        assertThat(log.recoveryPoint()).isEqualTo(2);
    }

    @Test
    void explicitRollStartsANewSegmentAtTheLogEnd() {
        open(LogConfig.defaults());
        log.roll();
        assertThat(log.segmentBaseOffsets()).containsExactly(0L);
        log.appendAsLeader(batch(2, 100, 1), 0);

        log.roll();
        log.appendAsLeader(batch(1, 100, 1), 0);

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L);
        assertThat(index().floorOffset(2)).contains(new OffsetPosition(2, 2, 0));
    }

    @Test
    void readsCrossSegmentsOneSegmentPerRead() {
        int size = batch(1, 100, 100).sizeInBytes();
        open(LogConfig.defaults().withSegmentBytes(2 * size));
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch(1, 100, 100), 0);
        }

        assertThat(offsetsOf(
                        log.read(1, Integer.MAX_VALUE, Long.MAX_VALUE).records().batches()))
                .containsExactly(1L);
        assertThat(offsetsOf(
                        log.read(2, Integer.MAX_VALUE, Long.MAX_VALUE).records().batches()))
                .containsExactly(2L, 3L);
        assertThat(offsetsOf(
                        log.read(4, Integer.MAX_VALUE, Long.MAX_VALUE).records().batches()))
                .containsExactly(4L);
    }

    @Test
    void offsetIndexHasOneEntryPerIndexInterval() {
        int size = batch(1, 100, 100).sizeInBytes();
        open(LogConfig.defaults().withIndexIntervalBytes(2 * size));
        for (int i = 0; i < 10; i++) {
            log.appendAsLeader(batch(1, 100, 100), 0);
        }

        // The first batch, then each batch after more than two batches' bytes.
        assertThat(index().offsetEntries()).extracting(OffsetPosition::offset).containsExactly(0L, 3L, 6L, 9L);
    }

    @Test
    void offsetForTimestampFindsTheFirstRecordAtOrAfterIt() {
        open(LogConfig.defaults().withIndexIntervalBytes(0));
        log.appendAsLeader(batch(3, 100, 1), 0); // 0:100 1:101 2:102
        log.appendAsLeader(batch(3, 200, 1), 0); // 3:200 4:201 5:202
        log.appendAsLeader(batch(3, 150, 1), 0); // 6:150 7:151 8:152

        assertThat(log.offsetForTimestamp(0).orElseThrow().offset()).isZero();
        assertThat(log.offsetForTimestamp(101).orElseThrow().offset()).isEqualTo(1);
        assertThat(log.offsetForTimestamp(103).orElseThrow().offset()).isEqualTo(3);
        assertThat(log.offsetForTimestamp(150).orElseThrow().offset()).isEqualTo(3);
        assertThat(log.offsetForTimestamp(202).orElseThrow())
                .isEqualTo(new TimestampAndOffset(202, 5, java.util.OptionalInt.of(0)));
        assertThat(log.offsetForTimestamp(203)).isEmpty();
    }

    @Test
    void listOffsetsAnswersEarliestLatestAndMaxTimestamp() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(3, 100, 1), 0);
        log.appendAsLeader(batch(3, 300, 1), 1); // max 302 at offset 5
        log.appendAsLeader(batch(3, 200, 1), 2);
        log.deleteRecordsBefore(1);

        assertThat(log.listOffset(PartitionLog.EARLIEST_TIMESTAMP).orElseThrow().offset())
                .isEqualTo(1);
        assertThat(log.listOffset(PartitionLog.LATEST_TIMESTAMP).orElseThrow().offset())
                .isEqualTo(9);
        assertThat(log.listOffset(PartitionLog.LATEST_TIMESTAMP).orElseThrow().leaderEpoch())
                .hasValue(2);
        TimestampAndOffset max = log.listOffset(PartitionLog.MAX_TIMESTAMP).orElseThrow();
        assertThat(max.timestamp()).isEqualTo(302);
        assertThat(max.offset()).isEqualTo(5);
        assertThat(max.leaderEpoch()).hasValue(1);
    }

    @Test
    void maxTimestampIsFoundInTheUnindexedTail() {
        open(LogConfig.defaults()); // 4096-byte interval: only the first batch is indexed
        log.appendAsLeader(batch(1, 100, 1), 0);
        log.appendAsLeader(batch(1, 500, 1), 0);
        log.appendAsLeader(batch(1, 300, 1), 0);

        assertThat(log.offsetOfMaxTimestamp().orElseThrow().offset()).isEqualTo(1);
    }

    @Test
    void truncateToRemovesTheBatchContainingTheOffsetAndEverythingAfter() {
        int size = batch(2, 100, 100).sizeInBytes();
        open(LogConfig.defaults().withSegmentBytes(2 * size).withIndexIntervalBytes(0));
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch(2, 100 + i, 100), i); // offsets 2i, 2i+1; segments at 0, 4, 8
        }

        log.truncateTo(5);

        assertThat(log.logEndOffset()).isEqualTo(4);
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 4L);
        assertThat(index().offsetEntries()).extracting(OffsetPosition::offset).containsExactly(0L, 2L);
        assertThat(log.leaderEpochs()).extracting(EpochEntry::epoch).containsExactly(0, 1);
        assertThat(log.recoveryPoint()).isEqualTo(4);
        AppendResult next = log.appendAsLeader(batch(1, 100, 1), 9);
        assertThat(next.firstOffset()).isEqualTo(4);
        assertThat(offsetsOf(
                        log.read(4, Integer.MAX_VALUE, Long.MAX_VALUE).records().batches()))
                .containsExactly(4L);
    }

    @Test
    void truncateToABatchBoundaryKeepsEverythingBelowIt() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);
        log.appendAsLeader(batch(2, 100, 1), 0);

        log.truncateTo(2);

        assertThat(log.logEndOffset()).isEqualTo(2);
        log.truncateTo(7); // past the end: nothing to do
        assertThat(log.logEndOffset()).isEqualTo(2);
    }

    @Test
    void truncateFullyRestartsTheLogEmptyAtTheOffset() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);

        log.truncateFullyAndStartAt(50);

        assertThat(log.logStartOffset()).isEqualTo(50);
        assertThat(log.logEndOffset()).isEqualTo(50);
        assertThat(log.segmentBaseOffsets()).containsExactly(50L);
        assertThat(log.leaderEpochs()).isEmpty();
        assertThat(index().offsetEntries()).isEmpty();
        assertThat(log.appendAsLeader(batch(1, 100, 1), 0).firstOffset()).isEqualTo(50);
    }

    @Test
    void truncateBelowTheLogStartTruncatesFully() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(4, 100, 1), 0);
        log.deleteRecordsBefore(3);

        log.truncateTo(1);

        assertThat(log.logStartOffset()).isEqualTo(1);
        assertThat(log.logEndOffset()).isEqualTo(1);
    }

    @Test
    void deleteRecordsBeforeMovesTheStartAndDeletesWholeSegmentsBelowIt() {
        int size = batch(2, 100, 100).sizeInBytes();
        open(LogConfig.defaults().withSegmentBytes(2 * size));
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch(2, 100, 100), 0); // segments at 0, 4, 8
        }

        log.deleteRecordsBefore(5);

        assertThat(log.logStartOffset()).isEqualTo(5);
        assertThat(log.segmentBaseOffsets()).containsExactly(4L, 8L);
        assertThat(index().offsetEntries())
                .allSatisfy(e -> assertThat(e.offset()).isGreaterThanOrEqualTo(4));
        assertThat(log.listOffset(PartitionLog.EARLIEST_TIMESTAMP).orElseThrow().offset())
                .isEqualTo(5);
        assertThatThrownBy(() -> log.deleteRecordsBefore(11)).isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void deleteRecordsBeforeTheLogEndKeepsTheActiveSegment() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);

        log.deleteRecordsBefore(2);

        assertThat(log.logStartOffset()).isEqualTo(2);
        assertThat(log.segmentBaseOffsets()).containsExactly(0L);
        assertThat(log.read(2, 100, Long.MAX_VALUE).isEmpty()).isTrue();
    }

    @Test
    void flushMessagesAdvancesTheRecoveryPoint() {
        open(LogConfig.defaults().withFlushMessages(OptionalLong.of(3)));

        log.appendAsLeader(batch(2, 100, 1), 0);
        assertThat(log.recoveryPoint()).isZero();
        log.appendAsLeader(batch(1, 100, 1), 0);

        assertThat(log.recoveryPoint()).isEqualTo(3);
    }

    @Test
    void flushMsAdvancesTheRecoveryPointWhenDue() {
        open(LogConfig.defaults().withFlushInterval(Optional.of(Duration.ofSeconds(1))));
        log.appendAsLeader(batch(2, 100, 1), 0);
        log.flushIfDue();
        assertThat(log.recoveryPoint()).isZero();

        clock.advance(Duration.ofSeconds(1));
        log.flushIfDue();

        assertThat(log.recoveryPoint()).isEqualTo(2);
    }

    @Test
    void explicitFlushAdvancesTheRecoveryPoint() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);

        log.flush();

        assertThat(log.recoveryPoint()).isEqualTo(2);
    }

    @Test
    void reopeningAfterACleanCloseDoesNotRescan() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);
        log.appendAsLeader(batch(2, 200, 1), 4);
        log.close();

        open(LogConfig.defaults());

        assertThat(log.openReport()).isEqualTo(new RecoveryReport(true, 0, 0, 0));
        assertThat(log.logEndOffset()).isEqualTo(4);
        assertThat(log.leaderEpochs()).containsExactly(new EpochEntry(0, 0), new EpochEntry(4, 2));
        assertThat(log.appendAsLeader(batch(1, 300, 1), 4).firstOffset()).isEqualTo(4);
        assertThat(offsetsOf(
                        log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE).records().batches()))
                .containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(log.offsetOfMaxTimestamp().orElseThrow().offset()).isEqualTo(4);
    }

    @Test
    void reopeningAfterACrashScansFromTheRecoveryPoint() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);
        log.flush();
        log.appendAsLeader(batch(2, 200, 1), 0);
        log.closeAsIfCrashed();

        open(LogConfig.defaults());

        assertThat(log.openReport().cleanShutdown()).isFalse();
        assertThat(log.openReport().bytesScanned())
                .isEqualTo(2L * batch(2, 100, 1).sizeInBytes());
        assertThat(log.logEndOffset()).isEqualTo(4);
    }

    @Test
    void leaderEpochCacheRecordsTheFirstOffsetOfEachNewEpoch() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 1);
        log.appendAsLeader(batch(2, 100, 1), 1);
        log.appendAsLeader(batch(2, 100, 1), 3);

        assertThat(log.leaderEpochs()).containsExactly(new EpochEntry(1, 0), new EpochEntry(3, 4));
    }

    @Test
    void followerAppendKeepsTheLeadersOffsets() {
        open(LogConfig.defaults());
        log.truncateFullyAndStartAt(10);

        AppendResult result = log.appendAsFollower(batchAt(10, 3, 100, 1));

        assertThat(result.firstOffset()).isEqualTo(10);
        assertThat(log.logEndOffset()).isEqualTo(13);
        assertThatThrownBy(() -> log.appendAsFollower(batchAt(12, 1, 100, 1)))
                .isInstanceOf(UnexpectedAppendOffsetException.class);
    }

    @Test
    void aClosedLogRejectsWrites() {
        open(LogConfig.defaults());
        log.close();

        assertThatThrownBy(() -> log.appendAsLeader(batch(1, 1, 1), 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void readNeverReachesPastThePublishedEnd() {
        open(LogConfig.defaults());
        log.appendAsLeader(batch(2, 100, 1), 0);

        Records records = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE).records();

        assertThat(records.sizeInBytes()).isEqualTo(batch(2, 100, 1).sizeInBytes());
    }

    @Test
    void readEndsAtTheBatchReachingTheUpperBound() {
        open(LogConfig.defaults());
        int size = batch(2, 100, 1).sizeInBytes();
        for (int i = 0; i < 4; i++) {
            log.appendAsLeader(batch(2, 100, 1), 0);
        }

        assertThat(log.read(0, Integer.MAX_VALUE, 5).records().sizeInBytes()).isEqualTo(2 * size);
    }

    /** Kafka's network channel abstraction over a file, so a test can exercise transferTo. */
    private record FileTransferChannel(FileChannel target) implements TransferableChannel {
        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
            return fileChannel.transferTo(position, count, target);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            return target.write(srcs, offset, length);
        }

        @Override
        public long write(ByteBuffer[] srcs) throws IOException {
            return target.write(srcs);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return target.write(src);
        }

        @Override
        public boolean isOpen() {
            return target.isOpen();
        }

        @Override
        public void close() throws IOException {
            target.close();
        }
    }
}
