package io.tributary.gateway.problem;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
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
 */
public final class KafkaProblems {

    private KafkaProblems() {}

    /** The problem for {@code failure}, unwrapping future and completion wrappers. */
    public static ProblemException toProblem(Throwable failure) {
        Throwable e = unwrap(failure);
        if (e instanceof ProblemException problem) {
            return problem;
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
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
