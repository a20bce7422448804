package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.log.cleaner.CleanResult;
import io.tributary.broker.log.cleaner.Cleaner;
import io.tributary.broker.log.cleaner.CleanerConfig;
import io.tributary.broker.log.cleaner.CleanerTestLogs;
import io.tributary.broker.log.cleaner.IoThrottle;
import io.tributary.common.protocol.SocketTransferableChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments removed from a log (retention, a truncation, a cleaner swap) stay readable for {@code
 * file.delete.delay.ms}: a read result taken before still sends its bytes with {@code transferTo}
 * (the Fetch path) and still decodes; the file is renamed {@code <base>.log.deleted} at once and is
 * deleted once the delay has passed on the log's clock, at a clean close, or when the log opens
 * after a crash. Time only moves by hand.
 */
class RetiredSegmentsTest {

    private static final Duration DELAY = Duration.ofSeconds(30);
    private static final LogConfig CONFIG = LogConfig.defaults().withFileDeleteDelay(DELAY);
    private static final String FIRST_RETIRED = LogSegment.fileName(0) + SegmentDeleter.DELETED_SUFFIX;

    private final ManualClock clock = new ManualClock(10_000_000);

    @RegisterExtension
    final CleanerTestLogs logs = new CleanerTestLogs(clock);

    /** Where {@link #sent} copies a region to. */
    @TempDir
    Path out;

    private PartitionLog log;

    private PartitionLog open(LogConfig config) {
        log = logs.open("retired", config);
        return log;
    }

    /** Three segments of one batch each, the last active. */
    private void fillThreeSegments() {
        for (int s = 0; s < 3; s++) {
            log.appendAsLeader(TestBatches.batch(5, clock.millis() - 1_000 + s, 100), 0);
            if (s < 2) {
                log.roll();
            }
        }
    }

    @Test
    void aRegionOfASegmentRetentionDeletedIsSentWholeUntilTheDelayPasses() throws IOException {
        open(CONFIG.withRetentionBytes(OptionalLong.of(1)));
        fillThreeSegments();
        byte[] original = Files.readAllBytes(log.directory().resolve(LogSegment.fileName(0)));
        ReadResult held = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE);

        assertThat(log.deleteExpiredSegments(16).segmentsDeleted()).isEqualTo(2);

        assertThat(fileNames()).contains(FIRST_RETIRED).doesNotContain(LogSegment.fileName(0));
        assertThat(sent(held.records())).isEqualTo(original);
        assertThat(log.retiredSegments()).isEqualTo(2);
        clock.advance(DELAY.minusMillis(1));
        assertThat(log.deleteRetiredSegments()).isZero();
        assertThat(sent(held.records())).isEqualTo(original);

        clock.advance(Duration.ofMillis(1));
        assertThat(log.deleteRetiredSegments()).isEqualTo(2);

