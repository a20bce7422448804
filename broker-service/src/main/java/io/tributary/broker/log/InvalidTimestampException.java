package io.tributary.broker.log;

import java.util.List;

/**
 * A batch holds records whose timestamps lie outside the topic's {@link TimestampBounds} (Kafka's
 * {@code message.timestamp.before.max.ms} / {@code message.timestamp.after.max.ms} with {@code
 * CreateTime}): the whole batch is refused, and each offending record is named by its index in the
 * batch with Kafka's message.
 *
 * <p>An operating error: the broker's API layer answers it with Kafka's {@code INVALID_TIMESTAMP},
 * the exception's message as the partition's error message and {@link #recordErrors()} as the
 * Produce answer's {@code RecordErrors}. Unchecked, like every storage error.
 */
public final class InvalidTimestampException extends LogException {
    private static final long serialVersionUID = 1L;

    /** Kafka's partition-level message for a batch refused for its timestamps. */
    public static final String MESSAGE = "One or more records have been rejected due to invalid timestamp";

    private final transient List<RecordError> recordErrors;

    public InvalidTimestampException(List<RecordError> recordErrors) {
        super(MESSAGE);
        if (recordErrors.isEmpty()) {
            throw new IllegalArgumentException("an invalid timestamp names at least one record");
        }
        this.recordErrors = List.copyOf(recordErrors);
    }

    /** The refused records, in batch order. */
    public List<RecordError> recordErrors() {
        return recordErrors;
    }
}
