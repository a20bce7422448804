package io.tributary.coordinator.app;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * A lifecycle running {@link #step} on its own daemon platform thread, at once and then {@code
 * interval} after each run ends, until stopped or until the step says it is done (returns true). A
 * step that throws is logged and run again at the next turn. Started after Raft ({@link
 * RaftLifecycle#PHASE} + 1), stopped before it.
 *
 * <p>Thread-safety: start, stop and isRunning under this object's lock.
 */
abstract class FixedDelayTask implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(FixedDelayTask.class);

    private final String threadName;
    private final Duration interval;
    private ScheduledExecutorService scheduler;

    FixedDelayTask(String threadName, Duration interval) {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.interval = Objects.requireNonNull(interval, "interval");
    }

    /** One run; true when the task is done. */
    abstract boolean step();

    @Override
    public synchronized void start() {
        ScheduledExecutorService own = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name(threadName).daemon().factory());
        scheduler = own;
        own.scheduleWithFixedDelay(
                () -> {
                    try {
                        if (step()) {
                            own.shutdown();
                        }
                    } catch (RuntimeException e) {
                        log.error("{} failed", threadName, e);
                    }
                },
                0,
                interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    /** Started, not stopped, and not done. */
    @Override
    public synchronized boolean isRunning() {
        return scheduler != null && !scheduler.isShutdown();
    }

    @Override
    public int getPhase() {
        return RaftLifecycle.PHASE + 1;
    }
}
