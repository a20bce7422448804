package io.tributary.broker.log;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A topic's cleanup policy and compaction settings, with Kafka's topic-config meaning and defaults.
 *
 * <table>
 *   <caption>Fields, Kafka keys and defaults</caption>
 *   <tr><th>field</th><th>Kafka key</th><th>default</th></tr>
 *   <tr><td>{@code cleanupPolicy}</td><td>{@code cleanup.policy}</td><td>{@code delete}</td></tr>
 *   <tr><td>{@code deleteRetention}</td><td>{@code delete.retention.ms}</td><td>1 day</td></tr>
 *   <tr><td>{@code minCompactionLag}</td><td>{@code min.compaction.lag.ms}</td><td>0</td></tr>
 *   <tr><td>{@code maxCompactionLag}</td><td>{@code max.compaction.lag.ms}</td><td>unlimited (empty)</td></tr>
 *   <tr><td>{@code minCleanableDirtyRatio}</td><td>{@code min.cleanable.dirty.ratio}</td><td>0.5</td></tr>
 * </table>
 *
 * @param cleanupPolicy {@link CleanupPolicy#DELETE}: retention deletes old segments; {@link
 *     CleanupPolicy#COMPACT}: the cleaner keeps the latest record per key; both: both; none (Kafka 4.4's
 *     empty list): segments are neither deleted by retention nor compacted
 * @param deleteRetention a tombstone (a record with a null value) stays this long after the batch
 *     holding it was first rewritten by the cleaner (Kafka's delete horizon, KIP-534)
 * @param minCompactionLag a record stays uncompacted at least this long after its timestamp
 * @param maxCompactionLag a log whose oldest dirty record is older than this is cleaned whatever
 *     its dirty ratio
 * @param minCleanableDirtyRatio a log is cleaned once its dirty bytes are at least this fraction of
 *     its cleanable bytes
 */
public record CompactionConfig(
        Set<CleanupPolicy> cleanupPolicy,
        Duration deleteRetention,
        Duration minCompactionLag,
        Optional<Duration> maxCompactionLag,
        double minCleanableDirtyRatio) {

    public static final Duration DEFAULT_DELETE_RETENTION = Duration.ofDays(1);
    public static final double DEFAULT_MIN_CLEANABLE_DIRTY_RATIO = 0.5;

    /** Kafka's {@code cleanup.policy} values. */
    public enum CleanupPolicy {
        DELETE("delete"),
        COMPACT("compact");

        private final String kafkaName;

        CleanupPolicy(String kafkaName) {
            this.kafkaName = kafkaName;
        }

        public String kafkaName() {
            return kafkaName;
        }

        /** The policy named {@code name} ({@code delete} or {@code compact}). */
        public static CleanupPolicy of(String name) {
            for (CleanupPolicy policy : values()) {
                if (policy.kafkaName.equals(name)) {
                    return policy;
                }
            }
            throw new IllegalArgumentException("unknown cleanup.policy " + name);
        }
    }

    public CompactionConfig {
        Objects.requireNonNull(deleteRetention, "deleteRetention");
        Objects.requireNonNull(minCompactionLag, "minCompactionLag");
        Objects.requireNonNull(maxCompactionLag, "maxCompactionLag");
        cleanupPolicy = Set.copyOf(cleanupPolicy);
        if (deleteRetention.isNegative()) {
            throw new IllegalArgumentException("delete.retention.ms must not be negative: " + deleteRetention);
        }
        if (minCompactionLag.isNegative()) {
            throw new IllegalArgumentException("min.compaction.lag.ms must not be negative: " + minCompactionLag);
        }
        maxCompactionLag.ifPresent(max -> {
            if (max.isNegative() || max.isZero() || max.compareTo(minCompactionLag) < 0) {
                throw new IllegalArgumentException(
                        "max.compaction.lag.ms must be positive and at least" + " min.compaction.lag.ms: " + max);
            }
        });
        if (!(minCleanableDirtyRatio >= 0 && minCleanableDirtyRatio <= 1)) {
            throw new IllegalArgumentException(
                    "min.cleanable.dirty.ratio must be in [0, 1]: " + minCleanableDirtyRatio);
        }
    }

    /** Kafka's defaults: {@code cleanup.policy=delete}, nothing compacted. */
    public static CompactionConfig defaults() {
        return new CompactionConfig(
                EnumSet.of(CleanupPolicy.DELETE),
                DEFAULT_DELETE_RETENTION,
                Duration.ZERO,
                Optional.empty(),
                DEFAULT_MIN_CLEANABLE_DIRTY_RATIO);
    }

    /** Whether the cleaner compacts this topic. */
    public boolean compacts() {
        return cleanupPolicy.contains(CleanupPolicy.COMPACT);
    }

    /** Whether retention deletes this topic's old segments. */
    public boolean deletes() {
        return cleanupPolicy.contains(CleanupPolicy.DELETE);
    }

    public CompactionConfig withCleanupPolicy(Set<CleanupPolicy> value) {
        return new CompactionConfig(value, deleteRetention, minCompactionLag, maxCompactionLag, minCleanableDirtyRatio);
    }

    public CompactionConfig withDeleteRetention(Duration value) {
        return new CompactionConfig(cleanupPolicy, value, minCompactionLag, maxCompactionLag, minCleanableDirtyRatio);
    }

    public CompactionConfig withMinCompactionLag(Duration value) {
        return new CompactionConfig(cleanupPolicy, deleteRetention, value, maxCompactionLag, minCleanableDirtyRatio);
    }

    public CompactionConfig withMaxCompactionLag(Optional<Duration> value) {
        return new CompactionConfig(cleanupPolicy, deleteRetention, minCompactionLag, value, minCleanableDirtyRatio);
    }

    public CompactionConfig withMinCleanableDirtyRatio(double value) {
        return new CompactionConfig(cleanupPolicy, deleteRetention, minCompactionLag, maxCompactionLag, value);
    }
}
