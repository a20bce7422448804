package io.tributary.broker.log;

/**
 * A read or a timestamp query asked for an offset below the log start offset or past the log end offset.
 *
 * <p>An operating error, not a programmer error: the broker's API layer answers it with Kafka's
 * {@code OFFSET_OUT_OF_RANGE} error code. Unchecked, like every storage error.
 */
public final class OffsetOutOfRangeException extends LogException {
    private static final long serialVersionUID = 1L;

    public OffsetOutOfRangeException(String message) {
        super(message);
    }
}
