package io.tributary.broker.log;

import static io.tributary.broker.log.TestBatches.batch;
import static io.tributary.broker.log.TestBatches.batchAt;
import static io.tributary.broker.log.TestBatches.concat;
import static io.tributary.broker.log.TestBatches.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class AppendValidatorTest {

    private static final LogConfig CONFIG = LogConfig.defaults();

    @Test
    void leaderAssignsOffsetsByRewritingTheHeaderOnly() {
        MemoryRecords records = batch(3, 1_000, 10);
        ByteBuffer before = records.buffer().duplicate();
        byte[] recordBytesBefore = new byte[records.sizeInBytes() - BatchHeader.SIZE];
        before.position(BatchHeader.SIZE).get(recordBytesBefore);

        ValidatedAppend append =
                AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records, 42, 7, CONFIG, 5_000);

        assertThat(append.firstOffset()).isEqualTo(42);
        assertThat(append.lastOffset()).isEqualTo(44);
        MutableRecordBatch batch = only(append.records());
        assertThat(batch.isValid()).isTrue();
        assertThat(TestBatches.offsetsOf(append.records().batches())).containsExactly(42L, 43L, 44L);
        byte[] recordBytesAfter = new byte[records.sizeInBytes() - BatchHeader.SIZE];
        append.records().buffer().duplicate().position(BatchHeader.SIZE).get(recordBytesAfter);
        assertThat(recordBytesAfter).isEqualTo(recordBytesBefore);
    }

    @Test
    void leaderStampsThePartitionLeaderEpoch() {
        ValidatedAppend append =
                AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, batch(1, 1_000, 1), 0, 9, CONFIG, 5_000);

        assertThat(only(append.records()).partitionLeaderEpoch()).isEqualTo(9);
        assertThat(append.batches().getFirst().partitionLeaderEpoch()).isEqualTo(9);
    }

    @Test
    void leaderKeepsCreateTimeByDefault() {
        ValidatedAppend append =
                AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, batch(2, 1_000, 1), 0, 0, CONFIG, 5_000);

        MutableRecordBatch batch = only(append.records());
        assertThat(batch.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(batch.maxTimestamp()).isEqualTo(1_001);
        assertThat(append.logAppendTimeMs()).isEmpty();
    }

    @Test
    void leaderSetsLogAppendTimeWhenTheTopicAsksForIt() {
        LogConfig config = CONFIG.withTimestampType(MessageTimestampType.LOG_APPEND_TIME);

        ValidatedAppend append =
                AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, batch(2, 1_000, 1), 0, 0, config, 5_000);

        MutableRecordBatch batch = only(append.records());
        assertThat(batch.isValid()).isTrue();
        assertThat(batch.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(batch.maxTimestamp()).isEqualTo(5_000);
        for (Record record : batch) {
            assertThat(record.timestamp()).isEqualTo(5_000);
        }
        assertThat(append.logAppendTimeMs()).hasValue(5_000);
    }

    @Test
    void leaderAssignsConsecutiveOffsetsAcrossBatchesOfOneAppend() {
        MemoryRecords records = concat(batch(2, 1, 1), batch(3, 1, 1));

        ValidatedAppend append =
                AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records, 10, 0, CONFIG, 0);

        assertThat(TestBatches.offsetsOf(append.records().batches())).containsExactly(10L, 11L, 12L, 13L, 14L);
        assertThat(append.batches())
                .extracting(BatchHeader::position)
                .containsExactly(0, records.sizeInBytes() - only(batch(3, 1, 1)).sizeInBytes());
    }

    @Test
    void appendRejectsBatchWithOldMagic() {
        MemoryRecords v1 = MemoryRecords.withRecords(
                RecordBatch.MAGIC_VALUE_V1,
                0L,
                Compression.NONE,
                TimestampType.CREATE_TIME,
                new SimpleRecord(1, new byte[1]));

        assertThatThrownBy(() -> AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, v1, 0, 0, CONFIG, 0))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("magic 1");
    }

    @Test
    void appendRejectsBatchWithBadCrc() {
        MemoryRecords records = batch(2, 1_000, 10);
        ByteBuffer buffer = records.buffer();
        buffer.put(buffer.limit() - 1, (byte) (buffer.get(buffer.limit() - 1) ^ 0x5a));

        assertThatThrownBy(() -> AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records, 0, 0, CONFIG, 0))
                .isInstanceOf(CorruptBatchException.class)
                .hasMessageContaining("CRC");
    }

    @Test
    void appendRejectsBatchLargerThanMaxMessageBytes() {
        MemoryRecords records = batch(1, 1_000, 200);
        LogConfig config = CONFIG.withMaxMessageBytes(records.sizeInBytes() - 1);

        assertThatThrownBy(() -> AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records, 0, 0, config, 0))
                .isInstanceOf(RecordTooLargeException.class)
                .hasMessageContaining("max.message.bytes");
    }

    @Test
    void appendAcceptsBatchOfExactlyMaxMessageBytes() {
        MemoryRecords records = batch(1, 1_000, 200);
        LogConfig config = CONFIG.withMaxMessageBytes(records.sizeInBytes());

        assertThat(AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records, 0, 0, config, 0)
                        .lastOffset())
                .isZero();
    }

    @Test
    void appendRejectsRecordCountThatDisagreesWithTheOffsetDelta() {
        MemoryRecords records = batch(3, 1_000, 1);
        records.buffer().putInt(BatchHeader.RECORDS_COUNT_OFFSET, 2);
        MutableRecordBatch batch = only(records);
        batch.setMaxTimestamp(TimestampType.CREATE_TIME, batch.maxTimestamp() + 1); // recomputes the CRC
        assertThat(batch.isValid()).isTrue();

        assertThatThrownBy(() -> AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records, 0, 0, CONFIG, 0))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("2 records but a last offset delta of 2");
    }

    @Test
    void appendRejectsBytesThatEndInsideABatch() {
        MemoryRecords whole = concat(batch(1, 1, 1), batch(1, 1, 1));
        MemoryRecords cut =
                MemoryRecords.readableRecords(whole.buffer().duplicate().limit(whole.sizeInBytes() - 3));

        assertThatThrownBy(() -> AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, cut, 0, 0, CONFIG, 0))
                .isInstanceOf(CorruptBatchException.class)
                .hasMessageContaining("ends inside a batch");
    }

    @Test
    void appendRejectsAnImpossibleLengthField() {
        MemoryRecords records = batch(1, 1, 1);
        records.buffer().putInt(BatchHeader.LENGTH_OFFSET, 3);

        assertThatThrownBy(() -> AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records, 0, 0, CONFIG, 0))
                .isInstanceOf(CorruptBatchException.class);
    }

    @Test
    void appendRejectsNoBatches() {
        assertThatThrownBy(() -> AppendValidator.assignOffsetsAsLeader(
                        TestBatches.PARTITION, MemoryRecords.EMPTY, 0, 0, CONFIG, 0))
                .isInstanceOf(InvalidRecordException.class);
    }

    @Test
    void followerKeepsTheLeadersOffsetsAndEpoch() {
        MemoryRecords records = batchAt(100, 2, 1_000, 1);
        only(records).setPartitionLeaderEpoch(4);

        ValidatedAppend append = AppendValidator.validateAsFollower(records, 100);

        assertThat(append.firstOffset()).isEqualTo(100);
        assertThat(append.lastOffset()).isEqualTo(101);
        assertThat(append.batches().getFirst().partitionLeaderEpoch()).isEqualTo(4);
    }

    @Test
    void followerAppendMustNotStartBelowTheLogEnd() {
        assertThatThrownBy(() -> AppendValidator.validateAsFollower(batchAt(99, 2, 1_000, 1), 100))
                .isInstanceOf(UnexpectedAppendOffsetException.class);
    }

    @Test
    void followerOffsetsMustIncreaseWithinAnAppend() {
        MemoryRecords records = concat(batchAt(100, 2, 1, 1), batchAt(101, 1, 1, 1));

        assertThatThrownBy(() -> AppendValidator.validateAsFollower(records, 100))
                .isInstanceOf(UnexpectedAppendOffsetException.class)
                .hasMessageContaining("continues at 102");
    }

    @Test
    void followerRejectsBadCrc() {
        MemoryRecords records = batchAt(0, 2, 1_000, 10);
        records.buffer().put(70, (byte) (records.buffer().get(70) ^ 1));

        assertThatThrownBy(() -> AppendValidator.validateAsFollower(records, 0))
                .isInstanceOf(CorruptBatchException.class);
    }

    @Test
    void leaderEpochMustNotBeNegative() {
        assertThatThrownBy(() ->
                        AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, batch(1, 1, 1), 0, -1, CONFIG, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
