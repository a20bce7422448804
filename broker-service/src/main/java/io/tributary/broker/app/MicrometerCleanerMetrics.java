package io.tributary.broker.app;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.tributary.broker.log.cleaner.CleanResult;
import io.tributary.broker.log.cleaner.CleanerMetrics;
import io.tributary.broker.log.cleaner.LogCleaner;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicIdPartition;

/**
 * The log cleaner's meters (Prometheus names in the broker README, "Log cleaner"): per compacted
 * partition the gauges {@code tributary.broker.log.cleaner.dirty.ratio} and {@code
 * tributary.broker.log.cleaner.lag.ms} (tags {@code topic}, {@code partition}), registered at the
 * partition's first measure and removed when the cleaner forgets it; the counters of bytes cleaned
 * (read by passes) and written, of seconds spent in passes (its rate is the cleaner's time ratio),
 * of rounds by outcome; the gauge of uncleanable partitions.
 *
 * <p>Thread-safe: the cleaner thread reports, the metadata thread forgets.
 */
final class MicrometerCleanerMetrics implements CleanerMetrics {

    /** A compacted partition's latest measure, read by its gauges. */
    private static final class PartitionValues {
        volatile double dirtyRatio;
        volatile long lagMs;
        List<Gauge> gauges = List.of();
    }

    private final MeterRegistry registry;
    private final Map<TopicIdPartition, PartitionValues> partitions = new ConcurrentHashMap<>();
    private final Counter bytesCleaned;
    private final Counter bytesWritten;
    private final Counter timeSeconds;
    private final Map<String, Counter> rounds = new ConcurrentHashMap<>();

    MicrometerCleanerMetrics(MeterRegistry registry) {
        this.registry = registry;
        bytesCleaned = Counter.builder("tributary.broker.log.cleaner.bytes.cleaned")
                .description("Bytes of batches read by cleaning passes (the key map's reads not counted)")
                .register(registry);
        bytesWritten = Counter.builder("tributary.broker.log.cleaner.bytes.written")
                .description("Bytes of batches written to cleaned segments")
                .register(registry);
        timeSeconds = Counter.builder("tributary.broker.log.cleaner.time.seconds")
                .description("Seconds spent in cleaning passes; its rate is the cleaner thread's busy ratio")
                .register(registry);
        for (String outcome : List.of("cleaned", "nothing_to_clean", "aborted", "failed")) {
            rounds.put(
                    outcome,
                    Counter.builder("tributary.broker.log.cleaner.rounds")
                            .description("Cleaner rounds that ran a pass, by how the pass ended")
                            .tag("outcome", outcome)
                            .register(registry));
        }
    }

    /** Registers the gauge of {@code cleaner}'s uncleanable partitions. */
    void registerUncleanable(LogCleaner cleaner) {
        Gauge.builder(
                        "tributary.broker.log.cleaner.uncleanable.partitions",
                        cleaner,
                        c -> c.uncleanablePartitions().size())
                .description("Partitions whose cleaning failed; the cleaner skips them until they leave the broker")
                .register(registry);
    }

    @Override
    public void sectionMeasured(TopicIdPartition partition, double dirtyRatio, long lagMs) {
        PartitionValues values = partitions.computeIfAbsent(partition, p -> {
            PartitionValues fresh = new PartitionValues();
            Tags tags = Tags.of("topic", p.topic(), "partition", Integer.toString(p.partition()));
            fresh.gauges = List.of(
                    Gauge.builder("tributary.broker.log.cleaner.dirty.ratio", fresh, v -> v.dirtyRatio)
                            .description("Dirty bytes over cleanable bytes of a compacted partition, 0 to 1")
                            .tags(tags)
                            .register(registry),
                    Gauge.builder("tributary.broker.log.cleaner.lag.ms", fresh, v -> v.lagMs)
                            .description("Age of the first record of a compacted partition's first dirty segment"
                                    + " (0 when nothing is dirty)")
                            .tags(tags)
                            .register(registry));
            return fresh;
        });
        values.dirtyRatio = dirtyRatio;
        values.lagMs = lagMs;
    }

    @Override
    public void passEnded(TopicIdPartition partition, CleanResult result, long elapsedNanos) {
        bytesCleaned.increment(result.bytesRead());
        bytesWritten.increment(result.bytesWritten());
        timeSeconds.increment(elapsedNanos / 1e9);
        rounds.get(result.outcome().name().toLowerCase(Locale.ROOT)).increment();
    }

    @Override
    public void cleaningFailed(TopicIdPartition partition, long elapsedNanos) {
        timeSeconds.increment(elapsedNanos / 1e9);
        rounds.get("failed").increment();
    }

    @Override
    public void partitionForgotten(TopicIdPartition partition) {
        PartitionValues values = partitions.remove(partition);
        if (values != null) {
            values.gauges.forEach(registry::remove);
        }
    }

    /** How many partitions have gauges now. */
    int partitionsWithGauges() {
        return partitions.size();
    }
}
