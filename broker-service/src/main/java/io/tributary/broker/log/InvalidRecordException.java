package io.tributary.broker.log;

/**
 * A record batch is well formed but not acceptable: a magic other than 2, no records, or a record count that disagrees with its offset delta.
 *
 * <p>An operating error, not a programmer error: the broker's API layer answers it with Kafka's
 * {@code INVALID_RECORD} error code. Unchecked, like every storage error.
 */
public final class InvalidRecordException extends LogException {
    private static final long serialVersionUID = 1L;

    public InvalidRecordException(String message) {
        super(message);
    }
}
