package io.tributary.broker.app;

import io.tributary.broker.log.cleaner.CleanerThread;
import io.tributary.broker.log.cleaner.LogCleaner;
import io.tributary.broker.log.cleaner.PassObserver;
import io.tributary.broker.replication.ReplicaManager;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log cleaner's threads ({@code tributary.broker.log-cleaner.threads} of them), each on its own
 * platform thread ({@code log-cleaner-<i>}): every {@code backoff}, up to {@code rounds-per-run}
 * passes of that thread's {@link CleanerThread} over the dirtiest due logs no other thread is
 * cleaning ({@link ReplicaManager#runCleaner}). The cleaner forgets each partition that leaves the
 * broker (a removal listener of the replica manager). Nothing runs when {@code
 * tributary.broker.log-cleaner.enabled} is false.
 *
 * <p>A run that fails with a {@link RuntimeException} is logged and the thread goes on at its next
 * run; one that ends by an {@link Error} is logged and ends that thread's schedule: the thread is
 * dead, as a Kafka cleaner thread that failed, counted by the {@code dead.threads} gauge, while the
 * other threads go on (a dead thread's log is unmarked, so they clean it too).
 *
 * <p>{@link #close} (before the logs close) stops the cleaner first, so that long passes end at
 * their next read instead of holding the shutdown, then waits for every thread.
 */
final class LogCleanerRunner implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LogCleanerRunner.class);

    private final List<ScheduledExecutorService> schedulers;
    private final List<Future<?>> schedules;
    private final Optional<LogCleaner> cleaner;

    private LogCleanerRunner(
            List<ScheduledExecutorService> schedulers, List<Future<?>> schedules, Optional<LogCleaner> cleaner) {
        this.schedulers = List.copyOf(schedulers);
        this.schedules = List.copyOf(schedules);
        this.cleaner = cleaner;
    }

    static LogCleanerRunner start(
            ReplicaManager replicaManager, LogCleanerProperties properties, MicrometerCleanerMetrics metrics) {
        return start(replicaManager, properties, metrics, PassObserver.NONE);
    }

    /** The runner with a {@link PassObserver} (a seam for tests). */
    static LogCleanerRunner start(
            ReplicaManager replicaManager,
            LogCleanerProperties properties,
            MicrometerCleanerMetrics metrics,
            PassObserver observer) {
        if (!properties.enabled()) {
            return new LogCleanerRunner(List.of(), List.of(), Optional.empty());
        }
        Clock clock = Clock.systemUTC();
        LogCleaner cleaner = new LogCleaner(properties.toCleanerConfig(), clock, metrics, observer);
        metrics.registerCleaner(cleaner, clock);
        replicaManager.addRemovalListener(cleaner::forget);
        long backoffMs = properties.backoff().toMillis();
        List<ScheduledExecutorService> schedulers = new ArrayList<>();
        List<Future<?>> schedules = new ArrayList<>();
        for (CleanerThread thread : cleaner.threads()) {
            String name = "log-cleaner-" + thread.index();
            ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().name(name).daemon(true).factory());
            schedulers.add(scheduler);
            schedules.add(scheduler.scheduleWithFixedDelay(
                    () -> run(name, () -> replicaManager.runCleaner(thread, properties.roundsPerRun())),
                    backoffMs,
                    backoffMs,
                    TimeUnit.MILLISECONDS));
        }
        metrics.registerDeadThreads(() -> deadThreads(schedules));
        log.info(
                "Log cleaner started: {} threads, a {} byte key map each",
                cleaner.threads().size(),
                properties.toCleanerConfig().dedupeBufferBytesPerThread());
        return new LogCleanerRunner(schedulers, schedules, Optional.of(cleaner));
    }

    /** One run of thread {@code name}: a RuntimeException is logged, an Error logged and rethrown. */
    private static void run(String name, Runnable work) {
        try {
            ReplicaConfiguration.guarded(name, work);
        } catch (Error e) {
            log.error("Cleaner thread {} died; the other cleaner threads go on", name, e);
            throw e;
        }
    }

    /**
     * How many of the threads' schedules ended by themselves (a run threw an Error, which stops a
     * fixed-delay schedule); a schedule cancelled by a close is not dead.
     */
    static int deadThreads(List<? extends Future<?>> schedules) {
        return (int)
                schedules.stream().filter(s -> s.isDone() && !s.isCancelled()).count();
    }

    /** The cleaner, when enabled. */
    Optional<LogCleaner> cleaner() {
        return cleaner;
    }

    /** The dead threads now ({@link #deadThreads}). */
    int deadThreads() {
        return deadThreads(schedules);
    }

    @Override
    public void close() {
        cleaner.ifPresent(LogCleaner::stop);
        // All stop scheduling first, then each is waited for; never interrupted (an interrupted file
        // read closes the segment's channel).
        schedulers.forEach(ScheduledExecutorService::shutdown);
        schedulers.forEach(ScheduledExecutorService::close);
    }
}