        assertThat(fileNames()).noneMatch(name -> name.endsWith(SegmentDeleter.DELETED_SUFFIX));
        assertThat(log.retiredSegments()).isZero();
        // The delay, not luck, kept it readable: now the region's channel is closed.
        assertThatThrownBy(() -> sent(held.records())).isInstanceOf(ClosedChannelException.class);
    }

    @Test
    void aZeroDelayClosesAndDeletesARemovedSegmentAtOnce() {
        open(CONFIG.withRetentionBytes(OptionalLong.of(1)).withFileDeleteDelay(Duration.ZERO));
        fillThreeSegments();
        ReadResult held = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE);

        log.deleteExpiredSegments(16);

        assertThat(fileNames()).noneMatch(name -> name.startsWith(LogSegment.fileName(0)));
        assertThat(log.retiredSegments()).isZero();
        assertThatThrownBy(() -> sent(held.records())).isInstanceOf(ClosedChannelException.class);
    }

    @Test
    void aReaderOfSegmentsACleanerSwapReplacedStillReadsTheOriginalRecords() throws IOException {
        open(CleanerTestLogs.COMPACT.withFileDeleteDelay(DELAY));
        CleanerTestLogs.fill(log, 3, 20, clock.millis() - 1_000);
        log.flush();
        byte[] original = Files.readAllBytes(log.directory().resolve(LogSegment.fileName(0)));
        ReadResult held = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE);
        List<String> before = contents(held.records());

        CleanResult cleaned = new Cleaner(CleanerConfig.defaults(), clock).clean(log, log.logEndOffset());

        assertThat(cleaned.segmentsSwapped()).isPositive();
        assertThat(LogContents.records(log)).hasSizeLessThan(60);
        assertThat(Files.readAllBytes(log.directory().resolve(LogSegment.fileName(0))))
                .isNotEqualTo(original);
        assertThat(contents(held.records())).isEqualTo(before).hasSize(20);
        assertThat(sent(held.records())).isEqualTo(original);
        assertThat(fileNames()).contains(FIRST_RETIRED);
        assertThat(log.retiredSegments()).isEqualTo(3);

        clock.advance(DELAY);
        assertThat(log.deleteRetiredSegments()).isEqualTo(3);
        assertThat(fileNames()).allMatch(name -> name.endsWith(".log"));
    }

    @Test
    void aSwapFailingAfterItRetiredAnOriginalKeepsServingTheOriginalsAndTheNextOpenFinishesIt() {
        open(CleanerTestLogs.COMPACT.withFileDeleteDelay(DELAY));
        CleanerTestLogs.fill(log, 3, 20, clock.millis() - 1_000);
        log.flush();
        TreeMap<Long, String> before = LogContents.records(log);
        SwapObserver failAfterRetiring = (step, file) -> {
            if (step == SwapObserver.Step.ORIGINAL_RETIRED) {
                throw new UncheckedIOException(new IOException("injected: the disk failed after " + file));
            }
        };
        Cleaner cleaner =
                new Cleaner(CleanerConfig.defaults(), clock, IoThrottle.unlimited(), () -> false, failAfterRetiring);

        assertThatThrownBy(() -> cleaner.clean(log, log.logEndOffset())).hasMessageContaining("injected");

        clock.advance(DELAY);
        assertThat(log.deleteRetiredSegments()).isZero();
        assertThat(LogContents.records(log)).isEqualTo(before);
        LogCrashes.crash(log);
        log = logs.reopen(log);
        assertThat(LogContents.records(log)).hasSizeLessThan(before.size());
        assertThat(fileNames()).allMatch(name -> name.endsWith(".log"));
    }

    @Test
    void segmentsATruncationRemovedUnderTheSameNameTwiceStayReadable() {
        open(CONFIG);
        log.appendAsLeader(TestBatches.batch(3, clock.millis(), 10), 0);
        ReadResult first = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE);
        log.truncateFullyAndStartAt(0);
        log.appendAsLeader(TestBatches.batch(4, clock.millis(), 10), 0);
        ReadResult second = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE);
        log.truncateFullyAndStartAt(0);

        assertThat(contents(first.records())).hasSize(3);
        assertThat(contents(second.records())).hasSize(4);
        assertThat(log.logEndOffset()).isZero();
        clock.advance(DELAY);
        assertThat(log.deleteRetiredSegments()).isEqualTo(2);
        assertThat(fileNames()).containsExactly(LogSegment.fileName(0));
    }

    @Test
    void retiredFilesACrashLeftAreDeletedWhenTheLogOpens() {
        open(CONFIG.withRetentionBytes(OptionalLong.of(1)));
        fillThreeSegments();
        log.deleteExpiredSegments(16);
        LogCrashes.crash(log);
        assertThat(fileNames()).contains(FIRST_RETIRED);

        log = logs.reopen(log);

        assertThat(fileNames()).allMatch(name -> name.endsWith(".log"));
        assertThat(log.logStartOffset()).isEqualTo(10);
        assertThat(LogContents.records(log)).hasSize(5);
    }

    @Test
    void aCleanCloseDeletesTheRetiredFiles() {
        open(CONFIG.withRetentionBytes(OptionalLong.of(1)));
        fillThreeSegments();
        log.deleteExpiredSegments(16);

        log.close();

        assertThat(fileNames()).allMatch(name -> name.endsWith(".log")).hasSize(1);
    }

    /** What a Fetch sends of {@code records}: their bytes copied with {@code transferTo}. */
    private byte[] sent(Records records) throws IOException {
        Path copy = out.resolve("sent");
        try (FileChannel target = FileChannel.open(
                copy, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            SocketTransferableChannel channel = new SocketTransferableChannel(target);
            int written = 0;
            while (written < records.sizeInBytes()) {
                written += records.writeTo(channel, written, records.sizeInBytes() - written);
            }
        }
        return Files.readAllBytes(copy);
    }

    private static List<String> contents(Records records) {
        List<String> out = new ArrayList<>();
        for (RecordBatch batch : records.batches()) {
            for (Record record : batch) {
                out.add(record.offset() + ":" + LogContents.string(record.key()) + "="
                        + LogContents.string(record.value()));
            }
        }
        return out;
    }

    private List<String> fileNames() {
        try (Stream<Path> files = Files.list(log.directory())) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
