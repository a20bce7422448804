package io.tributary.coordinator.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.tributary.coordinator.lag.ConsumerLagMonitor;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * {@code tributary_consumer_group_lag_records{group,topic}}: the lag of each group on each topic (sum
 * over its committed partitions of log end offset − committed offset, floored at 0), and
 * {@code tributary_consumer_group_partition_lag_records{group,topic,partition}}: each of those
 * partitions' lag (for the same, {@code max-series}-bounded, (group, topic) series); recomputed by
 * {@link ConsumerLagMonitor} every refresh interval on one thread. Only the Raft leader has series
 * (a follower's refresh empties them); a group whose offsets are deleted loses its series at the
 * next refresh (the gauge's rows are replaced whole).
 */
class ConsumerLagMetrics implements SmartLifecycle {

    static final String NAME = "tributary.consumer.group.lag.records";

    static final String PARTITION_NAME = "tributary.consumer.group.partition.lag.records";

    private static final Logger log = LoggerFactory.getLogger(ConsumerLagMetrics.class);

    private final ConsumerLagMonitor monitor;
    private final MultiGauge gauge;
    private final MultiGauge partitionGauge;
    private final Duration interval;
    private ScheduledExecutorService scheduler;

    ConsumerLagMetrics(ConsumerLagMonitor monitor, MeterRegistry registry, Duration interval) {
        this.monitor = monitor;
        this.interval = interval;
        this.gauge = MultiGauge.builder(NAME)
                .description("Records a consumer group has yet to read on a topic (log end offset minus committed"
                        + " offset, summed over the topic's committed partitions); on the coordinator leader only")
                .baseUnit("records")
                .register(registry);
        this.partitionGauge = MultiGauge.builder(PARTITION_NAME)
                .description("Records a consumer group has yet to read on one partition (log end offset minus"
                        + " committed offset, at least 0), for the (group, topic) series of the per-topic gauge;"
                        + " on the coordinator leader only")
                .baseUnit("records")
                .register(registry);
    }

    /** Recomputes the lag and replaces the gauge's rows. */
    void refresh() {
        var lag = monitor.refresh();
        gauge.register(
                lag.entrySet().stream()
                        .map(e -> MultiGauge.Row.of(
                                Tags.of(
                                        "group",
                                        e.getKey().group(),
                                        "topic",
                                        e.getKey().topic()),
                                e.getValue()))
                        .toList(),
                true);
        partitionGauge.register(
                monitor.partitionLag().entrySet().stream()
                        .flatMap(series -> series.getValue().entrySet().stream()
                                .map(p -> MultiGauge.Row.of(
                                        Tags.of(
                                                "group",
                                                series.getKey().group(),
                                                "topic",
                                                series.getKey().topic(),
                                                "partition",
                                                Integer.toString(p.getKey())),
                                        p.getValue())))
                        .toList(),
                true);
    }

    private void safeRefresh() {
        try {
            refresh();
        } catch (RuntimeException e) {
            log.warn("consumer lag refresh failed", e);
        }
    }

    @Override
    public synchronized void start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("consumer-lag").daemon().factory());
        long ms = interval.toMillis();
        scheduler.scheduleWithFixedDelay(this::safeRefresh, ms, ms, TimeUnit.MILLISECONDS);
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
}
