package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A leader's check of record timestamps against {@code message.timestamp.before.max.ms} and {@code
 * message.timestamp.after.max.ms} (KIP-937), as Kafka's log validator does it: the whole batch is
 * refused, each record outside the bounds named by its index in the batch and Kafka's message.
 */
class TimestampBoundsTest {

    private static final long NOW_MS = 1_700_000_000_000L;
    private static final long HOUR_MS = Duration.ofHours(1).toMillis();

    private static LogConfig bounded(long beforeMs, long afterMs) {
        return LogConfig.defaults()
                .withTimestampBounds(new TimestampBounds(
                        Optional.of(Duration.ofMillis(beforeMs)), Optional.of(Duration.ofMillis(afterMs))));
    }

    private static MemoryRecords records(Compression compression, long... timestampsMs) {
        SimpleRecord[] records = new SimpleRecord[timestampsMs.length];
        for (int i = 0; i < timestampsMs.length; i++) {
            records[i] = new SimpleRecord(
                    timestampsMs[i],
                    ("k" + i).getBytes(StandardCharsets.US_ASCII),
                    ("v" + i).getBytes(StandardCharsets.US_ASCII));
        }
        return MemoryRecords.withRecords(compression, records);
    }

    private static MemoryRecords records(long... timestampsMs) {
        return records(Compression.NONE, timestampsMs);
    }

