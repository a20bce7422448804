package io.tributary.broker.app;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.tributary.broker.log.cleaner.CleanResult;
import io.tributary.broker.log.cleaner.CleanerMetrics;
import io.tributary.broker.log.cleaner.LogCleaner;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicIdPartition;

/**
 * The log cleaner's meters (Prometheus names in the broker README, "Log cleaner"): per compacted
 * partition the gauges {@code tributary.broker.log.cleaner.dirty.ratio} and {@code
 * tributary.broker.log.cleaner.lag.seconds} (tags {@code topic}, {@code partition}), registered at the
 * partition's first measure and removed when the cleaner forgets it; the counters of bytes cleaned
 * (read by passes) and written, of seconds spent in passes (its rate is the cleaner's time ratio),
 * of rounds by outcome; the gauges of uncleanable partitions and bytes, and Kafka's other cleaner
 * gauges ({@link #registerCleaner}, {@link #registerDeadThreads}), read from the cleaner when scraped.
 *
 * <p>Thread-safe: the cleaner threads report (several at once), the metadata thread forgets.
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
                .description(
                        "Seconds spent in cleaning passes by all the cleaner threads; its rate over the threads is their busy ratio")
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

    /**
     * Registers the gauges read from {@code cleaner}, with Kafka's meanings (its {@code LogCleaner}
     * and {@code LogCleanerManager} gauges; whole numbers as Kafka's) and its aggregation over the
     * cleaner threads: uncleanable partitions and bytes, the largest dirty percent and the time since
     * the last round on {@code clock} (the cleaner's), of whichever thread ran it; the largest
     * compaction delay, buffer utilization and clean time over the threads' last passes, and the
     * recopy percent of their last passes together.
     */
    void registerCleaner(LogCleaner cleaner, InstantSource clock) {
        gauge(
                "uncleanable.partitions",
                "Partitions whose cleaning failed; the cleaner skips them until they leave the broker",
                () -> cleaner.uncleanablePartitions().size());
        gauge(
                "uncleanable.bytes",
                "Dirty bytes of the uncleanable partitions, as measured when their cleaning failed",
                cleaner::uncleanableBytes);
        gauge(
                "max.dirty.percent",
                "Largest dirty ratio of the compacted partitions at the last round of any cleaner thread, in whole"
                        + " percent",
                () -> (int) (100 * cleaner.maxDirtyRatio()));
        gauge(
                "time.since.last.run.seconds",
                "Seconds since the last round of any cleaner thread began (since the cleaner started, before the"
                        + " first)",
                () -> (clock.millis() - cleaner.lastRoundMs()) / 1000.0);
        gauge(
                "max.compaction.delay.seconds",
                "How long past max.compaction.lag.ms the most overdue compacted partition was, at the last round"
                        + " that cleaned of each cleaner thread, the largest over the threads, in whole seconds",
                () -> TimeUnit.MILLISECONDS.toSeconds(cleaner.maxCompactionDelayMs()));
        gauge(
                "max.buffer.utilization.percent",
                "Share of its dedupe buffer's slots filled by each cleaner thread's last pass that cleaned, the"
                        + " largest over the threads, in whole percent",
                () -> (int) (100 * cleaner.maxBufferUtilization()));
        gauge(
                "max.clean.time.seconds",
                "Duration of each cleaner thread's last pass that cleaned, the largest over the threads, in whole"
                        + " seconds",
                () -> TimeUnit.NANOSECONDS.toSeconds(cleaner.maxCleanTimeNanos()));
        gauge(
                "recopy.percent",
                "Bytes written over bytes read by the cleaner threads' last passes that cleaned, together, in"
                        + " whole percent",
                () -> (int) (100 * cleaner.recopyRatio()));
    }

    /**
     * Registers the gauge of cleaner threads that died (ended by an error) while the broker runs,
     * counted per thread (Kafka's {@code DeadThreadCount}).
     */
    void registerDeadThreads(IntSupplier deadThreads) {
        gauge(
                "dead.threads",
                "Cleaner threads that died (ended by an error) while the broker runs",
                deadThreads::getAsInt);
    }

    private void gauge(String name, String description, Supplier<Number> value) {
        Gauge.builder("tributary.broker.log.cleaner." + name, value)
                .description(description)
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
                    // in seconds, Prometheus' base unit (promtool refuses a name ending in _ms)
                    Gauge.builder("tributary.broker.log.cleaner.lag.seconds", fresh, v -> v.lagMs / 1000.0)
                            .description("Age in seconds of the first record of a compacted partition's first"
                                    + " dirty segment (0 when nothing is dirty)")
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
