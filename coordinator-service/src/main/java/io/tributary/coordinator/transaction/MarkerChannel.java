package io.tributary.coordinator.transaction;

import io.tributary.coordinator.metadata.TopicPartition;
import java.util.Objects;
import java.util.Set;

/**
 * How the transaction coordinator has commit and abort markers written: it asks each partition's
 * leader to append a control batch (Kafka's WriteTxnMarkers). One call is one attempt; the
 * coordinator sends again, after {@link TransactionConfig#markerRetryBackoff}, every marker whose
 * acknowledgement did not come, until all have come.
 *
 * <p>Implementations are thread-safe; {@link #send} does not block on the brokers, and the
 * acknowledgements come on any thread.
 */
public interface MarkerChannel {

    /**
     * Sends markers; calls {@code acknowledged} for each partition whose leader wrote its marker (or
     * that no longer exists: its topic was deleted, nothing is left to mark). A partition whose
     * leader failed or did not answer is not acknowledged.
     */
    void send(Markers markers, Acknowledgement acknowledged);

    /** Called for a partition whose marker is written. */
    @FunctionalInterface
    interface Acknowledgement {
        void written(Markers markers, TopicPartition partition);
    }

    /**
     * The markers of one transaction.
     *
     * @param transactionalId whose transaction they end
     * @param producerId the producer id whose transaction they end
     * @param producerEpoch the epoch the markers carry (the transaction's, or the bumped one of an
     *     abort by fencing or timeout: a broker's producer state then fences the old epoch)
     * @param commit commit markers, else abort markers
     * @param coordinatorEpoch the coordinator leader's epoch (its Raft term): a broker refuses a marker
     *     of a lower epoch than it has seen for the producer, so a deposed leader's late marker cannot end
     *     a later transaction
     * @param partitions the partitions to mark
     */
    record Markers(
            String transactionalId,
            long producerId,
            short producerEpoch,
            boolean commit,
            int coordinatorEpoch,
            Set<TopicPartition> partitions) {
        public Markers {
            Objects.requireNonNull(transactionalId, "transactionalId");
            partitions = Set.copyOf(partitions);
        }
    }
}
