package io.tributary.broker.log;

/**
 * A record batch failed an integrity check: its CRC does not match, its length field is impossible, or the bytes end inside a batch.
 *
 * <p>An operating error, not a programmer error: the broker's API layer answers it with Kafka's
 * {@code CORRUPT_MESSAGE} error code. Unchecked, like every storage error.
 */
public final class CorruptBatchException extends LogException {
    private static final long serialVersionUID = 1L;

    public CorruptBatchException(String message) {
        super(message);
    }
}
