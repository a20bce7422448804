package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.log.TopicCompression.Codec;
import io.tributary.broker.log.index.IndexStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The leader's rewrite of batches into the topic's {@code compression.type} (Kafka's {@code
 * LogValidator}, compressed path): which batches are rewritten, what a rewritten batch keeps, the
 * levels, the bound, and that a follower stores the leader's rewritten bytes as they are.
 */
class BatchRecompressionTest {

    private static final TopicIdPartition TP = new TopicIdPartition(new Uuid(3, 4), 0, "codecs");
    private static final long NOW_MS = 1_700_000_000_000L;

    @TempDir
    Path dir;

    /** The producer's codec, as kafka-clients names it. */
    private static final List<CompressionType> SOURCES = List.of(CompressionType.values());

    /** Every topic codec but {@code producer}. */
    private static final List<Codec> TARGETS =
            Stream.of(Codec.values()).filter(c -> c != Codec.PRODUCER).toList();

    static Stream<Arguments> codecPairs() {
        return SOURCES.stream().flatMap(s -> TARGETS.stream().map(t -> Arguments.of(s, t)));
    }

    @ParameterizedTest(name = "{0} into {1}")
    @MethodSource("codecPairs")
    void everyBatchIsStoredWithTheTopicsCodecKeepingItsRecordsAndOffsets(CompressionType source, Codec target) {
        List<SimpleRecord> sent = records(7, 40, 11);
        MemoryRecords produced = build(compressionOf(source), TimestampType.CREATE_TIME, 5, (short) 2, 17, sent);
        int sentBytes = produced.sizeInBytes();
        LogConfig config =
                LogConfig.defaults().withCompression(TopicCompression.defaults().withCodec(target));

        ValidatedAppend append =
                AppendValidator.assignOffsetsAsLeader(TP.topicPartition(), produced, 100, 6, config, NOW_MS);

        MutableRecordBatch stored = TestBatches.only(append.records());
        assertThat(stored.compressionType()).isEqualTo(typeOf(target));
        assertThat(stored.isValid()).as("CRC").isTrue();
        assertThat(stored.baseOffset()).isEqualTo(100);
        assertThat(stored.lastOffset()).isEqualTo(106);
        assertThat(stored.partitionLeaderEpoch()).isEqualTo(6);
        assertThat(stored.producerId()).isEqualTo(5);
        assertThat(stored.producerEpoch()).isEqualTo((short) 2);
        assertThat(stored.baseSequence()).isEqualTo(17);
        assertThat(stored.isTransactional()).isFalse();
        assertThat(stored.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(stored.maxTimestamp()).isEqualTo(NOW_MS - 1_000 + 6);
        assertSameRecords(stored, sent, 100);
        BatchHeader header = append.batches().getFirst();
        assertThat(header.sizeInBytes()).isEqualTo(stored.sizeInBytes());
        assertThat(header.baseSequence()).isEqualTo(17);
        assertThat(header.lastSequence()).isEqualTo(23);
        if (source == typeOf(target)) {
            assertThat(append.recompression()).isEqualTo(RecompressionStats.NONE);
        } else {
            assertThat(append.recompression()).isEqualTo(new RecompressionStats(1, sentBytes, stored.sizeInBytes()));
        }
    }

    @ParameterizedTest
    @MethodSource("sources")
    void producerKeepsEveryBatchAsSent(CompressionType source) {
        MemoryRecords produced =
                build(compressionOf(source), TimestampType.CREATE_TIME, -1, (short) -1, -1, records(3, 10, 1));
        byte[] payload = crcCoveredOf(produced);

        ValidatedAppend append = AppendValidator.assignOffsetsAsLeader(
                TP.topicPartition(), produced, 0, 0, LogConfig.defaults(), NOW_MS);

        assertThat(append.records()).isSameAs(produced);
        assertThat(crcCoveredOf(append.records())).isEqualTo(payload);
        assertThat(append.recompression()).isEqualTo(RecompressionStats.NONE);
    }

    static Stream<CompressionType> sources() {
        return SOURCES.stream();
    }

    @Test
    void aBatchAlreadyInTheTopicsCodecIsKeptInPlaceWhateverItsLevel() {
        MemoryRecords produced = build(
                Compression.gzip().level(1).build(), TimestampType.CREATE_TIME, -1, (short) -1, -1, records(5, 200, 3));
        byte[] payload = crcCoveredOf(produced);
        LogConfig config = LogConfig.defaults()
                .withCompression(
                        TopicCompression.defaults().withCodec(Codec.GZIP).withGzipLevel(9));

        ValidatedAppend append =
                AppendValidator.assignOffsetsAsLeader(TP.topicPartition(), produced, 0, 0, config, NOW_MS);

        assertThat(crcCoveredOf(append.records())).isEqualTo(payload);
        assertThat(append.recompression()).isEqualTo(RecompressionStats.NONE);
    }

    /** The level reaches the codec: the highest level of each codec with levels stores fewer bytes than the lowest. */
    @Test
    void theTopicsLevelIsTheCodecsLevel() {
        List<SimpleRecord> sent = compressible(200);
        assertThat(storedSize(
                        sent, TopicCompression.defaults().withCodec(Codec.GZIP).withGzipLevel(1)))
                .isGreaterThan(storedSize(
                        sent, TopicCompression.defaults().withCodec(Codec.GZIP).withGzipLevel(9)));
        assertThat(storedSize(
                        sent, TopicCompression.defaults().withCodec(Codec.LZ4).withLz4Level(1)))
                .isGreaterThan(storedSize(
                        sent, TopicCompression.defaults().withCodec(Codec.LZ4).withLz4Level(17)));
        assertThat(storedSize(
                        sent, TopicCompression.defaults().withCodec(Codec.ZSTD).withZstdLevel(-50)))
                .isGreaterThan(storedSize(
                        sent, TopicCompression.defaults().withCodec(Codec.ZSTD).withZstdLevel(19)));
    }

    @Test
    void logAppendTimeStampsTheRewrittenBatch() {
        List<SimpleRecord> sent = records(4, 20, 5);
        MemoryRecords produced = build(Compression.NONE, TimestampType.CREATE_TIME, -1, (short) -1, -1, sent);
        LogConfig config = LogConfig.defaults()
                .withTimestampType(MessageTimestampType.LOG_APPEND_TIME)
                .withCompression(TopicCompression.defaults().withCodec(Codec.ZSTD));

        ValidatedAppend append =
                AppendValidator.assignOffsetsAsLeader(TP.topicPartition(), produced, 0, 0, config, NOW_MS);

        MutableRecordBatch stored = TestBatches.only(append.records());
        assertThat(stored.compressionType()).isEqualTo(CompressionType.ZSTD);
        assertThat(stored.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(stored.maxTimestamp()).isEqualTo(NOW_MS);
        assertThat(append.batches().getFirst().maxTimestamp()).isEqualTo(NOW_MS);
        for (Record record : stored) {
            assertThat(record.timestamp()).isEqualTo(NOW_MS);
        }
        assertThat(append.logAppendTimeMs()).hasValue(NOW_MS);
    }

    @Test
    void aTransactionalBatchKeepsItsFlagAndProducerFields() {
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(
                new ByteBufferOutputStream(1024),
                RecordBatch.MAGIC_VALUE_V2,
                Compression.NONE,
                TimestampType.CREATE_TIME,
                0,
                RecordBatch.NO_TIMESTAMP,
                9,
                (short) 1,
                0,
                true,
                false,
                RecordBatch.NO_PARTITION_LEADER_EPOCH,
                Integer.MAX_VALUE);
        records(2, 5, 1).forEach(builder::append);
        MutableRecordBatch batch = TestBatches.only(builder.build());

        ByteBuffer rewritten = BatchRecompression.rewrite(
                TP.topicPartition(), batch, Compression.lz4().build(), Integer.MAX_VALUE);

        MutableRecordBatch stored = TestBatches.only(MemoryRecords.readableRecords(rewritten));
        assertThat(stored.isTransactional()).isTrue();
        assertThat(stored.isControlBatch()).isFalse();
        assertThat(stored.producerId()).isEqualTo(9);
        assertThat(stored.compressionType()).isEqualTo(CompressionType.LZ4);
        assertThat(stored.isValid()).isTrue();
    }

    @Test
    void aControlBatchIsNeverRewritten() {
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(
                0, NOW_MS, 0, 9, (short) 1, new EndTransactionMarker(ControlRecordType.COMMIT, 0));

        assertThat(BatchRecompression.rewrites(TestBatches.only(marker), CompressionType.ZSTD))
                .isFalse();
        assertThat(BatchRecompression.rewrites(
                        TestBatches.only(build(
                                Compression.NONE, TimestampType.CREATE_TIME, -1, (short) -1, -1, records(1, 1, 1))),
                        CompressionType.ZSTD))
                .isTrue();
    }

    @Test
    void severalBatchesInOneAppendAreEachRewrittenOrKept() {
        MemoryRecords first = build(Compression.NONE, TimestampType.CREATE_TIME, 1, (short) 0, 0, records(2, 10, 1));
        MemoryRecords second =
                build(Compression.gzip().build(), TimestampType.CREATE_TIME, 1, (short) 0, 2, records(3, 10, 2));
        MemoryRecords third =
                build(Compression.snappy().build(), TimestampType.CREATE_TIME, 1, (short) 0, 5, records(1, 10, 3));
        LogConfig config =
                LogConfig.defaults().withCompression(TopicCompression.defaults().withCodec(Codec.GZIP));

        ValidatedAppend append = AppendValidator.assignOffsetsAsLeader(
                TP.topicPartition(), TestBatches.concat(first, second, third), 50, 1, config, NOW_MS);

        List<MutableRecordBatch> stored = new ArrayList<>();
        append.records().batches().forEach(stored::add);
        assertThat(stored).extracting(RecordBatch::compressionType).containsOnly(CompressionType.GZIP);
        assertThat(stored).extracting(RecordBatch::baseOffset).containsExactly(50L, 52L, 55L);
        assertThat(stored).extracting(RecordBatch::baseSequence).containsExactly(0, 2, 5);
        assertThat(stored).allSatisfy(b -> assertThat(b.isValid()).isTrue());
        assertThat(append.batches())
                .extracting(BatchHeader::position)
                .containsExactly(
                        0,
                        stored.get(0).sizeInBytes(),
                        stored.get(0).sizeInBytes() + stored.get(1).sizeInBytes());
        assertThat(append.recompression().batches()).isEqualTo(2);
        assertThat(append.sizeInBytes())
                .isEqualTo(stored.stream().mapToInt(RecordBatch::sizeInBytes).sum());
    }

    @Test
    void aRewrittenBatchLargerThanMaxMessageBytesIsRefused() {
        List<SimpleRecord> sent = compressible(20);
        MemoryRecords small = build(Compression.zstd().build(), TimestampType.CREATE_TIME, -1, (short) -1, -1, sent);
        LogConfig config = LogConfig.defaults()
                .withMaxMessageBytes(small.sizeInBytes() + 10)
                .withCompression(TopicCompression.defaults().withCodec(Codec.UNCOMPRESSED));
        assertThat(sent.stream().mapToInt(r -> r.value().remaining()).sum()).isGreaterThan(config.maxMessageBytes());

        assertThatThrownBy(
                        () -> AppendValidator.assignOffsetsAsLeader(TP.topicPartition(), small, 0, 0, config, NOW_MS))
                .isInstanceOf(RecordTooLargeException.class)
                .hasMessageContaining("max.message.bytes " + config.maxMessageBytes());
    }

    /** An idempotent producer's rewritten batches: a retry is a duplicate, a gap is refused, the follower stores the leader's bytes. */
    @Test
    void aLeaderStoresTheRewrittenBatchAndAFollowerCopiesItsBytes() {
        LogConfig config =
                LogConfig.defaults().withCompression(TopicCompression.defaults().withCodec(Codec.LZ4));
        try (IndexStore leaderStore = IndexStore.open(dir.resolve("leader-index"));
                IndexStore followerStore = IndexStore.open(dir.resolve("follower-index"))) {
            PartitionLog leader =
                    PartitionLog.open(dir.resolve("leader"), TP, config, leaderStore, new ManualClock(NOW_MS));
            PartitionLog follower = PartitionLog.open(
                    dir.resolve("follower"), TP, LogConfig.defaults(), followerStore, new ManualClock(NOW_MS));
            try {
                List<SimpleRecord> first = records(3, 30, 21);
                List<SimpleRecord> second = records(2, 30, 22);
                AppendResult written = leader.appendAsLeader(
                        build(Compression.gzip().build(), TimestampType.CREATE_TIME, 77, (short) 0, 0, first), 4);
                assertThat(written.recompression().batches()).isEqualTo(1);
                AppendResult retry = leader.appendAsLeader(
                        build(Compression.gzip().build(), TimestampType.CREATE_TIME, 77, (short) 0, 0, first), 4);
                assertThat(retry.duplicate()).isTrue();
                assertThat(retry.firstOffset()).isEqualTo(written.firstOffset());
                assertThatThrownBy(() -> leader.appendAsLeader(
                                build(Compression.gzip().build(), TimestampType.CREATE_TIME, 77, (short) 0, 5, second),
                                4))
                        .isInstanceOf(OutOfOrderSequenceException.class);
                leader.appendAsLeader(
                        build(Compression.gzip().build(), TimestampType.CREATE_TIME, 77, (short) 0, 3, second), 4);

                MemoryRecords fetched = readAll(leader);
                List<MutableRecordBatch> leaderBatches = new ArrayList<>();
                fetched.batches().forEach(leaderBatches::add);
                assertThat(leaderBatches)
                        .extracting(RecordBatch::compressionType)
                        .containsOnly(CompressionType.LZ4);
                assertThat(leaderBatches).extracting(RecordBatch::baseSequence).containsExactly(0, 3);
                assertThat(leaderBatches)
                        .allSatisfy(b -> assertThat(b.isValid()).isTrue());

                follower.appendAsFollower(MemoryRecords.readableRecords(ByteBuffer.wrap(payloadOf(fetched))));

                assertThat(payloadOf(readAll(follower))).isEqualTo(payloadOf(fetched));
                assertSameRecords(leaderBatches.get(0), first, 0);
                assertSameRecords(leaderBatches.get(1), second, 3);
            } finally {
                leader.close();
                follower.close();
            }
        }
    }

    // ------------------------------------------------------------------------------------------

    private static MemoryRecords readAll(PartitionLog log) {
        FileRecords region =
                (FileRecords) log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE).records();
        ByteBuffer copy = ByteBuffer.allocate(region.sizeInBytes());
        try {
            region.readInto(copy, 0);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return MemoryRecords.readableRecords(copy); // readInto flips the buffer
    }

    private int storedSize(List<SimpleRecord> sent, TopicCompression compression) {
        MemoryRecords produced = build(Compression.NONE, TimestampType.CREATE_TIME, -1, (short) -1, -1, sent);
        LogConfig config = LogConfig.defaults().withCompression(compression);
        return AppendValidator.assignOffsetsAsLeader(TP.topicPartition(), produced, 0, 0, config, NOW_MS)
                .sizeInBytes();
    }

    private static CompressionType typeOf(Codec codec) {
        return LogConfig.defaults()
                .withCompression(TopicCompression.defaults().withCodec(codec))
                .compression()
                .targetType()
                .orElseThrow();
    }

    private static Compression compressionOf(CompressionType type) {
        return Compression.of(type).build();
    }

    /** {@code count} records with random values of {@code valueBytes}, a key, a header, timestamps a second ago on. */
    private static List<SimpleRecord> records(int count, int valueBytes, long seed) {
        RandomGenerator random = java.util.random.RandomGeneratorFactory.<RandomGenerator>of("L64X128MixRandom")
                .create(seed);
        List<SimpleRecord> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[valueBytes];
            random.nextBytes(value);
            Header[] headers = {new RecordHeader("h" + i, ("v" + i).getBytes(StandardCharsets.UTF_8))};
            byte[] key = i % 3 == 2 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
            records.add(new SimpleRecord(NOW_MS - 1_000 + i, key, value, headers));
        }
        return records;
    }

    /** Records of repetitive text, 1 KiB each, that every codec compresses well. */
    private static List<SimpleRecord> compressible(int count) {
        List<SimpleRecord> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            StringBuilder text = new StringBuilder();
            while (text.length() < 1024) {
                text.append("order ")
                        .append(i % 7)
                        .append(" shipped to warehouse ")
                        .append(text.length() % 13)
                        .append("; ");
            }
            records.add(new SimpleRecord(
                    NOW_MS,
                    ("k" + i).getBytes(StandardCharsets.UTF_8),
                    text.substring(0, 1024).getBytes(StandardCharsets.UTF_8)));
        }
        return records;
    }

