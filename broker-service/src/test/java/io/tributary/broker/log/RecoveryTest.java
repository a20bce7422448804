package io.tributary.broker.log;

import static io.tributary.broker.log.TestBatches.batch;
import static io.tributary.broker.log.TestBatches.offsetsOf;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.broker.log.index.PartitionIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Recovery after an unclean stop: torn and corrupted tails are cut at the first bad byte, exactly
 * the valid prefix survives, and the index agrees with a full scan afterwards.
 */
class RecoveryTest {

    /** Small batches in two segments, every batch indexed, so that the torn batch has entries too. */
    private static final LogConfig CONFIG =
            LogConfig.defaults().withSegmentBytes(600).withIndexIntervalBytes(0);

    @TempDir
    static Path root;

    private static IndexStore store;
    private static int partitions;

    @BeforeAll
    static void open() {
        store = IndexStore.open(root.resolve("index"));
    }

    @AfterAll
    static void close() {
        store.close();
    }

    /** A crashed log: batches of 1..3 records with growing timestamps, the last one in the last segment. */
    private record Crashed(
            TopicIdPartition tp,
            Path data,
            Path lastSegment,
            int lastBatchPosition,
            int lastBatchSize,
            long lastBatchBase,
            long[] offsetsBefore) {}

    private static Crashed crashedLog(ManualClock clock) {
        int n = partitions++;
        TopicIdPartition tp = new TopicIdPartition(new Uuid(99, n), n, "torn");
        Path data = root.resolve("data-" + n);
        PartitionLog log = PartitionLog.open(data, tp, CONFIG, store, clock);
        for (int i = 0; i < 8; i++) {
            log.appendAsLeader(batch(1 + i % 3, 1_000 + 10 * i, 20), 0);
        }
        MemoryRecords last = batch(2, 5_000, 20);
        long lastBase = log.logEndOffset();
        List<Long> before = offsetsOf(
                log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE).records().batches());
        log.appendAsLeader(last, 0);
        List<Long> segments = log.segmentBaseOffsets();
        assertThat(segments).as("the test needs the tail in a later segment").hasSizeGreaterThan(1);
        Path lastSegment = log.directory().resolve(LogSegment.fileName(segments.getLast()));
        int lastPosition;
        try {
            lastPosition = (int) Files.size(lastSegment) - last.sizeInBytes();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        log.closeAsIfCrashed();
        // The read above covers the first segment only; the prefix is every offset below the last batch.
        long[] prefix = LongStream.range(0, lastBase).toArray();
        assertThat(before).isNotEmpty().allSatisfy(o -> assertThat(o).isLessThan(lastBase));
        return new Crashed(tp, data, lastSegment, lastPosition, last.sizeInBytes(), lastBase, prefix);
    }

    private static void assertValidPrefixSurvives(Crashed crashed, ManualClock clock, String where) throws IOException {
        PartitionLog log = PartitionLog.open(crashed.data(), crashed.tp(), CONFIG, store, clock);
        try {
            PartitionIndex index =
                    store.partition(crashed.tp().topicId(), crashed.tp().partition());
            assertThat(log.openReport().cleanShutdown()).as(where).isFalse();
            assertThat(log.logEndOffset()).as(where + ": log end").isEqualTo(crashed.lastBatchBase());
            assertThat(Files.size(crashed.lastSegment()))
                    .as(where + ": file cut at the batch")
                    .isEqualTo(crashed.lastBatchPosition());
            List<Long> offsets = new ArrayList<>();
            long next = 0;
            while (next < log.logEndOffset()) {
                List<Long> read = offsetsOf(log.read(next, Integer.MAX_VALUE, Long.MAX_VALUE)
                        .records()
                        .batches());
                offsets.addAll(read);
                next = read.getLast() + 1;
            }
            assertThat(offsets)
                    .as(where + ": the valid prefix")
                    .containsExactly(java.util.Arrays.stream(crashed.offsetsBefore())
                            .boxed()
                            .toArray(Long[]::new));
            assertThat(IndexAudit.violations(log, index))
                    .as(where + ": index vs full scan")
                    .isEmpty();
            assertThat(index.offsetEntries())
                    .as(where)
                    .allSatisfy(e -> assertThat(e.offset()).isLessThan(crashed.lastBatchBase()));
            assertThat(log.appendAsLeader(batch(1, 6_000, 1), 0).firstOffset())
                    .as(where)
                    .isEqualTo(crashed.lastBatchBase());
        } finally {
            log.close();
        }
    }

    @Test
    void cuttingTheLastBatchAtEveryByteKeepsExactlyTheBatchesBeforeIt() throws IOException {
        ManualClock clock = new ManualClock(1_000_000);
        int size = crashedLog(clock).lastBatchSize();
        for (int kept = 0; kept < size; kept++) {
            Crashed crashed = crashedLog(clock);
            truncate(crashed.lastSegment(), crashed.lastBatchPosition() + kept);
            assertValidPrefixSurvives(crashed, clock, "cut after " + kept + " of " + size + " bytes");
        }
    }

