package io.tributary.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * One segment file of a partition log: Kafka record batches (magic v2) back to back, nothing else.
 *
 * <h2>On-disk format</h2>
 *
 * <p>File name: the offset of the segment's first possible record (its <em>base offset</em>) as 20
 * decimal digits, zero-padded, then {@code .log}: {@code 00000000000000000000.log}, {@code
 * 00000000000000004096.log}. Twenty digits hold any non-negative int64, and the names sort
 * lexicographically in offset order. Every batch in the file has a base offset at least the file's
 * base offset and greater than the previous batch's last offset.
 *
 * <p>Content: from byte 0, batches exactly as Kafka's {@code DefaultRecordBatch} lays them out (see
 * {@link BatchHeader} for the header fields this engine reads); batch {@code i + 1} starts at the
 * byte after batch {@code i}. There is no file header, footer or padding: the file is what a Fetch
 * response carries, so regions of it are sent with {@code FileChannel.transferTo}. A file that ends
 * inside a batch or holds a batch with a bad CRC was torn by a crash; {@link #scan} finds the first
 * bad byte and recovery truncates there.
 *
 * <h2>Thread-safety</h2>
 *
 * <p>One writer at a time ({@link #append}, {@link #truncateTo}, {@link #flush}, {@link #close});
 * any number of concurrent readers ({@link #readHeader}, {@link #slice}, {@link #readBatch}), which
 * use positional reads and never move the channel's position. A reader must bound itself by a size
 * published after the write (the partition's log end), never by the file's current length, to
 * avoid seeing a batch being written.
 */
public final class LogSegment implements AutoCloseable {

    private static final String SUFFIX = ".log";

    /** A timestamp field not read from the file yet. */
    private static final long UNKNOWN = Long.MIN_VALUE;

    private final long baseOffset;
    private final Path path;
    private final FileRecords file;
    private final long openedMs;
    /** The max timestamp of the first batch, or UNKNOWN until read (writer-maintained, lazily). */
    private volatile long firstBatchTimestampMs = UNKNOWN;
    /** The largest batch max-timestamp in the file, or UNKNOWN until scanned (lazily). */
    private volatile long largestTimestampMs = UNKNOWN;

    private LogSegment(long baseOffset, Path path, FileRecords file, long openedMs) {
        this.baseOffset = baseOffset;
        this.path = path;
        this.file = file;
        this.openedMs = openedMs;
    }

    /** Creates an empty segment file at {@code nowMs}; fails if it exists. */
    public static LogSegment create(Path dir, long baseOffset, long nowMs) {
        Path path = dir.resolve(fileName(baseOffset));
        try {
            Files.createFile(path);
            LogSegment segment =
                    new LogSegment(baseOffset, path, FileRecords.open(path.toFile(), true, 0, false), nowMs);
            segment.largestTimestampMs = RecordBatch.NO_TIMESTAMP;
            return segment;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create segment " + path, e);
        }
    }

    /** Opens an existing segment file for appending at its end; {@code nowMs} stands in for its age. */
    public static LogSegment open(Path dir, long baseOffset, long nowMs) {
        Path path = dir.resolve(fileName(baseOffset));
        try {
            return new LogSegment(baseOffset, path, FileRecords.open(path.toFile(), true, 0, false), nowMs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open segment " + path, e);
        }
    }

    /**
     * Opens a file holding segment content under another name (a cleaned segment's {@code .swap}
     * file, see {@link SegmentSwap}), to read its batches.
     */
    static LogSegment openFile(Path path, long baseOffset, long nowMs) {
        try {
            return new LogSegment(baseOffset, path, FileRecords.open(path.toFile(), true, 0, false), nowMs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + path, e);
        }
    }

    /** {@code <20-digit base offset>.log}. */
    public static String fileName(long baseOffset) {
        if (baseOffset < 0) {
            throw new IllegalArgumentException("negative base offset " + baseOffset);
        }
        return String.format("%020d%s", baseOffset, SUFFIX);
    }

    /** The base offset named by a segment file name, or empty if the name is not a segment's. */
    public static OptionalLong parseBaseOffset(String fileName) {
        if (fileName.length() != 20 + SUFFIX.length() || !fileName.endsWith(SUFFIX)) {
            return OptionalLong.empty();
        }
        for (int i = 0; i < 20; i++) {
            if (!Character.isDigit(fileName.charAt(i))) {
                return OptionalLong.empty();
            }
        }
        try {
            return OptionalLong.of(Long.parseLong(fileName.substring(0, 20)));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    public long baseOffset() {
        return baseOffset;
    }

    public Path path() {
        return path;
    }

    /** Bytes written so far (including a batch being written; readers use the published end). */
    public int sizeInBytes() {
        return file.sizeInBytes();
    }

    /**
     * Writes whole, validated batches at the end of the file.
     *
     * @return the position of the first written byte
     */
    public int append(MemoryRecords records) {
        int position = file.sizeInBytes();
        if ((long) position + records.sizeInBytes() > Integer.MAX_VALUE) {
            throw new IllegalStateException("segment " + path + " would exceed 2 GiB");
        }
        try {
            file.append(records);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + path, e);
        }
        return position;
    }

    /** Tells the segment about a batch just written or validated at its end (writer only). */
    void observe(BatchHeader header) {
        if (header.position() == 0) {
            firstBatchTimestampMs = header.maxTimestamp();
        }
        long largest = largestTimestampMs;
        if (largest != UNKNOWN && header.maxTimestamp() > largest) {
            largestTimestampMs = header.maxTimestamp();
        }
    }

    /**
     * What {@code segment.ms} measures a segment's age from: its first batch's max timestamp, as
     * Kafka does, or the time the segment was created or opened when that batch has no timestamp.
     * Empty segments are never rolled, so this is only asked of non-empty ones.
     */
    long rollBaseMs() {
        long first = firstBatchTimestampMs;
        if (first == UNKNOWN) {
            first = readHeader(0, sizeInBytes()).map(BatchHeader::maxTimestamp).orElse(RecordBatch.NO_TIMESTAMP);
            firstBatchTimestampMs = first;
        }
        return first == RecordBatch.NO_TIMESTAMP ? openedMs : first;
    }

    /**
     * Whether the first batch carries a timestamp, so that {@code segment.ms} compares record time
     * with record time; otherwise it compares the clock with {@link #rollBaseMs()}.
     */
    boolean rollsByRecordTime() {
        rollBaseMs();
        return firstBatchTimestampMs != RecordBatch.NO_TIMESTAMP;
    }

    /**
     * The largest batch max-timestamp among the first {@code limit} bytes, or empty if no batch has
     * a timestamp. Read once by walking the batch headers (not the records), then kept up to date
     * by {@link #observe}. Called by the writer, for retention.
     */
    OptionalLong largestTimestampMs(int limit) {
        long largest = largestTimestampMs;
        if (largest == UNKNOWN) {
            largest = RecordBatch.NO_TIMESTAMP;
            int position = 0;
            Optional<BatchHeader> header;
            while ((header = readHeader(position, limit)).isPresent()) {
                largest = Math.max(largest, header.get().maxTimestamp());
                position += header.get().sizeInBytes();
            }
            largestTimestampMs = largest;
        }
        return largest == RecordBatch.NO_TIMESTAMP ? OptionalLong.empty() : OptionalLong.of(largest);
    }

    /**
     * The header of the batch starting at {@code position}, if the whole batch (by its length field)
     * lies before {@code limit}. The CRC is not checked; callers bound {@code limit} by published
     * sizes, so they only see batches that were validated when written.
     */
    public Optional<BatchHeader> readHeader(int position, int limit) {
        if ((long) position + BatchHeader.SIZE > limit) {
            return Optional.empty();
        }
        ByteBuffer buffer = ByteBuffer.allocate(BatchHeader.SIZE);
        if (readFully(buffer, position) < BatchHeader.SIZE) {
            return Optional.empty();
        }
        BatchHeader header = BatchHeader.read(buffer, 0, position);
        if (header.sizeInBytes() < BatchHeader.SIZE || (long) position + header.sizeInBytes() > limit) {
            return Optional.empty();
        }
        return Optional.of(header);
    }

    /** A copy of the batch whose header is {@code header}, for decoding its records. */
    public MutableRecordBatch readBatch(BatchHeader header) {
        ByteBuffer buffer = ByteBuffer.allocate(header.sizeInBytes());
        if (readFully(buffer, header.position()) < header.sizeInBytes()) {
            throw new IllegalStateException("batch at " + header.position() + " of " + path + " is not whole");
        }
        buffer.flip();
        return MemoryRecords.readableRecords(buffer).batches().iterator().next();
    }

    /**
     * A copy of the {@code length} bytes from {@code position}, which the caller knows to be whole
     * batches (read with {@link #readHeader}): the log cleaner reads several batches per read.
     */
    public MemoryRecords readBatches(int position, int length) {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        if (readFully(buffer, position) < length) {
            throw new IllegalStateException(length + " bytes at " + position + " of " + path + " are not whole");
        }
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    /**
     * A region of the file, for sending with {@code transferTo}. The returned records share this
     * segment's channel; closing them is not needed (and must not be done).
     */
    public FileRecords slice(int position, int length) {
        return file.slice(position, length);
    }

    /**
     * Validates batches from {@code fromPosition} to the end of the file, calling {@code onValid} for
     * each good batch in order, and stops at the first bad byte: a header or batch cut short, a length
     * below a batch header, a magic other than 2, a CRC mismatch, or offsets that do not increase
     * (base offset below {@code minBaseOffset} or the previous batch's last offset + 1).
     */
    public ScanResult scan(int fromPosition, long minBaseOffset, Consumer<BatchHeader> onValid) {
        int fileSize = file.sizeInBytes();
        int position = fromPosition;
        long next = minBaseOffset;
        ByteBuffer header = ByteBuffer.allocate(BatchHeader.SIZE);
        while (position < fileSize) {
            if (fileSize - position < Records.LOG_OVERHEAD) {
                return new ScanResult(position, next, Optional.of("a batch's length field is cut short"));
            }
            header.clear();
            int headerBytes = readFully(header.limit(Math.min(BatchHeader.SIZE, fileSize - position)), position);
            int length = header.getInt(Records.SIZE_OFFSET);
            if (length < BatchHeader.SIZE - Records.LOG_OVERHEAD) {
                return new ScanResult(position, next, Optional.of("length field " + length + " is below a header"));
            }
            long size = (long) length + Records.LOG_OVERHEAD;
            if (headerBytes < BatchHeader.SIZE || position + size > fileSize) {
                return new ScanResult(position, next, Optional.of("the batch is cut short at the end of the file"));
            }
            ByteBuffer batchBytes = ByteBuffer.allocate((int) size);
            readFully(batchBytes, position);
            batchBytes.flip();
            BatchHeader parsed = BatchHeader.read(batchBytes, 0, position);
            if (parsed.magic() != RecordBatch.MAGIC_VALUE_V2) {
                return new ScanResult(position, next, Optional.of("magic " + parsed.magic()));
            }
            MutableRecordBatch batch = MemoryRecords.readableRecords(batchBytes)
                    .batches()
                    .iterator()
                    .next();
            if (!batch.isValid()) {
                return new ScanResult(position, next, Optional.of("CRC mismatch"));
            }
            if (parsed.baseOffset() < next || parsed.lastOffset() < parsed.baseOffset()) {
                return new ScanResult(
                        position,
                        next,
                        Optional.of("offsets " + parsed.baseOffset() + ".." + parsed.lastOffset()
                                + " do not continue from " + next));
            }
            onValid.accept(parsed);
            next = parsed.nextOffset();
            position += (int) size;
        }
        return new ScanResult(position, next, Optional.empty());
    }

    /** Cuts the file to {@code size} bytes. */
    public void truncateTo(int size) {
        try {
            file.truncateTo(size);
            firstBatchTimestampMs = UNKNOWN;
            largestTimestampMs = size == 0 ? RecordBatch.NO_TIMESTAMP : UNKNOWN;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot truncate " + path + " to " + size, e);
        }
    }

    /** Forces the file's content to the device (fsync). */
    public void flush() {
        try {
            file.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot flush " + path, e);
        }
    }

    @Override
    public void close() {
        try {
            file.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close " + path, e);
        }
    }

    /** Closes the file and removes it. */
    public void delete() {
        close();
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + path, e);
        }
    }

    private int readFully(ByteBuffer buffer, long position) {
        FileChannel channel = file.channel();
        int total = 0;
        try {
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer, position + total);
                if (n < 0) {
                    break;
                }
                total += n;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + " at " + position, e);
        }
        return total;
    }

    @Override
    public String toString() {
        return path.toString();
    }

    /**
     * What {@link #scan} found.
     *
     * @param validBytes the end of the last good batch: where a torn file is cut
     * @param nextOffset the last good batch's last offset + 1, or the scan's minimum base offset
     * @param problem why the scan stopped before the end of the file, if it did
     */
    public record ScanResult(int validBytes, long nextOffset, Optional<String> problem) {}
}
