package io.tributary.broker.log;

/**
 * A follower append whose offsets do not continue the log: the first offset is below the log end offset, or offsets within the append do not increase.
 *
 * <p>An operating error, not a programmer error: it tells the replication layer (Kafka's internal
 * {@code UnexpectedAppendOffsetException}) that the follower must truncate or refetch. Unchecked,
 * like every storage error.
 */
public final class UnexpectedAppendOffsetException extends LogException {
    private static final long serialVersionUID = 1L;

    public UnexpectedAppendOffsetException(String message) {
        super(message);
    }
}
