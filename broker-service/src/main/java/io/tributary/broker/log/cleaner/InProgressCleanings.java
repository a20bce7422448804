package io.tributary.broker.log.cleaner;

import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicIdPartition;

/**
 * The partitions a cleaner thread is cleaning now (Kafka's {@code LogCleanerManager} marks them
 * "in progress"): a thread marks a log before its pass and unmarks it when the pass ends, and no
 * other thread chooses or cleans a marked log, so two threads never clean one log at once.
 *
 * <p>Thread-safe: every method holds this object's monitor, which a {@link CleanerThread} also holds
 * while it chooses its log, so that choosing and marking are one step.
 */
final class InProgressCleanings {

    private final Set<TopicIdPartition> partitions = new HashSet<>();

    /** Marks {@code partition} as being cleaned; false (and nothing changes) when it already is. */
    synchronized boolean tryStart(TopicIdPartition partition) {
        return partitions.add(partition);
    }

    /** Unmarks {@code partition}: its pass ended. */
    synchronized void done(TopicIdPartition partition) {
        if (!partitions.remove(partition)) {
            throw new IllegalStateException(partition + " was not being cleaned");
        }
    }

    /** Whether a thread is cleaning {@code partition} now. */
    synchronized boolean contains(TopicIdPartition partition) {
        return partitions.contains(partition);
    }

    /** The partitions being cleaned now. */
    synchronized Set<TopicIdPartition> partitions() {
        return Set.copyOf(partitions);
    }
}
