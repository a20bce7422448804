package io.tributary.broker.log;

import java.util.Objects;

/**
 * One record a leader refused, as a Produce answer's {@code RecordErrors} entry names it.
 *
 * @param batchIndex the record's index in its batch (0 for the first record)
 * @param message why, in Kafka's words
 */
public record RecordError(int batchIndex, String message) {
    public RecordError {
        Objects.requireNonNull(message, "message");
    }

    /** Kafka's rendering of a record error inside a partition-level message. */
    String quoted() {
        return "RecordError(batchIndex=" + batchIndex + ", message='" + message + "')";
    }
}
