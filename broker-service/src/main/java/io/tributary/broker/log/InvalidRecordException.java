package io.tributary.broker.log;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A record batch is well formed but not acceptable: a magic other than 2, no records, a record count
 * that disagrees with its offset delta, or (leader only) records without a key in a compacted topic.
 *
 * <p>An operating error, not a programmer error: the broker's API layer answers it with Kafka's
 * {@code INVALID_RECORD} error code, the exception's message as the partition's error message and
 * {@link #recordErrors()} (the refused records, when the refusal is about records) as the Produce
 * answer's {@code RecordErrors}. Unchecked, like every storage error.
 */
public final class InvalidRecordException extends LogException {
    private static final long serialVersionUID = 1L;

    /** Kafka quotes at most this many record errors in the partition-level message. */
    static final int QUOTED_RECORD_ERRORS = 3;

    private final transient List<RecordError> recordErrors;

    /** A refusal of the batch as a whole: no record errors. */
    public InvalidRecordException(String message) {
        super(message);
        this.recordErrors = List.of();
    }

    /**
     * A refusal of some records (every other record of their batch is refused with them), with
     * Kafka's partition-level message: the number of record errors and the first {@value
     * #QUOTED_RECORD_ERRORS} of them.
     */
    public InvalidRecordException(List<RecordError> recordErrors) {
        super(messageFor(recordErrors));
        this.recordErrors = List.copyOf(recordErrors);
    }

    private static String messageFor(List<RecordError> recordErrors) {
        if (recordErrors.isEmpty()) {
            throw new IllegalArgumentException("a refusal of records names at least one record");
        }
        return "One or more records have been rejected due to " + recordErrors.size() + " record errors in total,"
                + " and only showing the first three errors at most: "
                + recordErrors.stream()
                        .limit(QUOTED_RECORD_ERRORS)
                        .map(RecordError::quoted)
                        .collect(Collectors.joining(", ", "[", "]"));
    }

    /** The refused records, in batch order; empty when the batch as a whole was refused. */
    public List<RecordError> recordErrors() {
        return recordErrors;
    }
}
