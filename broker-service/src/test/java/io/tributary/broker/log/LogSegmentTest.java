package io.tributary.broker.log;

import static io.tributary.broker.log.TestBatches.batch;
import static io.tributary.broker.log.TestBatches.batchAt;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogSegmentTest {

    @TempDir
    Path dir;

    @Test
    void fileNameIsTheBaseOffsetInTwentyDigits() {
        assertThat(LogSegment.fileName(0)).isEqualTo("00000000000000000000.log");
        assertThat(LogSegment.fileName(4096)).isEqualTo("00000000000000004096.log");
        assertThat(LogSegment.fileName(Long.MAX_VALUE)).isEqualTo("09223372036854775807.log");
        assertThat(LogSegment.parseBaseOffset("00000000000000004096.log")).hasValue(4096);
        assertThat(LogSegment.parseBaseOffset("4096.log")).isEmpty();
        assertThat(LogSegment.parseBaseOffset("0000000000000000409x.log")).isEmpty();
        assertThat(LogSegment.parseBaseOffset("00000000000000004096.index")).isEmpty();
    }

    @Test
    void appendWritesBatchesBackToBackAndReadsThemByPosition() {
        try (LogSegment segment = LogSegment.create(dir, 10, 0)) {
            MemoryRecords first = batchAt(10, 2, 1_000, 5);
            MemoryRecords second = batchAt(12, 3, 2_000, 5);

            assertThat(segment.append(first)).isZero();
            assertThat(segment.append(second)).isEqualTo(first.sizeInBytes());

            BatchHeader header = segment.readHeader(first.sizeInBytes(), segment.sizeInBytes())
                    .orElseThrow();
            assertThat(header.baseOffset()).isEqualTo(12);
            assertThat(header.lastOffset()).isEqualTo(14);
            assertThat(header.maxTimestamp()).isEqualTo(2_002);
            assertThat(header.sizeInBytes()).isEqualTo(second.sizeInBytes());
            assertThat(TestBatches.offsetsOf(List.of(segment.readBatch(header))))
                    .containsExactly(12L, 13L, 14L);

            FileRecords slice = segment.slice(0, segment.sizeInBytes());
            assertThat(TestBatches.offsetsOf(slice.batches())).containsExactly(10L, 11L, 12L, 13L, 14L);
        }
    }

    @Test
    void readHeaderStopsAtTheGivenLimit() {
        try (LogSegment segment = LogSegment.create(dir, 0, 0)) {
            MemoryRecords records = batch(1, 1, 1);
            segment.append(records);

            assertThat(segment.readHeader(0, BatchHeader.SIZE - 1)).isEmpty();
            assertThat(segment.readHeader(records.sizeInBytes(), segment.sizeInBytes()))
                    .isEmpty();
        }
    }

    @Test
    void reopenedSegmentKeepsItsBatchesAndAppendsAtTheEnd() {
        MemoryRecords first = batchAt(0, 1, 1, 1);
        try (LogSegment segment = LogSegment.create(dir, 0, 0)) {
            segment.append(first);
            segment.flush();
        }
        try (LogSegment segment = LogSegment.open(dir, 0, 0)) {
            assertThat(segment.sizeInBytes()).isEqualTo(first.sizeInBytes());
            assertThat(segment.append(batchAt(1, 1, 1, 1))).isEqualTo(first.sizeInBytes());
            assertThat(scanAll(segment).problem()).isEmpty();
        }
    }

    @Test
    void scanReportsEveryGoodBatchAndTheEnd() {
        try (LogSegment segment = LogSegment.create(dir, 0, 0)) {
            segment.append(batchAt(0, 2, 1, 1));
            segment.append(batchAt(2, 2, 1, 1));
            List<Long> bases = new ArrayList<>();

            LogSegment.ScanResult result = segment.scan(0, 0, h -> bases.add(h.baseOffset()));

            assertThat(bases).containsExactly(0L, 2L);
            assertThat(result.validBytes()).isEqualTo(segment.sizeInBytes());
            assertThat(result.nextOffset()).isEqualTo(4);
            assertThat(result.problem()).isEmpty();
        }
    }

    @Test
    void scanStopsAtABatchCutShort() throws IOException {
        try (LogSegment segment = LogSegment.create(dir, 0, 0)) {
            MemoryRecords first = batchAt(0, 2, 1, 1);
            segment.append(first);
            segment.append(batchAt(2, 2, 1, 1));
        }
        cutFile(segment0(), 5);

        try (LogSegment segment = LogSegment.open(dir, 0, 0)) {
            LogSegment.ScanResult result = scanAll(segment);

            assertThat(result.validBytes()).isEqualTo(batchAt(0, 2, 1, 1).sizeInBytes());
            assertThat(result.nextOffset()).isEqualTo(2);
            assertThat(result.problem()).hasValueSatisfying(p -> assertThat(p).contains("cut short"));
        }
    }

    @Test
    void scanStopsAtABatchWithABadCrc() throws IOException {
        int firstSize;
        try (LogSegment segment = LogSegment.create(dir, 0, 0)) {
            MemoryRecords first = batchAt(0, 2, 1, 1);
            firstSize = first.sizeInBytes();
            segment.append(first);
            segment.append(batchAt(2, 2, 1, 1));
        }
        flipByte(segment0(), firstSize + BatchHeader.SIZE + 2);

        try (LogSegment segment = LogSegment.open(dir, 0, 0)) {
            LogSegment.ScanResult result = scanAll(segment);

            assertThat(result.validBytes()).isEqualTo(firstSize);
            assertThat(result.problem()).hasValue("CRC mismatch");
        }
    }

    @Test
    void scanStopsAtOffsetsThatDoNotIncrease() {
        try (LogSegment segment = LogSegment.create(dir, 0, 0)) {
            segment.append(batchAt(0, 2, 1, 1));
            segment.append(batchAt(1, 2, 1, 1));

            LogSegment.ScanResult result = scanAll(segment);

            assertThat(result.validBytes()).isEqualTo(batchAt(0, 2, 1, 1).sizeInBytes());
            assertThat(result.problem()).hasValueSatisfying(p -> assertThat(p).contains("do not continue from 2"));
        }
    }

    @Test
    void scanStopsAtALengthFieldBelowAHeader() throws IOException {
        try (LogSegment segment = LogSegment.create(dir, 0, 0)) {
            segment.append(batchAt(0, 1, 1, 1));
        }
        try (FileChannel channel = FileChannel.open(segment0(), StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(4).putInt(0, 10), BatchHeader.LENGTH_OFFSET);
        }
        try (LogSegment segment = LogSegment.open(dir, 0, 0)) {
            assertThat(scanAll(segment).validBytes()).isZero();
            assertThat(scanAll(segment).problem())
                    .hasValueSatisfying(p -> assertThat(p).contains("below a header"));
        }
    }

    @Test
    void truncateCutsTheFile() {
        try (LogSegment segment = LogSegment.create(dir, 0, 0)) {
            MemoryRecords first = batchAt(0, 1, 1, 1);
            segment.append(first);
            segment.append(batchAt(1, 1, 1, 1));

            segment.truncateTo(first.sizeInBytes());

            assertThat(segment.sizeInBytes()).isEqualTo(first.sizeInBytes());
            assertThat(scanAll(segment).nextOffset()).isEqualTo(1);
            assertThat(segment.append(batchAt(1, 1, 1, 1))).isEqualTo(first.sizeInBytes());
        }
    }

    @Test
    void deleteRemovesTheFile() {
        LogSegment segment = LogSegment.create(dir, 0, 0);
        segment.delete();
        assertThat(segment0()).doesNotExist();
    }

    private static LogSegment.ScanResult scanAll(LogSegment segment) {
        return segment.scan(0, segment.baseOffset(), h -> {});
    }

    private Path segment0() {
        return dir.resolve(LogSegment.fileName(0));
    }

    static void cutFile(Path file, int bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() - bytes);
        }
    }

    static void flipByte(Path file, long position) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x01));
            one.rewind();
            channel.write(one, position);
        }
    }
}
