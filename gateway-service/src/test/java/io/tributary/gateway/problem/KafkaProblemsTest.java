package io.tributary.gateway.problem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What kafka-clients throws becomes a named problem, never a 500; wrappers from futures are removed. */
class KafkaProblemsTest {

    static Stream<Arguments> mapping() {
        return Stream.of(
                Arguments.of(new TopicExistsException("x"), ProblemType.TOPIC_EXISTS),
                Arguments.of(new UnknownTopicOrPartitionException("x"), ProblemType.TOPIC_NOT_FOUND),
                Arguments.of(new InvalidTopicException("x"), ProblemType.INVALID_TOPIC_NAME),
                Arguments.of(new InvalidReplicationFactorException("x"), ProblemType.INVALID_TOPIC_REQUEST),
                Arguments.of(new RecordTooLargeException("x"), ProblemType.RECORD_TOO_LARGE),
                Arguments.of(new RecordBatchTooLargeException("x"), ProblemType.RECORD_TOO_LARGE),
                Arguments.of(new TopicAuthorizationException("x"), ProblemType.FORBIDDEN),
                Arguments.of(new NotEnoughReplicasException("x"), ProblemType.NOT_ENOUGH_REPLICAS),
                Arguments.of(new TimeoutException("x"), ProblemType.CLUSTER_UNAVAILABLE),
                Arguments.of(new LeaderNotAvailableException("x"), ProblemType.CLUSTER_UNAVAILABLE),
                Arguments.of(new java.util.concurrent.TimeoutException("x"), ProblemType.CLUSTER_UNAVAILABLE),
                Arguments.of(new ExecutionException(new TopicExistsException("x")), ProblemType.TOPIC_EXISTS),
                Arguments.of(new InvalidRecordException("x"), ProblemType.INVALID_RECORD),
                Arguments.of(
                        new KafkaException("Failed to append record because it was part of a batch which had one more"
                                + " more invalid records"),
                        ProblemType.INVALID_RECORD),
                Arguments.of(new KafkaException("x"), ProblemType.CLUSTER_ERROR));
    }

    @ParameterizedTest
    @MethodSource("mapping")
    void eachKafkaErrorHasItsProblemType(Throwable error, ProblemType expected) {
        ProblemException problem = KafkaProblems.toProblem(error);

        assertThat(problem.type()).isEqualTo(expected);
        assertThat(problem.type().status()).isNotEqualTo(500);
    }

    @ParameterizedTest
    @MethodSource("mapping")
    void unavailableAndNotEnoughReplicasAreRetryable(Throwable error, ProblemType expected) {
        assertThat(KafkaProblems.toProblem(error).type().retryable()).isEqualTo(expected.status() == 503);
    }

    @org.junit.jupiter.api.Test
    void aRecordRefusedForAnotherRecordOfItsBatchSaysSo() {
        ProblemException problem = KafkaProblems.toProblem(new ExecutionException(new KafkaException(
                "Failed to append record because it was part of a batch which had one more more invalid records")));

        assertThat(problem.type()).isEqualTo(ProblemType.INVALID_RECORD);
        assertThat(problem.getMessage()).contains("another record of the batch", "send it again");
    }
}
