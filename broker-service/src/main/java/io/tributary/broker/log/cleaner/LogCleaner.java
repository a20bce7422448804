package io.tributary.broker.log.cleaner;

import io.tributary.broker.log.PartitionLog;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicIdPartition;

/**
 * The broker's log cleaner, as Kafka's {@code LogCleaner} with its {@code LogCleanerManager}: {@link
 * CleanerConfig#threads()} {@link CleanerThread}s and what they share.
 *
 * <h2>Shared by the threads</h2>
 *
 * <ul>
 *   <li>the in-progress marks ({@link InProgressCleanings}): a log being cleaned by one thread is
 *       never chosen by another;
 *   <li>the uncleanable partitions (a log whose cleaning failed on any thread is skipped by all) with
 *       their dirty bytes when they failed ({@link #uncleanablePartitions()}, {@link
 *       #uncleanableBytes()}), until {@link #forget};
 *   <li>one {@link IoThrottle} ({@link CleanerConfig#ioMaxBytesPerSecond()}): the bound is on all the
 *       threads' reads and writes together, as Kafka's one throttler; it sleeps on the stop signal;
 *   <li>the stop signal ({@link #stop}): a running pass of any thread ends at its next read, and
 *       later rounds return at once;
 *   <li>what Kafka's manager gauges read: when the last round of any thread began ({@link
 *       #lastRoundMs()}) and the largest dirty ratio it measured ({@link #maxDirtyRatio()}).
 * </ul>
 *
 * <p>Each thread has its own offset map, its share of the dedupe buffer ({@link
 * CleanerConfig#dedupeBufferBytesPerThread()}), and its own last-pass statistics; the gauges over
 * them aggregate as Kafka's: {@link #maxBufferUtilization()}, {@link #maxCleanTimeNanos()} and
 * {@link #maxCompactionDelayMs()} are the largest over the threads, {@link #recopyRatio()} the bytes
 * written over the bytes read of the threads' last passes together.
 *
 * <p>Running the threads (one platform thread each, the backoff between runs, counting those that
 * died) is the caller's: the app's {@code LogCleanerRunner}. {@link #runRound} runs a round on the
 * first thread, for a caller that runs a single thread.
 *
 * <p>Thread-safe, except that each {@link CleanerThread} runs on one thread at a time.
 */
public final class LogCleaner {

    /** A log a round may clean, and the offset below which it may (its high watermark). */
    public record Target(PartitionLog log, long highWatermark) {
        public Target {
            Objects.requireNonNull(log, "log");
        }
    }

    private final CleanerConfig config;
    private final CleanerMetrics metrics;
    private final PassObserver observer;
    private final IoThrottle throttle;
    private final InProgressCleanings inProgress = new InProgressCleanings();
    private final List<CleanerThread> threads;
    /** The uncleanable partitions, each with its dirty bytes when its cleaning failed. */
    private final Map<TopicIdPartition, Long> uncleanable = new ConcurrentHashMap<>();

    private volatile long lastRoundMs;
    private volatile double maxDirtyRatio;

    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private volatile boolean stopping;

    /** A cleaner reporting no metrics. */
    public LogCleaner(CleanerConfig config, InstantSource clock) {
        this(config, clock, CleanerMetrics.NONE);
    }

    public LogCleaner(CleanerConfig config, InstantSource clock, CleanerMetrics metrics) {
        this(config, clock, metrics, PassObserver.NONE);
    }

    /** A cleaner whose passes {@code observer} hears (a seam for tests). */
    public LogCleaner(CleanerConfig config, InstantSource clock, CleanerMetrics metrics, PassObserver observer) {
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.observer = Objects.requireNonNull(observer, "observer");
        this.throttle = IoThrottle.of(config.ioMaxBytesPerSecond(), clock, this::sleepUnlessStopped);
        this.lastRoundMs = clock.millis();
        this.threads = IntStream.range(0, config.threads())
                .mapToObj(i -> new CleanerThread(this, i, clock, metrics))
                .toList();
    }