    @Test
    void corruptingAnyCheckedByteOfTheLastBatchDropsIt() throws IOException {
        ManualClock clock = new ManualClock(1_000_000);
        int size = crashedLog(clock).lastBatchSize();
        // Kafka's batch format leaves the base offset (bytes 0-7) and the partition leader epoch
        // (12-15) outside the CRC; every other byte is checked: length, magic, CRC and the rest.
        int[] checked = IntStream.range(8, size).filter(i -> i < 12 || i > 15).toArray();
        for (int at : checked) {
            Crashed crashed = crashedLog(clock);
            flip(crashed.lastSegment(), crashed.lastBatchPosition() + at);
            assertValidPrefixSurvives(crashed, clock, "byte " + at + " of " + size + " flipped");
        }
    }

    @Test
    void aCorruptBatchInAnEarlierSegmentCutsThereAndDropsLaterSegments() throws IOException {
        ManualClock clock = new ManualClock(1_000_000);
        int n = partitions++;
        TopicIdPartition tp = new TopicIdPartition(new Uuid(98, n), n, "middle");
        Path data = root.resolve("middle-" + n);
        PartitionLog log = PartitionLog.open(data, tp, CONFIG, store, clock);
        for (int i = 0; i < 12; i++) {
            log.appendAsLeader(batch(2, 1_000 + i, 20), 0);
        }
        List<Long> segments = log.segmentBaseOffsets();
        assertThat(segments).hasSizeGreaterThan(2);
        // Pretend nothing was flushed: the recovery point goes back to the start.
        log.truncateTo(log.logEndOffset());
        log.closeAsIfCrashed();
        store.partition(tp.topicId(), tp.partition())
                .writeState(
                        new io.tributary.broker.log.index.PartitionState(
                                0, 0, io.tributary.broker.log.index.PartitionState.Shutdown.UNCLEAN, List.of()),
                        io.tributary.broker.log.index.Durability.SYNC);
        Path first = data.resolve("middle-" + n).resolve(LogSegment.fileName(0));
        int secondBatch = batch(2, 1_000, 20).sizeInBytes();
        flip(first, secondBatch + 30);

        log = PartitionLog.open(data, tp, CONFIG, store, clock);
        try {
            assertThat(log.logEndOffset()).isEqualTo(2);
            assertThat(log.segmentBaseOffsets()).containsExactly(0L);
            assertThat(log.openReport().segmentsDeleted()).isEqualTo(segments.size() - 1);
            assertThat(Files.size(first)).isEqualTo(secondBatch);
            assertThat(IndexAudit.violations(log, store.partition(tp.topicId(), tp.partition())))
                    .isEmpty();
        } finally {
            log.close();
        }
    }

    @Test
    void recoveryLogsTopicPartitionFileAndPositionAtWarn() throws IOException {
        Logger logger = (Logger) LoggerFactory.getLogger(PartitionLog.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            ManualClock clock = new ManualClock(1_000_000);
            Crashed crashed = crashedLog(clock);
            truncate(crashed.lastSegment(), crashed.lastBatchPosition() + 7);

            assertValidPrefixSurvives(crashed, clock, "cut after 7 bytes");

            assertThat(appender.list)
                    .filteredOn(e -> e.getLevel() == Level.WARN)
                    .singleElement()
                    .satisfies(e -> assertThat(e.getFormattedMessage())
                            .contains(crashed.tp().topic())
                            .contains(crashed.lastSegment().toString())
                            .contains("at byte " + crashed.lastBatchPosition() + " of "));
        } finally {
            logger.detachAppender(appender);
        }
    }

    @Test
    void openingManyPartitionsAfterACleanStopScansNothing() {
        ManualClock clock = new ManualClock(1_000_000);
        List<TopicIdPartition> tps = new ArrayList<>();
        Path data = root.resolve("many");
        for (int p = 0; p < 100; p++) {
            TopicIdPartition tp = new TopicIdPartition(new Uuid(97, 1), p, "many");
            tps.add(tp);
            try (PartitionLog log = PartitionLog.open(data, tp, LogConfig.defaults(), store, clock)) {
                log.appendAsLeader(batch(3, 1_000, 100), 0);
            }
        }

        for (TopicIdPartition tp : tps) {
            try (PartitionLog log = PartitionLog.open(data, tp, LogConfig.defaults(), store, clock)) {
                assertThat(log.openReport()).as("%s", tp).isEqualTo(new RecoveryReport(true, 0, 0, 0));
                assertThat(log.logEndOffset()).isEqualTo(3);
            }
        }
    }

    @Test
    void aCrashAfterACleanReopenStillLeadsToARescan() {
        ManualClock clock = new ManualClock(1_000_000);
        TopicIdPartition tp = new TopicIdPartition(new Uuid(96, 1), 0, "again");
        Path data = root.resolve("again");
        try (PartitionLog log = PartitionLog.open(data, tp, CONFIG, store, clock)) {
            log.appendAsLeader(batch(3, 1_000, 100), 0);
        }
        PartitionLog reopened = PartitionLog.open(data, tp, CONFIG, store, clock);
        reopened.appendAsLeader(batch(3, 1_000, 100), 0);
        reopened.closeAsIfCrashed();

        try (PartitionLog log = PartitionLog.open(data, tp, CONFIG, store, clock)) {
            assertThat(log.openReport().cleanShutdown()).isFalse();
            assertThat(log.openReport().bytesScanned()).isPositive();
            assertThat(log.logEndOffset()).isEqualTo(6);
        }
    }

    static void truncate(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }

    static void flip(Path file, long position) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x10));
            one.rewind();
            channel.write(one, position);
        }
    }
}
