package io.tributary.broker.app;

import io.tributary.broker.log.cleaner.LogCleaner;
import io.tributary.broker.replication.ReplicaManager;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The log cleaner on its own platform thread ({@code log-cleaner}): every {@code backoff}, up to
 * {@code rounds-per-run} passes over the dirtiest due logs ({@link ReplicaManager#runCleaner}). The
 * cleaner forgets each partition that leaves the broker (a removal listener of the replica manager).
 * Nothing runs when {@code tributary.broker.log-cleaner.enabled} is false.
 *
 * <p>{@link #close} (before the logs close) stops the cleaner first, so that a long pass ends at its
 * next read instead of holding the shutdown, then waits for the thread.
 */
final class LogCleanerRunner implements AutoCloseable {

    private final ScheduledExecutorService scheduler;
    private final Optional<LogCleaner> cleaner;

    private LogCleanerRunner(ScheduledExecutorService scheduler, Optional<LogCleaner> cleaner) {
        this.scheduler = scheduler;
        this.cleaner = cleaner;
    }

    static LogCleanerRunner start(
            ReplicaManager replicaManager, LogCleanerProperties properties, MicrometerCleanerMetrics metrics) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("log-cleaner").daemon(true).factory());
        if (!properties.enabled()) {
            return new LogCleanerRunner(scheduler, Optional.empty());
        }
        Clock clock = Clock.systemUTC();
        LogCleaner cleaner = new LogCleaner(properties.toCleanerConfig(), clock, metrics);
        metrics.registerCleaner(cleaner, clock);
        replicaManager.addRemovalListener(cleaner::forget);
        long backoffMs = properties.backoff().toMillis();
        ScheduledFuture<?> rounds = scheduler.scheduleWithFixedDelay(
                () -> ReplicaConfiguration.guarded(
                        "log cleaner", () -> replicaManager.runCleaner(cleaner, properties.roundsPerRun())),
                backoffMs,
                backoffMs,
                TimeUnit.MILLISECONDS);
        // A run that ends by an Error (not guarded) cancels the schedule: the thread is dead, as a
        // Kafka cleaner thread that failed. A close cancels it too, which is no death.
        metrics.registerDeadThreads(() -> deadThreads(rounds));
        return new LogCleanerRunner(scheduler, Optional.of(cleaner));
    }

    /**
     * 1 when the cleaner's schedule ended by itself (a run threw an Error, which stops a fixed-delay
     * schedule), else 0; a schedule cancelled by a close is not dead.
     */
    static int deadThreads(Future<?> rounds) {
        return rounds.isDone() && !rounds.isCancelled() ? 1 : 0;
    }

    /** The cleaner, when enabled. */
    Optional<LogCleaner> cleaner() {
        return cleaner;
    }

    @Override
    public void close() {
        cleaner.ifPresent(LogCleaner::stop);
        scheduler.close();
    }
}
