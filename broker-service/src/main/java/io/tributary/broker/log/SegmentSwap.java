package io.tributary.broker.log;

import io.tributary.broker.log.index.OffsetPosition;
import io.tributary.broker.log.index.TimestampOffset;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log cleaner's file protocol: how cleaned segments replace the originals so that a crash at
 * any point leaves either every original or the cleaned replacement, never a mix and never a loss.
 *
 * <h2>Files</h2>
 *
 * <p>A cleaning <em>group</em> is a run of adjacent closed segments with base offsets {@code b0 <
 * b1 < ... < bk}, followed in the log by a segment with base {@code end}; its replacement is one
 * file covering offsets {@code [b0, end)} whose content has the format of a segment file (Kafka
 * record batches back to back, see {@link LogSegment}). The replacement's name, 20 + 1 + 20 + the
 * suffix characters, both numbers zero-padded decimal:
 *
 * <pre>
 * {b0 as 20 digits}-{end as 20 digits}.cleaned   being written; incomplete until renamed
 * {b0 as 20 digits}-{end as 20 digits}.swap      complete and fsynced: the swap is decided
 * </pre>
 *
 * For example {@code 00000000000000000000-00000000000000004096.cleaned}. Neither name is a
 * segment's name ({@link LogSegment#parseBaseOffset} wants exactly 20 digits then {@code .log}),
 * so a listing of segments never mistakes one for a segment.
 *
 * <h2>Steps of a swap (the writer lock held from step 2 on)</h2>
 *
 * <ol>
 *   <li>The cleaner writes {@code b0-end.cleaned} in the partition directory and fsyncs it. A crash
 *       here leaves the originals untouched; opening deletes the {@code .cleaned} file.
 *   <li><b>Commit</b>: rename {@code .cleaned} to {@code .swap} (an atomic rename), fsync the
 *       directory. From here on, opening the log finishes the swap.
 *   <li>Replace the RocksDB offset- and time-index entries naming offsets in {@code [b0, end)} with
 *       the entries of the cleaned file, and write the cleaner's checkpoint: one synced write batch
 *       ({@code PartitionIndex.replaceRange}). Opening redoes this step for every swap it finishes
 *       (the batch is idempotent), so a crash before or after it is the same.
 *   <li>Retire the originals {@code b0 .. bk}: rename each {@code bi.log} to {@code bi.log.deleted}
 *       ({@code SegmentDeleter}). They stay open: readers holding them keep reading them until
 *       {@code file.delete.delay.ms} has passed, when they are closed and deleted. A crash here
 *       leaves some originals renamed; opening finishes the swap (below) and deletes every {@code
 *       .deleted} file.
 *   <li>Rename {@code b0-end.swap} to {@code b0.log} (atomic), fsync the directory. The swap is
 *       done on disk.
 *   <li>In memory: open {@code b0.log}, put it in the segment map in place of the original {@code b0}
 *       segment, remove {@code b1 .. bk}.
 * </ol>
 *
 * <p>{@link SwapObserver} is called after each file operation of these steps (a seam for crash
 * tests; a no-op in the broker).
 *
 * <h2>Opening after a crash ({@link #recover})</h2>
 *
 * <p>Before the segments are listed: every {@code *.deleted} file is deleted (retired segments,
 * see {@code SegmentDeleter}); every {@code *.cleaned} file is deleted (steps 1–2 did not
 * complete: the originals stand); for every {@code b0-end.swap} file, oldest first, every segment
 * file {@code b.log} with {@code b0 < b < end} is deleted and the swap file renamed to {@code
 * b0.log} (steps 4–5; an original {@code b0.log} still there is replaced), and the directory
 * fsynced. The log then redoes step 3 for each range. The
 * {@code .swap} file is removed only by the last rename, so until then every crash repeats the
 * same finishing steps; after it, the directory holds no trace of the swap and the index batch is
 * already durable (step 3 precedes step 5).
 *
 * <p>Stateless; the caller serialises swaps of one directory (the log's writer lock, or opening).
 */
public final class SegmentSwap {

    private static final Logger log = LoggerFactory.getLogger(SegmentSwap.class);

    static final String CLEANED_SUFFIX = ".cleaned";
    static final String SWAP_SUFFIX = ".swap";
    private static final int DIGITS = 20;

    private SegmentSwap() {}

    /**
     * The offsets a replacement covers: from the first replaced segment's base to the base of the
     * segment after the last replaced one.
     */
    public record Range(long baseOffset, long endOffset) {
        public Range {
            if (baseOffset < 0 || endOffset <= baseOffset) {
                throw new IllegalArgumentException("bad swap range [" + baseOffset + ", " + endOffset + ")");
            }
        }
    }

    /** The name of the file the cleaner writes a replacement of {@code range} into. */
    public static String cleanedFileName(Range range) {
        return name(range, CLEANED_SUFFIX);
    }

    static String swapFileName(Range range) {
        return name(range, SWAP_SUFFIX);
    }

    private static String name(Range range, String suffix) {
        return String.format("%020d-%020d%s", range.baseOffset(), range.endOffset(), suffix);
    }

    /** The range named by a {@code .cleaned} or {@code .swap} file name with {@code suffix}, if it is one. */
    static Optional<Range> parse(String fileName, String suffix) {
        if (fileName.length() != 2 * DIGITS + 1 + suffix.length()
                || !fileName.endsWith(suffix)
                || fileName.charAt(DIGITS) != '-') {
            return Optional.empty();
        }
        for (int i = 0; i < 2 * DIGITS + 1; i++) {
            if (i != DIGITS && !Character.isDigit(fileName.charAt(i))) {
                return Optional.empty();
            }
        }
        try {
            return Optional.of(new Range(
                    Long.parseLong(fileName.substring(0, DIGITS)),
                    Long.parseLong(fileName.substring(DIGITS + 1, 2 * DIGITS + 1))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Step 2: renames the fsynced {@code .cleaned} file of {@code range} to its {@code .swap} name. */
    static Path commit(Path dir, Range range, SwapObserver observer) {
        Path cleaned = dir.resolve(cleanedFileName(range));
        Path swap = dir.resolve(swapFileName(range));
        move(cleaned, swap);
        observer.after(SwapObserver.Step.SWAP_RENAMED, swap);
        fsyncDirectory(dir);
        observer.after(SwapObserver.Step.SWAP_DIRECTORY_SYNCED, dir);
        return swap;
    }

    /**
     * Step 5: renames the swap file to {@code <base>.log} (replacing an original still under that
     * name, which only a recovery leaves), and fsyncs the directory.
     */
    static void install(Path dir, Range range, SwapObserver observer) {
        Path installed = dir.resolve(LogSegment.fileName(range.baseOffset()));
        move(dir.resolve(swapFileName(range)), installed);
        observer.after(SwapObserver.Step.SWAP_INSTALLED, installed);
        fsyncDirectory(dir);
        observer.after(SwapObserver.Step.INSTALL_DIRECTORY_SYNCED, dir);
    }

    /**
     * Steps 4 and 5 when opening (no reader holds a segment yet): deletes the segment files {@code
     * b.log} with {@code range.baseOffset() < b < range.endOffset()}, then installs the swap file.
     */
    static void finish(Path dir, Range range) {
        for (long base : segmentBases(dir)) {
            if (base > range.baseOffset() && base < range.endOffset()) {
                delete(dir.resolve(LogSegment.fileName(base)));
            }
        }
        install(dir, range, SwapObserver.NONE);
    }

    /**
     * Opening: deletes unfinished {@code .cleaned} files and finishes every decided swap (see the
     * class comment); returns the ranges of the swaps it finished, oldest first, whose index entries
     * the log must replace (step 3 again).
     */
    static List<Range> recover(Path dir) {
        List<Range> swaps = new ArrayList<>();
        for (Path file : list(dir)) {
            String name = file.getFileName().toString();
            if (parse(name, CLEANED_SUFFIX).isPresent()) {
                log.info("{}: deleting {}, a cleaned segment whose swap was not decided", dir, name);
                delete(file);
            }
            parse(name, SWAP_SUFFIX).ifPresent(swaps::add);
        }
        swaps.sort((a, b) -> Long.compare(a.baseOffset(), b.baseOffset()));
        for (Range range : swaps) {
            log.warn(
                    "{}: finishing the swap of cleaned offsets [{}, {}) interrupted by a crash",
                    dir,
                    range.baseOffset(),
                    range.endOffset());
            finish(dir, range);
        }
        if (!swaps.isEmpty()) {
            fsyncDirectory(dir);
        }
        return List.copyOf(swaps);
    }

    /**
     * A cleaned segment's offset- and time-index entries (step 3), and the largest batch
     * max-timestamp up to its end with the base offset of the first batch reaching it.
     */
    record IndexEntries(
            List<OffsetPosition> offsets, List<TimestampOffset> times, long maxTimestamp, long offsetOfMax) {}

    /**
     * The index entries of a cleaned segment, made as appends make them: an offset entry for the
     * first batch and then for a batch once more than {@code indexIntervalBytes} were written since
     * the previous entry; at the same points a time entry when the largest timestamp so far (from
     * {@code maxBefore}, the largest of the batches below the segment, first reached at {@code
     * offsetOfMaxBefore}) has grown past {@code lastEntryTimestamp} (the timestamp of the last time
     * entry below the segment). Removing records only lowers timestamps, so the entries stay ordered
     * with those around the range.
     */
    static IndexEntries indexEntries(
            LogSegment segment,
            int indexIntervalBytes,
            long lastEntryTimestamp,
            long maxBefore,
            long offsetOfMaxBefore) {
        List<OffsetPosition> offsets = new ArrayList<>();
        List<TimestampOffset> times = new ArrayList<>();
        long lastEntry = lastEntryTimestamp;
        long maxTimestamp = maxBefore;
        long offsetOfMax = offsetOfMaxBefore;
        long bytesSinceEntry = 0;
        int size = segment.sizeInBytes();
        Optional<BatchHeader> header = segment.readHeader(0, size);
        while (header.isPresent()) {
            BatchHeader h = header.get();
            if (h.maxTimestamp() > maxTimestamp) {
                maxTimestamp = h.maxTimestamp();
                offsetOfMax = h.baseOffset();
            }
            if (h.position() == 0 || bytesSinceEntry > indexIntervalBytes) {
                offsets.add(new OffsetPosition(h.baseOffset(), segment.baseOffset(), h.position()));
                if (maxTimestamp > lastEntry) {
                    times.add(new TimestampOffset(maxTimestamp, offsetOfMax));
                    lastEntry = maxTimestamp;
                }
                bytesSinceEntry = 0;
            }
            bytesSinceEntry += h.sizeInBytes();
            header = segment.readHeader(h.position() + h.sizeInBytes(), size);
        }
        return new IndexEntries(List.copyOf(offsets), List.copyOf(times), maxTimestamp, offsetOfMax);
    }

    private static List<Long> segmentBases(Path dir) {
        return list(dir).stream()
                .map(p -> LogSegment.parseBaseOffset(p.getFileName().toString()))
                .filter(OptionalLong::isPresent)
                .map(OptionalLong::getAsLong)
                .sorted()
                .toList();
    }

    private static List<Path> list(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    private static void move(Path from, Path to) {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rename " + from + " to " + to, e);
        }
    }

    static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + file, e);
        }
    }

    /** Makes renames and deletions in {@code dir} durable. */
    static void fsyncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot fsync the directory " + dir, e);
        }
    }
}
