package io.tributary.broker.log;

/** A batch of an idempotent producer with an epoch older than the one the partition has seen (Kafka's {@code INVALID_PRODUCER_EPOCH}): a newer instance of the producer has taken over. */
public final class InvalidProducerEpochException extends LogException {
    private static final long serialVersionUID = 1L;

    public InvalidProducerEpochException(String message) {
        super(message);
    }
}
