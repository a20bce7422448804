package io.tributary.broker.log.cleaner;

import io.tributary.broker.log.CleanableSection;
import io.tributary.broker.log.PartitionLog;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicIdPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cleaner thread's rounds, as Kafka's {@code CleanerThread}: each round takes the cleanable
 * section of every log it is given, orders the due ones, dirtiest first ({@link DirtiestLog}), and
 * runs one {@link Cleaner} pass over the first (a pass that finds its segments changed under it ends
 * aborted, and the log is tried again later).
 *
 * <h2>Uncleanable logs</h2>
 *
 * A log whose cleaning fails at any step (taking its cleanable section, reading, writing, the swap)
 * while it is open is marked <em>uncleanable</em>: logged once with the cause, reported to {@link
 * CleanerMetrics#cleaningFailed}, listed by {@link #uncleanablePartitions()} (its dirty bytes when it
 * failed counted by {@link #uncleanableBytes()}), and skipped by later
 * rounds until {@link #forget} (its partition left the broker). The round goes on with the next due
 * log, so one broken log never stops the others from being cleaned, and nothing is thrown to the
 * caller. A log closed under a pass (its partition moved or deleted, the broker stopping) is not a
 * failure: its pass is dropped.
 *
 * <p>When no log is dirty enough, a round cleans the log whose kept tombstones reached their delete
 * horizon first: each pass stores the earliest horizon of the tombstones it kept with the log's
 * checkpoint ({@link io.tributary.broker.log.CompactionHooks#earliestDeleteHorizonMs()}), so the
 * cleaner holds no horizon of its own and a restarted broker drops expired tombstones on time.
 *
 * <h2>Metrics, throttle, stop</h2>
 *
 * Every round reports each compacted log's dirty ratio and cleaner lag, and each pass its result and
 * duration, to the {@link CleanerMetrics}; {@link #forget} drops a partition's values. Reads and
 * writes go through one {@link IoThrottle} ({@link CleanerConfig#ioMaxBytesPerSecond()}), which
 * sleeps on the stop signal. {@link #stop} (the broker shutting down) ends a running pass at its
 * next read and makes every later round return at once.
 *
 * <p>The offset map ({@link CleanerConfig#dedupeBufferBytes()}) is allocated at the first pass, so
 * a broker without compacted topics never pays for it.
 *
 * <p>What Kafka's cleaner gauges read ({@code LogCleaner}'s and {@code LogCleanerManager}'s) is kept
 * here and read by any thread: {@link #lastRoundMs()}, {@link #maxDirtyRatio()}, {@link
 * #maxCompactionDelayMs()}, {@link
 * #lastCleanedPass()}, {@link #uncleanableBytes()}.
 *
 * <p>Not thread-safe: one instance per cleaner thread, except {@link #uncleanablePartitions()},
 * the gauge readers above,
 * {@link #forget} and {@link #stop}, which any thread may call. The scheduling (threads, {@code
 * log.cleaner.backoff.ms}) is the caller's.
 */
public final class LogCleaner {

    private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);

    /** A log the round may clean, and the offset below which it may (its high watermark). */
    public record Target(PartitionLog log, long highWatermark) {
        public Target {
            Objects.requireNonNull(log, "log");
        }
    }

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
    private record Candidate(Target target, CleanableSection section, boolean forTombstones) {}

    private final CleanerConfig config;
    private final InstantSource clock;
    private final CleanerMetrics metrics;
    private final IoThrottle throttle;
    /** The uncleanable partitions, each with its dirty bytes when its cleaning failed. */
    private final Map<TopicIdPartition, Long> uncleanable = new ConcurrentHashMap<>();

    private volatile long lastRoundMs;
    private volatile double maxDirtyRatio;
    private volatile long maxCompactionDelayMs;
    private volatile PassSummary lastCleanedPass = PassSummary.NONE;

    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private volatile boolean stopping;

    private Cleaner cleaner;

    /** A cleaner reporting no metrics. */
    public LogCleaner(CleanerConfig config, InstantSource clock) {
        this(config, clock, CleanerMetrics.NONE);
    }

    public LogCleaner(CleanerConfig config, InstantSource clock, CleanerMetrics metrics) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.throttle = IoThrottle.of(config.ioMaxBytesPerSecond(), clock, this::sleepUnlessStopped);
        this.lastRoundMs = clock.millis();
    }

    /**
     * One round: one pass over the first due log of {@code targets} whose cleaning does not fail, if
     * any is due. Never throws for a log's failure (see the class comment).
     */
    public Optional<CleanResult> runRound(List<Target> targets) {
        if (stopping) {
            return Optional.empty();
        }
        long nowMs = clock.millis();
        lastRoundMs = nowMs;
        List<Candidate> candidates = new ArrayList<>();
        for (Target target : targets) {
            TopicIdPartition partition = target.log().topicIdPartition();
            if (uncleanable.containsKey(partition)) {
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
            measure(target.log(), section, nowMs);
            candidates.add(new Candidate(target, section, false));
        }
        maxDirtyRatio = candidates.stream()
                .mapToDouble(c -> c.section().dirtyRatio())
                .max()
                .orElse(0);
        long roundCompactionDelayMs = candidates.stream()
                .mapToLong(c -> DirtiestLog.compactionDelayMs(c.section(), nowMs))
                .max()
                .orElse(0);
        List<Candidate> order = new ArrayList<>(DirtiestLog.inOrder(candidates, Candidate::section, nowMs));
        Set<Candidate> due = Collections.newSetFromMap(new IdentityHashMap<>());
        due.addAll(order);
        // Then the logs whose kept tombstones reached their delete horizon, the earliest first (a log
        // with no segment to clean, a follower below its high watermark, waits).
        candidates.stream()
                .filter(c -> !due.contains(c) && !c.section().segments().isEmpty() && horizonOf(c) <= nowMs)
                .sorted(Comparator.comparingLong(this::horizonOf))
                .forEach(c -> order.add(new Candidate(c.target(), c.section(), true)));
        for (Candidate candidate : order) {
            if (stopping) {
                return Optional.empty();
            }
            Optional<CleanResult> result = pass(candidate);
            if (result.isPresent()) {
                maxCompactionDelayMs = roundCompactionDelayMs;
                return result;
            }
            // The log failed (now uncleanable) or closed: the round goes on with the next one.
        }
        return Optional.empty();
    }

    private long horizonOf(Candidate candidate) {
        return candidate.target().log().compaction().earliestDeleteHorizonMs().orElse(Long.MAX_VALUE);
    }

    /** One pass over {@code candidate}'s log; empty when it failed or the log closed under it. */
    private Optional<CleanResult> pass(Candidate candidate) {
        Target target = candidate.target();
        TopicIdPartition partition = target.log().topicIdPartition();
        long startNanos = IoThrottle.nanos(clock.instant());
        CleanResult result;
        try {
            if (cleaner == null) {
                cleaner = new Cleaner(config, clock, throttle, () -> stopping);
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
        metrics.passEnded(partition, result, elapsedNanos);
        forgetIfClosed(target.log());
        return Optional.of(result);
    }

    /**
     * {@code target}'s cleaning failed while {@code step}: unless its log is closed (not a failure),
     * marks it uncleanable, logs the cause once and reports it.
     */
    private void failed(Target target, String step, RuntimeException e, long elapsedNanos, long dirtyBytes) {
        TopicIdPartition partition = target.log().topicIdPartition();
        if (isClosed(target.log())) {
            log.debug("{}: closed while the cleaner was {}: {}", partition, step, e.toString());
            return;
        }
        uncleanable.put(partition, dirtyBytes);
        log.error(
                "{}: cleaning failed while {}; the partition is marked uncleanable and skipped until it leaves"
                        + " the broker",
                partition,
                step,
                e);
        metrics.cleaningFailed(partition, elapsedNanos);
        forgetIfClosed(target.log());
    }

    /** Reports the dirty ratio and lag of {@code section}, of a compacted log. */
    private void measure(PartitionLog partitionLog, CleanableSection section, long nowMs) {
        TopicIdPartition partition = partitionLog.topicIdPartition();
        long lagMs = section.dirtyBytes() > 0 && section.firstDirtyTimestampMs().isPresent()
                ? Math.max(0, nowMs - section.firstDirtyTimestampMs().getAsLong())
                : 0;
        metrics.sectionMeasured(partition, section.dirtyRatio(), lagMs);
        forgetIfClosed(partitionLog);
    }

    /**
     * Forgets a log closed meanwhile: its partition may have been forgotten between the cleaner's last
     * look and the state it just recorded (closing happens before {@link #forget}), which would
     * otherwise stay.
     */
    private void forgetIfClosed(PartitionLog partitionLog) {
        if (isClosed(partitionLog)) {
            forget(partitionLog.topicIdPartition());
        }
    }

    private static boolean isClosed(PartitionLog partitionLog) {
        return !partitionLog.compaction().holdsSegments(List.of());
    }

    /** The partitions whose cleaning failed, skipped by every round. */
    public Set<TopicIdPartition> uncleanablePartitions() {
        return Set.copyOf(uncleanable.keySet());
    }

    /**
     * The dirty bytes of the uncleanable partitions, each as measured by the round in which its
     * cleaning failed (0 for one whose section could not be taken): what compaction leaves undone
     * (Kafka's {@code uncleanable-bytes}).
     */
    public long uncleanableBytes() {
        return uncleanable.values().stream().mapToLong(Long::longValue).sum();
    }

    /** When the last round began, on the cleaner's clock (its creation until the first round). */
    public long lastRoundMs() {
        return lastRoundMs;
    }

    /** The largest dirty ratio (0 to 1) of the compacted logs the last round measured; 0 when none. */
    public double maxDirtyRatio() {
        return maxDirtyRatio;
    }

    /**
     * The largest compaction delay ({@link DirtiestLog#compactionDelayMs}) of the compacted logs
     * measured by the last round that ran a pass; 0 before one (Kafka's pre-clean stats).
     */
    public long maxCompactionDelayMs() {
        return maxCompactionDelayMs;
    }

    /** The last pass that cleaned, or {@link PassSummary#NONE}. */
    public PassSummary lastCleanedPass() {
        return lastCleanedPass;
    }

    /**
     * Forgets all the cleaner holds of {@code partition} (it was deleted or moved off the broker): its
     * uncleanable mark and its per-partition metrics. Its checkpoint and tombstone horizon are its
     * log's (in the index store, deleted with a deleted partition's data).
     */
    public void forget(TopicIdPartition partition) {
        uncleanable.remove(partition);
        metrics.partitionForgotten(partition);
    }

    /**
     * Stops the cleaner (the broker is shutting down): a running pass ends at its next read, dropping
     * its work (a throttled pass wakes at once), and later rounds return at once. Any thread.
     */
    public void stop() {
        stopping = true;
        stopSignal.countDown();
    }

    /**
     * The throttle's sleep: waits on the stop signal, so that {@link #stop} wakes it. An interrupt is
     * taken as a stop; it is not re-asserted, since a file read on an interrupted thread closes the
     * segment's channel.
     */
    private void sleepUnlessStopped(long nanos) {
        try {
            stopSignal.await(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            stop();
        }
    }
}
