package io.tributary.broker.log.cleaner;

import org.apache.kafka.common.TopicIdPartition;

/**
 * Hears each cleaning pass start and end, on the cleaner thread that runs it, while that thread holds
 * the partition's in-progress mark: a seam for tests that check that two threads never clean one
 * partition at once. The broker's is {@link #NONE}.
 *
 * <p>Implementations are thread-safe (every cleaner thread calls them). What {@link #passStarted}
 * throws ends the pass unrun and propagates out of the round ({@link #passEnded} is still called).
 */
public interface PassObserver {

    /** Cleaner thread {@code thread} begins a pass over {@code partition}. */
    void passStarted(int thread, TopicIdPartition partition);

    /** Cleaner thread {@code thread}'s pass over {@code partition} ended, however it ended. */
    void passEnded(int thread, TopicIdPartition partition);

    /** Hears nothing. */
    PassObserver NONE = new PassObserver() {
        @Override
        public void passStarted(int thread, TopicIdPartition partition) {}

        @Override
        public void passEnded(int thread, TopicIdPartition partition) {}
    };
}