    private static MemoryRecords build(
            Compression compression,
            TimestampType timestampType,
            long producerId,
            short producerEpoch,
            int baseSequence,
            List<SimpleRecord> records) {
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(
                new ByteBufferOutputStream(1024),
                RecordBatch.MAGIC_VALUE_V2,
                compression,
                timestampType,
                0,
                RecordBatch.NO_TIMESTAMP,
                producerId,
                producerEpoch,
                baseSequence,
                false,
                false,
                RecordBatch.NO_PARTITION_LEADER_EPOCH,
                Integer.MAX_VALUE);
        records.forEach(builder::append);
        return builder.build();
    }

    private static void assertSameRecords(RecordBatch batch, List<SimpleRecord> sent, long baseOffset) {
        List<Record> stored = new ArrayList<>();
        batch.forEach(stored::add);
        assertThat(stored).hasSize(sent.size());
        for (int i = 0; i < sent.size(); i++) {
            Record record = stored.get(i);
            SimpleRecord expected = sent.get(i);
            assertThat(record.offset()).isEqualTo(baseOffset + i);
            assertThat(record.timestamp()).isEqualTo(expected.timestamp());
            assertThat(record.key()).isEqualTo(expected.key());
            assertThat(record.value()).isEqualTo(expected.value());
            assertThat(record.headers()).containsExactly(expected.headers());
        }
    }

    /** The bytes the CRC covers (attributes to the end), of a single batch: what the leader must keep. */
    private static byte[] crcCoveredOf(MemoryRecords records) {
        ByteBuffer copy = records.buffer().duplicate();
        copy.position(copy.position() + BatchHeader.ATTRIBUTES_OFFSET);
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }

    private static byte[] payloadOf(MemoryRecords records) {
        ByteBuffer copy = records.buffer().duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }
}
