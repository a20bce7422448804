package io.tributary.coordinator.app;

import io.micrometer.core.instrument.Counter;
import io.tributary.coordinator.group.OffsetRetention;
import io.tributary.coordinator.kafka.GroupService;
import io.tributary.coordinator.kafka.GroupService.Expired;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The group timers, on one virtual thread ({@code group-timers}) with two cadences:
 *
 * <ul>
 *   <li>every {@code tributary.coordinator.groups.tick-interval}: on the leader, members past their
 *       session or rebalance timeout are removed and topic changes start new assignments; on a
 *       follower, membership is dropped (members join the new leader);
 *   <li>every {@code tributary.coordinator.groups.offsets-retention-check-interval} (the first one
 *       interval after start, as Kafka schedules its check): expired committed offsets and the empty
 *       groups that lost them all are deleted ({@link GroupService#expireOffsets}), counted by
 *       {@code tributary_group_offsets_expired_total}.
 * </ul>
 *
 * One thread for both, so a retention check (a Raft write per group cleaned) delays the next tick
 * by as long as it takes, and the two never run at once. A run that throws is logged and the next
 * one runs.
 */
class GroupTickLoop implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(GroupTickLoop.class);

    private final GroupService service;
    private final Duration interval;
    private final OffsetRetention retention;
    private final Duration retentionCheckInterval;
    private final Counter offsetsExpired;
    private ScheduledExecutorService scheduler;

    /** @param offsetsExpired counts the committed offsets deleted by retention */
    GroupTickLoop(
            GroupService service,
            Duration interval,
            OffsetRetention retention,
            Duration retentionCheckInterval,
            Counter offsetsExpired) {
        this.service = service;
        this.interval = interval;
        this.retention = retention;
        this.retentionCheckInterval = retentionCheckInterval;
        this.offsetsExpired = offsetsExpired;
    }

    private void tick() {
        try {
            service.tick();
        } catch (RuntimeException e) {
            log.error("group timers: tick failed", e);
        }
    }

    private void expireOffsets() {
        try {
            for (Expired expired : service.expireOffsets(retention)) {
                offsetsExpired.increment(expired.offsets());
            }
        } catch (RuntimeException e) {
            log.error("group timers: offsets retention check failed", e);
        }
    }

    @Override
    public synchronized void start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofVirtual().name("group-timers").factory());
        scheduler.scheduleWithFixedDelay(this::tick, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(
                this::expireOffsets,
                retentionCheckInterval.toMillis(),
                retentionCheckInterval.toMillis(),
                TimeUnit.MILLISECONDS);
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
