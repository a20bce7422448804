package io.tributary.broker.api;

import io.tributary.broker.log.CorruptBatchException;
import io.tributary.broker.log.InvalidProducerEpochException;
import io.tributary.broker.log.InvalidRecordException;
import io.tributary.broker.log.InvalidTimestampException;
import io.tributary.broker.log.InvalidTxnStateException;
import io.tributary.broker.log.OffsetOutOfRangeException;
import io.tributary.broker.log.OutOfOrderSequenceException;
import io.tributary.broker.log.RecordTooLargeException;
import io.tributary.broker.log.TransactionCoordinatorFencedException;
import io.tributary.broker.log.TransactionsUnsupportedException;
import io.tributary.broker.log.UnexpectedAppendOffsetException;
import io.tributary.broker.log.index.IndexStoreException;
import io.tributary.broker.replication.NotLeaderException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka error code of each failure of the data path, per partition.
 *
 * <table>
 *   <caption>Failures and codes</caption>
 *   <tr><th>failure</th><th>code</th></tr>
 *   <tr><td>{@link OffsetOutOfRangeException}</td><td>OFFSET_OUT_OF_RANGE</td></tr>
 *   <tr><td>{@link CorruptBatchException}</td><td>CORRUPT_MESSAGE</td></tr>
 *   <tr><td>{@link RecordTooLargeException}</td><td>MESSAGE_TOO_LARGE</td></tr>
 *   <tr><td>{@link InvalidRecordException}</td><td>INVALID_RECORD</td></tr>
 *   <tr><td>{@link InvalidTimestampException}</td><td>INVALID_TIMESTAMP (with RecordErrors, added by Produce)</td></tr>
 *   <tr><td>{@link OutOfOrderSequenceException}</td><td>OUT_OF_ORDER_SEQUENCE_NUMBER</td></tr>
 *   <tr><td>{@link InvalidProducerEpochException}</td><td>INVALID_PRODUCER_EPOCH</td></tr>
 *   <tr><td>{@link InvalidTxnStateException}</td><td>INVALID_TXN_STATE</td></tr>
 *   <tr><td>{@link TransactionCoordinatorFencedException}</td><td>TRANSACTION_COORDINATOR_FENCED</td></tr>
 *   <tr><td>{@link TransactionsUnsupportedException}</td><td>UNSUPPORTED_FOR_MESSAGE_FORMAT</td></tr>
 *   <tr><td>{@link NotLeaderException}, a log closed by a metadata change</td><td>NOT_LEADER_OR_FOLLOWER</td></tr>
 *   <tr><td>I/O and index failures</td><td>KAFKA_STORAGE_ERROR</td></tr>
 *   <tr><td>kafka-clients' {@link ApiException}s (request validation)</td><td>their own code</td></tr>
 * </table>
 */
final class DataPathErrors {

    private static final Logger log = LoggerFactory.getLogger(DataPathErrors.class);

    private DataPathErrors() {}

    static Errors of(RuntimeException e, Object partition) {
        return switch (e) {
            case OffsetOutOfRangeException x -> Errors.OFFSET_OUT_OF_RANGE;
            case CorruptBatchException x -> Errors.CORRUPT_MESSAGE;
            case RecordTooLargeException x -> Errors.MESSAGE_TOO_LARGE;
            case InvalidRecordException x -> Errors.INVALID_RECORD;
            case InvalidTimestampException x -> Errors.INVALID_TIMESTAMP;
            case OutOfOrderSequenceException x -> Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
            case InvalidProducerEpochException x -> Errors.INVALID_PRODUCER_EPOCH;
            case InvalidTxnStateException x -> Errors.INVALID_TXN_STATE;
            case TransactionCoordinatorFencedException x -> Errors.TRANSACTION_COORDINATOR_FENCED;
            case TransactionsUnsupportedException x -> Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT;
            case NotLeaderException x -> Errors.NOT_LEADER_OR_FOLLOWER;
            case ApiException x -> Errors.forException(x);
            case UncheckedIOException x -> storage(x, partition);
            case IndexStoreException x -> storage(x, partition);
            case UnexpectedAppendOffsetException x -> unexpected(x, partition);
            case IllegalStateException x -> {
                // The replica was closed by a metadata change while the request used it.
                log.warn("{}: replica closed during a request: {}", partition, x.getMessage());
                yield Errors.NOT_LEADER_OR_FOLLOWER;
            }
            default -> unexpected(e, partition);
        };
    }

    private static Errors storage(RuntimeException e, Object partition) {
        log.error("{}: storage failure", partition, e);
        return Errors.KAFKA_STORAGE_ERROR;
    }

    private static Errors unexpected(RuntimeException e, Object partition) {
        log.error("{}: unexpected failure", partition, e);
        return Errors.UNKNOWN_SERVER_ERROR;
    }
}
