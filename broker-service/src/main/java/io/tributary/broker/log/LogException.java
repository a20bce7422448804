package io.tributary.broker.log;

/**
 * The base of the storage engine's typed operating errors. Each subclass corresponds to one Kafka
 * error code, so the API layer can map it without inspecting messages. Programmer errors (a broken
 * precondition) are {@link IllegalArgumentException} or {@link IllegalStateException} instead, and
 * I/O failures are {@link java.io.UncheckedIOException} (Kafka's {@code KAFKA_STORAGE_ERROR}).
 */
public abstract sealed class LogException extends RuntimeException
        permits OffsetOutOfRangeException,
                CorruptBatchException,
                RecordTooLargeException,
                InvalidRecordException,
                InvalidTimestampException,
                UnexpectedAppendOffsetException,
                OutOfOrderSequenceException,
                InvalidProducerEpochException,
                InvalidTxnStateException,
                TransactionCoordinatorFencedException,
                TransactionsUnsupportedException {
    private static final long serialVersionUID = 1L;

    protected LogException(String message) {
        super(message);
    }
}
