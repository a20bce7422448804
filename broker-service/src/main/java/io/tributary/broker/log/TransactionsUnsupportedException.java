package io.tributary.broker.log;

/** A transactional or control batch: Tributary does not implement transactions (answered with Kafka's {@code UNSUPPORTED_FOR_MESSAGE_FORMAT}). */
public final class TransactionsUnsupportedException extends LogException {
    private static final long serialVersionUID = 1L;

    public TransactionsUnsupportedException(String message) {
        super(message);
    }
}
