package io.tributary.broker.api;

/**
 * What the data-path handlers count; the Spring edge adapts it to Micrometer. Per-partition error
 * codes are counted by the listener itself ({@code tributary_protocol_errors_total{api,error}}).
 * Implementations are thread-safe and cheap.
 */
public interface DataPathMetrics {

    /** How a long-poll fetch that had to wait ended. */
    enum FetchWaitOutcome {
        /** Enough data arrived before {@code max_wait_ms}. */
        SATISFIED,
        /** {@code max_wait_ms} passed. */
        EXPIRED
    }

    /** Who a Fetch came from. */
    enum FetchSource {
        CONSUMER,
        /** A follower replica (replica id at least 0). */
        REPLICA
    }

    /** Record batches appended by Produce: their bytes and records (duplicates not counted). */
    void produced(long bytes, long records);

    /** Record bytes a Fetch returned. */
    void fetched(long bytes, FetchSource source);

    /** A fetch that waited for data. */
    void fetchWaited(FetchWaitOutcome outcome);

    /**
     * Batches a leader rewrote into its topic's {@code compression.type} (a produce whose batches
     * were all stored as sent counts nothing): how many, their bytes as sent and as stored.
     */
    void recompressed(int batches, long bytesIn, long bytesOut);

    /** Counts nothing (tests). */
    DataPathMetrics NONE = new DataPathMetrics() {
        @Override
        public void produced(long bytes, long records) {}

        @Override
        public void fetched(long bytes, FetchSource source) {}

        @Override
        public void fetchWaited(FetchWaitOutcome outcome) {}

        @Override
        public void recompressed(int batches, long bytesIn, long bytesOut) {}
    };
}
