package io.tributary.coordinator.app;

import io.tributary.coordinator.kafka.GroupService;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Ticks the group timers every {@code tributary.coordinator.groups.tick-interval} on one virtual
 * thread ({@code group-timers}): on the leader, members past their session or rebalance timeout are
 * removed and topic changes start new assignments; on a follower, membership is dropped (members
 * join the new leader). A tick that throws is logged and the next one runs.
 */
class GroupTickLoop implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(GroupTickLoop.class);

    private final GroupService service;
    private final Duration interval;
    private ScheduledExecutorService scheduler;

    GroupTickLoop(GroupService service, Duration interval) {
        this.service = service;
        this.interval = interval;
    }

    private void tick() {
        try {
            service.tick();
        } catch (RuntimeException e) {
            log.error("group timers: tick failed", e);
        }
    }

    @Override
    public synchronized void start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofVirtual().name("group-timers").factory());
        scheduler.scheduleWithFixedDelay(this::tick, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return scheduler != null;
    }

    @Override
    public int getPhase() {
        return RaftLifecycle.PHASE + 1;
    }
}
