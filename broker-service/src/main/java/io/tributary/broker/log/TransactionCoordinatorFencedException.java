package io.tributary.broker.log;

/**
 * A commit or abort marker from a transaction coordinator older than one the partition has seen
 * for the producer (Kafka's {@code TRANSACTION_COORDINATOR_FENCED}): a deposed coordinator's late
 * marker, refused so that it cannot end a later transaction.
 */
public final class TransactionCoordinatorFencedException extends LogException {
    private static final long serialVersionUID = 1L;

    public TransactionCoordinatorFencedException(String message) {
        super(message);
    }
}
