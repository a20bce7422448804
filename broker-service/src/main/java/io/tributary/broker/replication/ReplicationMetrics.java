package io.tributary.broker.replication;

/** What replication counts; the application backs it with meters. Implementations are thread-safe. */
public interface ReplicationMetrics {

    /** A committed AlterPartition removed followers from an ISR this broker leads. */
    void isrShrunk();

    /** A committed AlterPartition added followers to an ISR this broker leads. */
    void isrExpanded();

    /** An AlterPartition this broker proposed was refused or failed. */
    void alterPartitionFailed();

    /** A fetcher's request or connection failed (it reconnects after the backoff). */
    void fetchFailed();

    /** A follower truncated its log (divergence, or a restart at the leader's log start). */
    void truncated();

    /** Counts nothing. */
    ReplicationMetrics NONE = new ReplicationMetrics() {
        @Override
        public void isrShrunk() {}

        @Override
        public void isrExpanded() {}

        @Override
        public void alterPartitionFailed() {}

        @Override
        public void fetchFailed() {}

        @Override
        public void truncated() {}
    };
}
