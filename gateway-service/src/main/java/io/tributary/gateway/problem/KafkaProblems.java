package io.tributary.gateway.problem;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Names what {@code kafka-clients} throws as a {@link ProblemException}. Anything retriable that is
 * not named otherwise (timeouts, no leader, a broker gone) is {@code cluster-unavailable}; anything
 * unknown is {@code cluster-error} (502), never a 500, because it is the cluster's answer, not a
 * gateway defect.
 *
 * <p>A record the cluster refuses as invalid ({@code INVALID_RECORD}: a record without a key in a
 * compacted topic) is {@code invalid-record} (400). When the broker names the refused records of a
 * batch (Kafka's per-record errors), the producer fails the other records of that batch with a plain
 * {@code KafkaException} saying so; those are {@code invalid-record} too, with a detail saying that
 * they were refused for another record of their batch (a broker that names no record, such as
 * Tributary's, refuses the whole batch with {@code INVALID_RECORD}, and each record is {@code
 * invalid-record} with the broker's message).
 */
public final class KafkaProblems {

    /**
     * The start of the message of the {@code KafkaException} kafka-clients' producer fails the other
     * records of a batch with when the broker refused some of its records ({@code Sender}, 4.x).
     */
    static final String PART_OF_AN_INVALID_BATCH = "Failed to append record because it was part of a batch";

    /** The detail of a record refused for another record of its batch. */
    static final String REFUSED_WITH_ITS_BATCH = "The cluster refused another record of the batch this record was"
            + " sent in (a record without a key in a compacted topic, for instance), so this one was not"
            + " written either. It is not itself invalid: send it again without the refused one.";

    private KafkaProblems() {}

    /** The problem for {@code failure}, unwrapping future and completion wrappers. */
    public static ProblemException toProblem(Throwable failure) {
        Throwable e = unwrap(failure);
        if (e instanceof ProblemException problem) {
            return problem;
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (e.getClass() == KafkaException.class && message.startsWith(PART_OF_AN_INVALID_BATCH)) {
            return new ProblemException(ProblemType.INVALID_RECORD, REFUSED_WITH_ITS_BATCH, java.util.Map.of(), e);
        }
        ProblemType type = switch (e) {
            case TopicExistsException x -> ProblemType.TOPIC_EXISTS;
            case UnknownTopicOrPartitionException x -> ProblemType.TOPIC_NOT_FOUND;
            case InvalidTopicException x -> ProblemType.INVALID_TOPIC_NAME;
            case InvalidPartitionsException x -> ProblemType.INVALID_TOPIC_REQUEST;
            case InvalidReplicationFactorException x -> ProblemType.INVALID_TOPIC_REQUEST;
            case PolicyViolationException x -> ProblemType.INVALID_TOPIC_REQUEST;
            case InvalidRequestException x -> ProblemType.INVALID_TOPIC_REQUEST;
            case RecordTooLargeException x -> ProblemType.RECORD_TOO_LARGE;
            case RecordBatchTooLargeException x -> ProblemType.RECORD_TOO_LARGE;
            case InvalidTimestampException x -> ProblemType.INVALID_RECORD;
            case InvalidRecordException x -> ProblemType.INVALID_RECORD;
            case AuthorizationException x -> ProblemType.FORBIDDEN;
            case InvalidConfigurationException x -> ProblemType.INVALID_TOPIC_REQUEST;
            case NotEnoughReplicasException x -> ProblemType.NOT_ENOUGH_REPLICAS;
            case NotEnoughReplicasAfterAppendException x -> ProblemType.NOT_ENOUGH_REPLICAS;
            case TimeoutException x -> ProblemType.CLUSTER_UNAVAILABLE;
            case java.util.concurrent.TimeoutException x -> ProblemType.CLUSTER_UNAVAILABLE;
            case RetriableException x -> ProblemType.CLUSTER_UNAVAILABLE;
            default -> ProblemType.CLUSTER_ERROR;
        };
        return new ProblemException(type, message, java.util.Map.of(), e);
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable e = failure;
        while ((e instanceof ExecutionException || e instanceof CompletionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
