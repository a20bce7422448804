package io.tributary.broker.log;

/**
 * A producer wrote outside its transaction (Kafka's {@code INVALID_TXN_STATE}): a non-transactional
 * batch while its transaction on the partition is open.
 */
public final class InvalidTxnStateException extends LogException {
    private static final long serialVersionUID = 1L;

    public InvalidTxnStateException(String message) {
        super(message);
    }
}
