package io.tributary.broker.log;

/**
 * A record batch is larger than {@code max.message.bytes}, or an append is larger than a whole segment.
 *
 * <p>An operating error, not a programmer error: the broker's API layer answers it with Kafka's
 * {@code MESSAGE_TOO_LARGE} error code. Unchecked, like every storage error.
 */
public final class RecordTooLargeException extends LogException {
    private static final long serialVersionUID = 1L;

    public RecordTooLargeException(String message) {
        super(message);
    }
}
