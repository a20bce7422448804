package io.tributary.broker.log.cleaner;

import org.apache.kafka.common.TopicIdPartition;

/**
 * What the log cleaner reports for metrics; the app implements it with Micrometer (the core has no
 * metrics library). Called on the cleaner threads, several at once with {@code log.cleaner.threads}
 * above 1, and {@link #partitionForgotten} also on the thread that forgets the partition (the
 * metadata thread): implementations are thread-safe.
 *
 * <p>Per-partition values are kept only for partitions the cleaner measured (logs whose {@code
 * cleanup.policy} has {@code compact}) and are dropped by {@link #partitionForgotten}, so their
 * number is bounded by the compacted replicas on the broker.
 */
public interface CleanerMetrics {

    /**
     * A round measured {@code partition}'s cleanable section: its dirty ratio (dirty bytes over
     * cleanable bytes, 0 to 1) and its cleaner lag, the age in milliseconds of the first record of its
     * first dirty segment (0 when nothing is dirty or the segment has no timestamp).
     */
    void sectionMeasured(TopicIdPartition partition, double dirtyRatio, long lagMs);

    /** A pass over {@code partition} ended with {@code result}, after {@code elapsedNanos}. */
    void passEnded(TopicIdPartition partition, CleanResult result, long elapsedNanos);

    /** Cleaning {@code partition} failed after {@code elapsedNanos} of a pass (0 before one): it is now uncleanable. */
    void cleaningFailed(TopicIdPartition partition, long elapsedNanos);

    /** {@code partition}'s per-partition values are dropped (it left the broker, or stopped compacting). */
    void partitionForgotten(TopicIdPartition partition);

    /** Reports nothing. */
    CleanerMetrics NONE = new CleanerMetrics() {
        @Override
        public void sectionMeasured(TopicIdPartition partition, double dirtyRatio, long lagMs) {}

        @Override
        public void passEnded(TopicIdPartition partition, CleanResult result, long elapsedNanos) {}

        @Override
        public void cleaningFailed(TopicIdPartition partition, long elapsedNanos) {}

        @Override
        public void partitionForgotten(TopicIdPartition partition) {}
    };
}
