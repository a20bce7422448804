package io.tributary.broker.log.cleaner;

import io.tributary.broker.log.CleanableSection;
import io.tributary.broker.log.PartitionLog;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicIdPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cleaner thread's rounds, as Kafka's {@code CleanerThread}: each round takes the cleanable
 * section of every log it is given that no other thread of its {@link LogCleaner} is cleaning,
 * orders the due ones, dirtiest first ({@link DirtiestLog}), marks the first as in progress and runs
 * one {@link Cleaner} pass over it (a pass that finds its segments changed under it ends aborted,
 * and the log is tried again later).
 *
 * <h2>Two threads never clean one log</h2>
 *
 * The choice and the mark are one step under the cleaner's {@link InProgressCleanings} lock (Kafka's
 * {@code grabFilthiestCompactedLog}): a round measures only logs that are not in progress, so a log
 * one thread is cleaning is never another thread's candidate, and a log whose pass just ended is
 * measured afresh. A round whose first choice fails goes on with the next candidate, which it marks
 * only if no other thread took it meanwhile. The mark is removed when the pass ends, however it ends
 * (an {@link Error} that kills the thread included), so a log is never left marked. The other
 * exclusions are the log's own: a truncation, retention, deletion or close of the log meanwhile
 * makes its swap refuse, and the pass ends aborted.
 *
 * <h2>Uncleanable logs</h2>
 *
 * A log whose cleaning fails at any step (taking its cleanable section, reading, writing, the swap)
 * while it is open is marked uncleanable in its {@link LogCleaner} (shared by the threads, as Kafka's
 * manager holds it), logged once with the cause, reported to {@link CleanerMetrics#cleaningFailed},
 * and skipped by every thread's later rounds until {@link LogCleaner#forget}. The round goes on with
 * the next due log, so one broken log never stops the others, and nothing is thrown to the caller. A
 * log closed under a pass (its partition moved or deleted, the broker stopping) is not a failure.
 *
 * <p>When no log is dirty enough, a round cleans the log whose kept tombstones reached their delete
 * horizon first (the horizon is stored with the log's checkpoint, so a restarted broker drops
 * expired tombstones on time).
 *
 * <p>Its memory: one {@link Cleaner}, whose {@link OffsetMap} is this thread's share of the dedupe
 * buffer ({@link CleanerConfig#dedupeBufferBytesPerThread()}), allocated at its first pass, so a
 * broker without compacted topics never pays for it.
 *
 * <p>Not thread-safe: one thread runs its rounds. {@link #lastCleanedPass()} and {@link
 * #maxCompactionDelayMs()} (what Kafka's thread keeps as {@code lastStats} and {@code
 * lastPreCleanStats}) may be read by any thread.
 */
public final class CleanerThread {

    private static final Logger log = LoggerFactory.getLogger(CleanerThread.class);

    /**
     * What the last pass that cleaned (outcome {@link CleanResult.Outcome#CLEANED}) did, as Kafka's
     * cleaner thread keeps its {@code lastStats}.
     *
     * @param bufferUtilization the share of the offset map's slots it filled, 0 to 1
     * @param elapsedNanos how long it took
     * @param bytesRead bytes of batches it read while cleaning
     * @param bytesWritten bytes it wrote to cleaned segments
     */
    public record PassSummary(double bufferUtilization, long elapsedNanos, long bytesRead, long bytesWritten) {
        /** Before any pass cleaned: zeros, as Kafka's initial stats. */
        public static final PassSummary NONE = new PassSummary(0, 0, 0, 0);

        /** Bytes written over bytes read (Kafka's recopy rate); 0 before any pass. */
        public double recopyRatio() {
            return (double) bytesWritten / Math.max(bytesRead, 1);
        }
    }

    /** A target with its section, and whether it is cleaned for its expired tombstones only. */
    private record Candidate(LogCleaner.Target target, CleanableSection section, boolean forTombstones) {
        TopicIdPartition partition() {
            return target.log().topicIdPartition();
        }
    }

    private final LogCleaner shared;
    private final int index;
    private final InstantSource clock;
    private final CleanerMetrics metrics;

    private volatile long maxCompactionDelayMs;
    private volatile PassSummary lastCleanedPass = PassSummary.NONE;
    private Cleaner cleaner;

    CleanerThread(LogCleaner shared, int index, InstantSource clock, CleanerMetrics metrics) {
        this.shared = shared;
        this.index = index;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** This thread's number, 0 to {@code log.cleaner.threads - 1}. */
    public int index() {
        return index;
    }

    /**
     * One round: one pass over the first due log of {@code targets} that no other thread is cleaning
     * and whose cleaning does not fail, if any is due. Never throws for a log's failure (see the class
     * comment).
     */
    public Optional<CleanResult> runRound(List<LogCleaner.Target> targets) {
        if (shared.stopping()) {
            return Optional.empty();
        }
        long nowMs = clock.millis();
        List<Candidate> order;
        long roundCompactionDelayMs;
        InProgressCleanings inProgress = shared.inProgress();
        synchronized (inProgress) {
            shared.roundBegan(nowMs);
            List<Candidate> candidates = measure(targets, inProgress, nowMs);
            shared.dirtiestRatioMeasured(candidates.stream()
                    .mapToDouble(c -> c.section().dirtyRatio())
                    .max()
                    .orElse(0));
            roundCompactionDelayMs = candidates.stream()
                    .mapToLong(c -> DirtiestLog.compactionDelayMs(c.section(), nowMs))
                    .max()
                    .orElse(0);
            order = inOrder(candidates, nowMs);
            if (!order.isEmpty() && !inProgress.tryStart(order.getFirst().partition())) {
                throw new IllegalStateException(order.getFirst().partition() + " was chosen while in progress");
            }
        }
        for (int i = 0; i < order.size(); i++) {
            Candidate candidate = order.get(i);
            // The first was marked with the choice; a later one only if no thread took it since.
            if (i > 0 && !inProgress.tryStart(candidate.partition())) {
                continue;
            }
            Optional<CleanResult> result;
            try {
                if (shared.stopping()) {
                    return Optional.empty();
                }
                result = observedPass(candidate);
            } finally {
                inProgress.done(candidate.partition());
            }
            if (result.isPresent()) {
                maxCompactionDelayMs = roundCompactionDelayMs;
                return result;
            }
            // The log failed (now uncleanable) or closed: the round goes on with the next one.
        }
        return Optional.empty();
    }

    /**
     * The sections of the compacted logs of {@code targets} that are neither uncleanable nor in
     * progress, each reported to the metrics.
     */
    private List<Candidate> measure(List<LogCleaner.Target> targets, InProgressCleanings inProgress, long nowMs) {
        List<Candidate> candidates = new ArrayList<>();
        for (LogCleaner.Target target : targets) {
            TopicIdPartition partition = target.log().topicIdPartition();
            if (shared.isUncleanable(partition) || inProgress.contains(partition)) {
                continue;
            }
            if (!target.log().config().compaction().compacts()) {
                // Not compacted (or no longer): nothing to clean, and no section to take under the
                // log's write lock, which its producers hold on every append.
                metrics.partitionForgotten(partition);
                continue;
            }
            CleanableSection section;
            try {
                section = target.log().compaction().cleanableSection(target.highWatermark());
            } catch (RuntimeException e) {
                failed(target, "taking its cleanable section", e, 0, 0);
                continue;
            }
            report(target.log(), section, nowMs);
            candidates.add(new Candidate(target, section, false));
        }
        return candidates;
    }

    /**
     * The due candidates, dirtiest first, then those whose kept tombstones reached their delete
     * horizon, the earliest first (a log with no segment to clean, a follower below its high
     * watermark, waits).
     */
    private List<Candidate> inOrder(List<Candidate> candidates, long nowMs) {
        List<Candidate> order = new ArrayList<>(DirtiestLog.inOrder(candidates, Candidate::section, nowMs));
        Set<Candidate> due = Collections.newSetFromMap(new IdentityHashMap<>());
        due.addAll(order);
        candidates.stream()
                .filter(c -> !due.contains(c) && !c.section().segments().isEmpty() && horizonOf(c) <= nowMs)
                .sorted(Comparator.comparingLong(CleanerThread::horizonOf))
                .forEach(c -> order.add(new Candidate(c.target(), c.section(), true)));
        return order;
    }

    private static long horizonOf(Candidate candidate) {
        return candidate.target().log().compaction().earliestDeleteHorizonMs().orElse(Long.MAX_VALUE);
    }

    /** {@link #pass} between the {@link PassObserver}'s start and end. */
    private Optional<CleanResult> observedPass(Candidate candidate) {
        PassObserver observer = shared.observer();
        observer.passStarted(index, candidate.partition());
        try {
            return pass(candidate);
        } finally {
            observer.passEnded(index, candidate.partition());
        }
    }

    /** One pass over {@code candidate}'s log; empty when it failed or the log closed under it. */
    private Optional<CleanResult> pass(Candidate candidate) {
        LogCleaner.Target target = candidate.target();
        long startNanos = IoThrottle.nanos(clock.instant());
        CleanResult result;
        try {
            if (cleaner == null) {
                cleaner = new Cleaner(shared.config(), clock, shared.throttle(), shared::stopping);
            }
            result = candidate.forTombstones()
                    ? cleaner.cleanTombstones(target.log(), target.highWatermark())
                    : cleaner.clean(target.log(), target.highWatermark());
        } catch (RuntimeException e) {
            failed(
                    target,
                    "reading, writing or swapping its segments",
                    e,
                    IoThrottle.nanos(clock.instant()) - startNanos,
                    candidate.section().dirtyBytes());
            return Optional.empty();
        }
        long elapsedNanos = IoThrottle.nanos(clock.instant()) - startNanos;
        if (result.outcome() == CleanResult.Outcome.CLEANED) {
            lastCleanedPass = new PassSummary(
                    result.bufferUtilization(), elapsedNanos, result.bytesRead(), result.bytesWritten());
        }
        metrics.passEnded(candidate.partition(), result, elapsedNanos);
        forgetIfClosed(target.log());
        return Optional.of(result);
    }

    /**
     * {@code target}'s cleaning failed while {@code step}: unless its log is closed (not a failure),
     * marks it uncleanable, logs the cause once and reports it.
     */
    private void failed(LogCleaner.Target target, String step, RuntimeException e, long elapsedNanos, long dirtyBytes) {
        TopicIdPartition partition = target.log().topicIdPartition();
        if (isClosed(target.log())) {
            log.debug("{}: closed while cleaner thread {} was {}: {}", partition, index, step, e.toString());
            return;
        }
        shared.markUncleanable(partition, dirtyBytes);
        log.error(
                "{}: cleaning failed (cleaner thread {}) while {}; the partition is marked uncleanable and skipped"
                        + " until it leaves the broker",
                partition,
                index,
                step,
                e);
        metrics.cleaningFailed(partition, elapsedNanos);
        forgetIfClosed(target.log());
    }

    /** Reports the dirty ratio and lag of {@code section}, of a compacted log. */
    private void report(PartitionLog partitionLog, CleanableSection section, long nowMs) {
        TopicIdPartition partition = partitionLog.topicIdPartition();
        long lagMs = section.dirtyBytes() > 0 && section.firstDirtyTimestampMs().isPresent()
                ? Math.max(0, nowMs - section.firstDirtyTimestampMs().getAsLong())
                : 0;
        metrics.sectionMeasured(partition, section.dirtyRatio(), lagMs);
        forgetIfClosed(partitionLog);
    }

    /**
     * Forgets a log closed meanwhile: its partition may have been forgotten between the cleaner's last
     * look and the state it just recorded (closing happens before {@link LogCleaner#forget}), which
     * would otherwise stay.
     */
    private void forgetIfClosed(PartitionLog partitionLog) {
        if (isClosed(partitionLog)) {
            shared.forget(partitionLog.topicIdPartition());
        }
    }

    private static boolean isClosed(PartitionLog partitionLog) {
        return !partitionLog.compaction().holdsSegments(List.of());
    }

    /**
     * The largest compaction delay ({@link DirtiestLog#compactionDelayMs}) of the compacted logs
     * measured by this thread's last round that ran a pass; 0 before one (Kafka's pre-clean stats).
     */
    public long maxCompactionDelayMs() {
        return maxCompactionDelayMs;
    }

    /** This thread's last pass that cleaned, or {@link PassSummary#NONE}. */
    public PassSummary lastCleanedPass() {
        return lastCleanedPass;
    }

    /** Whether this thread has allocated its offset map (at its first pass). */
    boolean holdsMap() {
        return cleaner != null;
    }

    /** The slots of this thread's offset map; only once it {@link #holdsMap()}. */
    int mapSlots() {
        return cleaner.mapSlots();
    }
}