    private static InvalidTimestampException refusal(MemoryRecords records, LogConfig config) {
        return catchThrowableOfType(
                InvalidTimestampException.class,
                () -> AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records, 10, 0, config, NOW_MS));
    }

    @Test
    void kafkasDefaultsAreNoBoundBeforeAndOneHourAfter() {
        TimestampBounds defaults = LogConfig.defaults().timestampBounds();

        assertThat(defaults.maxBefore()).isEmpty();
        assertThat(defaults.maxAfter()).hasValue(Duration.ofHours(1));
        assertThat(defaults.maxBeforeMs()).isEqualTo(Long.MAX_VALUE);
        assertThat(defaults.maxAfterMs()).isEqualTo(3_600_000L);
    }

    @Test
    void byDefaultARecordFromLongAgoIsTakenAndOneMoreThanAnHourAheadIsRefused() {
        LogConfig config = LogConfig.defaults();

        ValidatedAppend old =
                AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records(0L, 1L), 0, 0, config, NOW_MS);
        assertThat(old.lastOffset()).isEqualTo(1);
        AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records(NOW_MS + HOUR_MS), 0, 0, config, NOW_MS);

        InvalidTimestampException e = refusal(records(NOW_MS, NOW_MS + HOUR_MS + 1), config);
        assertThat(e.recordErrors()).extracting(RecordError::batchIndex).containsExactly(1);
    }

    @Test
    void aRecordTooFarBeforeOrAfterTheClockRefusesTheBatchNamingEachOneAsKafkaDoes() {
        LogConfig config = bounded(HOUR_MS, 60_000);
        MemoryRecords records = records(NOW_MS, NOW_MS - HOUR_MS - 1, NOW_MS - HOUR_MS, NOW_MS + 60_001);

        InvalidTimestampException e = refusal(records, config);

        assertThat(e).hasMessage("One or more records have been rejected due to invalid timestamp");
        long low = NOW_MS - HOUR_MS;
        long high = NOW_MS + 60_000;
        assertThat(e.recordErrors())
                .containsExactly(
                        new RecordError(
                                1,
                                "Timestamp " + (NOW_MS - HOUR_MS - 1) + " of message with offset 1 is out of range."
                                        + " The timestamp should be within [" + low + ", " + high + "]"),
                        new RecordError(
                                3,
                                "Timestamp " + (NOW_MS + 60_001) + " of message with offset 3 is out of range."
                                        + " The timestamp should be within [" + low + ", " + high + "]"));
    }

    @Test
    void aRefusedBatchIsLeftAsTheProducerSentIt() {
        MemoryRecords records = records(NOW_MS - 2 * HOUR_MS);

        refusal(records, bounded(HOUR_MS, HOUR_MS));

        assertThat(TestBatches.only(records).baseOffset()).isZero();
        assertThat(TestBatches.only(records).isValid()).isTrue();
    }

    @Test
    void timestampsExactlyAtTheBoundsAreTaken() {
        ValidatedAppend append = AppendValidator.assignOffsetsAsLeader(
                TestBatches.PARTITION,
                records(NOW_MS - 5_000, NOW_MS, NOW_MS + 7_000),
                0,
                0,
                bounded(5_000, 7_000),
                NOW_MS);

        assertThat(append.lastOffset()).isEqualTo(2);
    }

    @Test
    void zeroBoundsTakeOnlyTheBrokersOwnMillisecond() {
        LogConfig config = bounded(0, 0);

        AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records(NOW_MS), 0, 0, config, NOW_MS);
        assertThat(refusal(records(NOW_MS - 1), config).recordErrors()).hasSize(1);
        assertThat(refusal(records(NOW_MS + 1), config).recordErrors()).hasSize(1);
    }

    @Test
    void aRecordWithoutATimestampIsNeverRefused() {
        ValidatedAppend append = AppendValidator.assignOffsetsAsLeader(
                TestBatches.PARTITION, records(RecordBatch.NO_TIMESTAMP), 0, 0, bounded(0, 0), NOW_MS);

        assertThat(append.lastOffset()).isZero();
    }

    @Test
    void aLogAppendTimeTopicIgnoresTheBoundsAndStampsTheClock() {
        LogConfig config = bounded(0, 0).withTimestampType(MessageTimestampType.LOG_APPEND_TIME);

        ValidatedAppend append = AppendValidator.assignOffsetsAsLeader(
                TestBatches.PARTITION, records(1L, NOW_MS + 10 * HOUR_MS), 0, 0, config, NOW_MS);

        assertThat(append.logAppendTimeMs()).hasValue(NOW_MS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"gzip", "lz4", "zstd"})
    void recordsOfACompressedBatchAreCheckedOneByOne(String codec) {
        Compression compression = switch (codec) {
            case "gzip" -> Compression.gzip().build();
            case "lz4" -> Compression.lz4().build();
            default -> Compression.zstd().build();
        };

        InvalidTimestampException e =
                refusal(records(compression, NOW_MS, NOW_MS, NOW_MS - 2 * HOUR_MS), bounded(HOUR_MS, HOUR_MS));

        assertThat(e.recordErrors()).extracting(RecordError::batchIndex).containsExactly(2);
    }

    @Test
    void unboundedBothWaysTakesAnyTimestamp() {
        LogConfig config = LogConfig.defaults().withTimestampBounds(TimestampBounds.unlimited());

        ValidatedAppend append = AppendValidator.assignOffsetsAsLeader(
                TestBatches.PARTITION, records(0L, NOW_MS * 10), 0, 0, config, NOW_MS);

        assertThat(append.lastOffset()).isEqualTo(1);
    }

    @Test
    void inACompactedTopicABadTimestampOutranksAMissingKeyAndBothAreNamed() {
        LogConfig config = bounded(HOUR_MS, HOUR_MS)
                .withCompaction(CompactionConfig.defaults().withCleanupPolicy(Set.of(CleanupPolicy.COMPACT)));
        MemoryRecords records = MemoryRecords.withRecords(
                Compression.NONE,
                new SimpleRecord(NOW_MS, null, "no key".getBytes(StandardCharsets.US_ASCII)),
                new SimpleRecord(NOW_MS + 2 * HOUR_MS, "k".getBytes(StandardCharsets.US_ASCII), null));

        InvalidTimestampException e = refusal(records, config);

        assertThat(e.recordErrors()).extracting(RecordError::batchIndex).containsExactly(0, 1);
        assertThat(e.recordErrors().getFirst().message())
                .isEqualTo("Compacted topic cannot accept message without key in topic partition test-topic-0");
    }

    @Test
    void inACompactedTopicMissingKeysAloneAreAnInvalidRecordNamingEachAndQuotingTheFirstThree() {
        LogConfig config = bounded(HOUR_MS, HOUR_MS)
                .withCompaction(CompactionConfig.defaults().withCleanupPolicy(Set.of(CleanupPolicy.COMPACT)));
        MemoryRecords records = MemoryRecords.withRecords(
                Compression.gzip().build(),
                new SimpleRecord(NOW_MS, "k".getBytes(StandardCharsets.US_ASCII), new byte[] {0}),
                new SimpleRecord(NOW_MS, null, new byte[] {1}),
                new SimpleRecord(NOW_MS, null, new byte[] {2}),
                new SimpleRecord(NOW_MS, null, new byte[] {3}),
                new SimpleRecord(NOW_MS, null, new byte[] {4}));

        InvalidRecordException e = catchThrowableOfType(
                InvalidRecordException.class,
                () -> AppendValidator.assignOffsetsAsLeader(TestBatches.PARTITION, records, 0, 0, config, NOW_MS));

        String keyless = "Compacted topic cannot accept message without key in topic partition test-topic-0";
        assertThat(e.recordErrors())
                .containsExactly(
                        new RecordError(1, keyless),
                        new RecordError(2, keyless),
                        new RecordError(3, keyless),
                        new RecordError(4, keyless));
        assertThat(e)
                .hasMessage("One or more records have been rejected due to 4 record errors in total, and only showing"
                        + " the first three errors at most: [RecordError(batchIndex=1, message='" + keyless + "'),"
                        + " RecordError(batchIndex=2, message='" + keyless + "'), RecordError(batchIndex=3, message='"
                        + keyless + "')]");
    }

    @Test
    void boundsMustNotBeNegative() {
        assertThatThrownBy(() -> new TimestampBounds(Optional.of(Duration.ofMillis(-1)), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("message.timestamp.before.max.ms");
    }
}
