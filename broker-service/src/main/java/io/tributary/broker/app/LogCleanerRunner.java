package io.tributary.broker.app;

import io.tributary.broker.log.cleaner.LogCleaner;
import io.tributary.broker.replication.ReplicaManager;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
        LogCleaner cleaner = new LogCleaner(properties.toCleanerConfig(), Clock.systemUTC(), metrics);
        metrics.registerUncleanable(cleaner);
        replicaManager.addRemovalListener(cleaner::forget);
        long backoffMs = properties.backoff().toMillis();
        scheduler.scheduleWithFixedDelay(
                () -> ReplicaConfiguration.guarded(
                        "log cleaner", () -> replicaManager.runCleaner(cleaner, properties.roundsPerRun())),
                backoffMs,
                backoffMs,
                TimeUnit.MILLISECONDS);
        return new LogCleanerRunner(scheduler, Optional.of(cleaner));
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
