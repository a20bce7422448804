package io.tributary.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the segment files a log no longer holds (retention, DeleteRecords, a truncation, a
 * cleaner swap), after {@code file.delete.delay.ms}, as Kafka does, so that a read in flight (a
 * Fetch sending a region of the file with {@code transferTo}, a reader that found the segment just
 * before it left the log) finishes on the old bytes instead of failing on a closed channel.
 *
 * <h2>On disk</h2>
 *
 * <p>Retiring a segment renames its file {@code <20-digit base>.log} to {@code <20-digit
 * base>.log.deleted} (for example {@code 00000000000000004096.log.deleted}) at once, so the name is
 * free for a new segment or a cleaned replacement with the same base offset, and the file is never
 * mistaken for a segment ({@link LogSegment#parseBaseOffset} wants exactly 20 digits then {@code
 * .log}). The file stays open (readers keep the {@link LogSegment} and its channel) until the delay
 * has passed on the log's clock; then {@link #deleteDue} closes the channel and deletes the file. A
 * segment retired under a name already retired (a truncation to the same offset twice within the
 * delay) replaces that file: the earlier segment's readers keep its unlinked inode through their
 * open channel, whichever deletion comes first removes the name (the other finds it gone), and each
 * channel is closed at its own time. Opening a log deletes every {@code
 * *.deleted} file first ({@link #deleteLeftovers}): nothing reads them after a restart.
 *
 * <p>A delay of zero closes and deletes the file as soon as the log has taken the segment out of its
 * segment map (the behaviour before this class). A reader still
 * holding a region after the delay gets {@link java.nio.channels.ClosedChannelException}, and retries
 * as after {@code OFFSET_OUT_OF_RANGE}.
 *
 * <p>Thread-safety: all methods are synchronized; the log retires segments under its writer lock,
 * the broker's scheduler calls {@link #deleteDue} (through {@link PartitionLog#deleteRetiredSegments}).
 */
final class SegmentDeleter {

    private static final Logger log = LoggerFactory.getLogger(SegmentDeleter.class);

    /** The suffix a retired segment file's name gets. */
    static final String DELETED_SUFFIX = ".deleted";

    /** A retired segment: still open, its file renamed, deleted at {@code dueMs}. */
    private record Retired(LogSegment segment, Path file, long dueMs) {}

    private final InstantSource clock;
    private final List<Retired> retired = new ArrayList<>();

    SegmentDeleter(InstantSource clock) {
        this.clock = clock;
    }

    /**
     * Renames {@code segment}'s file to {@code <name>.deleted} and keeps it open until {@code delay}
     * has passed: the next {@link #deleteDue} after that closes and deletes it (with a zero delay,
     * the log calls it as soon as the segment is out of its segment map).
     *
     * @return the retired file's path
     */
    synchronized Path retire(LogSegment segment, Duration delay) {
        Path file = deletedName(segment.path());
        try {
            Files.move(segment.path(), file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rename " + segment.path() + " to " + file, e);
        }
        retired.add(new Retired(segment, file, clock.millis() + delay.toMillis()));
        return file;
    }

    /**
     * Forgets the retirement of {@code segments}, which the log still holds (a cleaner swap failed
     * after renaming them, its {@code .swap} decided): they stay open until the log closes them,
     * under their {@code .deleted} names, which the next opening deletes when it finishes the swap.
     */
    synchronized void keepOpen(List<LogSegment> segments) {
        retired.removeIf(r -> segments.contains(r.segment()));
    }

    /**
     * Closes and deletes the retired segments whose delay has passed.
     *
     * @return how many were deleted
     */
    synchronized int deleteDue() {
        long nowMs = clock.millis();
        int deleted = 0;
        for (Iterator<Retired> it = retired.iterator(); it.hasNext(); ) {
            Retired r = it.next();
            if (r.dueMs() <= nowMs) {
                it.remove();
                closeAndDelete(r.segment(), r.file());
                deleted++;
            }
        }
        return deleted;
    }

    /** The retired segments not deleted yet. */
    synchronized int pending() {
        return retired.size();
    }

    /** At the log's close: closes and deletes every retired segment now. */
    synchronized void deleteAll() {
        retired.forEach(r -> closeAndDelete(r.segment(), r.file()));
        retired.clear();
    }

    /** What a crash leaves: closes the retired segments' channels and leaves their files. */
    synchronized void closeAll() {
        retired.forEach(r -> r.segment().close());
        retired.clear();
    }

    /** Opening: deletes every {@code *.deleted} file of {@code dir}; returns how many. */
    static int deleteLeftovers(Path dir) {
        int deleted = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                if (file.getFileName().toString().endsWith(DELETED_SUFFIX)) {
                    Files.deleteIfExists(file);
                    deleted++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the retired segments of " + dir, e);
        }
        if (deleted > 0) {
            log.info("{}: deleted {} segment files retired before the last stop", dir, deleted);
        }
        return deleted;
    }

    static Path deletedName(Path segmentFile) {
        return segmentFile.resolveSibling(segmentFile.getFileName() + DELETED_SUFFIX);
    }

    private static void closeAndDelete(LogSegment segment, Path file) {
        segment.close();
        SegmentSwap.delete(file);
        log.debug("deleted the retired segment file {}", file);
    }
}
