package io.tributary.broker.log;

/** A batch of an idempotent producer whose sequence does not continue the producer's last batch, or a new epoch that does not start at sequence 0 (Kafka's {@code OUT_OF_ORDER_SEQUENCE_NUMBER}). */
public final class OutOfOrderSequenceException extends LogException {
    private static final long serialVersionUID = 1L;

    public OutOfOrderSequenceException(String message) {
        super(message);
    }
}