    /** The cleaner threads' rounds, {@link CleanerConfig#threads()} of them; each runs on one thread. */
    public List<CleanerThread> threads() {
        return threads;
    }

    /** A round of the first thread ({@link CleanerThread#runRound}), for a caller running one thread. */
    public Optional<CleanResult> runRound(List<Target> targets) {
        return threads.getFirst().runRound(targets);
    }

    /** The partitions whose cleaning failed, skipped by every round of every thread. */
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

    /** The partitions a thread is cleaning now. */
    public Set<TopicIdPartition> inProgressPartitions() {
        return inProgress.partitions();
    }

    /** When the last round of any thread began, on the cleaner's clock (its creation until the first round). */
    public long lastRoundMs() {
        return lastRoundMs;
    }

    /**
     * The largest dirty ratio (0 to 1) measured by the last round of any thread, over the compacted
     * logs no other thread was cleaning; 0 when none (Kafka's {@code max-dirty-percent}).
     */
    public double maxDirtyRatio() {
        return maxDirtyRatio;
    }

    /** The largest {@link CleanerThread#maxCompactionDelayMs()} over the threads. */
    public long maxCompactionDelayMs() {
        return maxOverThreads(CleanerThread::maxCompactionDelayMs);
    }

    /** The largest buffer utilization (0 to 1) of the threads' last passes that cleaned. */
    public double maxBufferUtilization() {
        return maxOverPasses(CleanerThread.PassSummary::bufferUtilization);
    }

    /** The longest of the threads' last passes that cleaned, in nanoseconds. */
    public long maxCleanTimeNanos() {
        return maxOverThreads(t -> t.lastCleanedPass().elapsedNanos());
    }

    /**
     * Bytes written over bytes read by the threads' last passes that cleaned, summed over the threads
     * (Kafka's recopy rate); 0 before any pass.
     */
    public double recopyRatio() {
        long read = 0;
        long written = 0;
        for (CleanerThread thread : threads) {
            CleanerThread.PassSummary pass = thread.lastCleanedPass();
            read += pass.bytesRead();
            written += pass.bytesWritten();
        }
        return (double) written / Math.max(read, 1);
    }

    private long maxOverThreads(ToLongFunction<CleanerThread> value) {
        return threads.stream().mapToLong(value).max().orElse(0);
    }

    private double maxOverPasses(ToDoubleFunction<CleanerThread.PassSummary> value) {
        return threads.stream()
                .map(CleanerThread::lastCleanedPass)
                .mapToDouble(value)
                .max()
                .orElse(0);
    }

    /**
     * Forgets all the cleaner holds of {@code partition} (it was deleted or moved off the broker): its
     * uncleanable mark and its per-partition metrics. Its checkpoint and tombstone horizon are its
     * log's (in the index store, deleted with a deleted partition's data). A pass running over it
     * ends aborted, its log being closed.
     */
    public void forget(TopicIdPartition partition) {
        uncleanable.remove(partition);
        metrics.partitionForgotten(partition);
    }

    /**
     * Stops every thread (the broker is shutting down): a running pass ends at its next read, dropping
     * its work (a throttled pass wakes at once), and later rounds return at once. Any thread.
     */
    public void stop() {
        stopping = true;
        stopSignal.countDown();
    }

    boolean stopping() {
        return stopping;
    }

    CleanerConfig config() {
        return config;
    }

    IoThrottle throttle() {
        return throttle;
    }

    PassObserver observer() {
        return observer;
    }

    InProgressCleanings inProgress() {
        return inProgress;
    }

    boolean isUncleanable(TopicIdPartition partition) {
        return uncleanable.containsKey(partition);
    }

    void markUncleanable(TopicIdPartition partition, long dirtyBytes) {
        uncleanable.put(partition, dirtyBytes);
    }

    void roundBegan(long nowMs) {
        lastRoundMs = nowMs;
    }

    void dirtiestRatioMeasured(double ratio) {
        maxDirtyRatio = ratio;
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
