package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.ControlPlaneException.Kind;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class ControlPlaneErrorsTest {

    @ParameterizedTest
    @CsvSource({
        "TOPIC_EXISTS, TOPIC_ALREADY_EXISTS",
        "UNKNOWN_TOPIC, UNKNOWN_TOPIC_OR_PARTITION",
        "UNKNOWN_BROKER, BROKER_NOT_AVAILABLE",
        "INVALID_CONFIG, INVALID_CONFIG",
        "INVALID_REPLICATION_FACTOR, INVALID_REPLICATION_FACTOR",
        "INVALID_PARTITIONS, INVALID_PARTITIONS",
        "INVALID_REQUEST, INVALID_REQUEST",
        "STALE_EPOCH, NOT_CONTROLLER",
        "UNAVAILABLE, NOT_CONTROLLER",
        "NOT_COMMITTED, NOT_CONTROLLER"
    })
    void eachKindHasItsKafkaErrorAndKeepsTheCoordinatorsDetail(Kind kind, Errors error) {
        ApiError mapped = ControlPlaneErrors.toApiError(new ControlPlaneException(kind, "detail of " + kind));

        assertThat(mapped.error()).isEqualTo(error);
        assertThat(mapped.message()).isEqualTo("detail of " + kind);
    }

    @org.junit.jupiter.api.Test
    void aCoordinatorsRefusalIsToldToTheClientWithoutTheCallBehindIt() {
        ApiError mapped = ControlPlaneErrors.toApiError(new ControlPlaneException(
                Kind.INVALID_CONFIG,
                "POST /topics: 127.0.0.1:8091 answered 400 invalid-config: unknown topic config 'x'",
                "unknown topic config 'x'"));

        assertThat(mapped.message()).isEqualTo("unknown topic config 'x'");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void whatMayBeRetriedMapsToARetriableKafkaErrorAndNothingIsAnUnknownServerError(Kind kind) {
        ApiError mapped = ControlPlaneErrors.toApiError(new ControlPlaneException(kind, "x"));

        assertThat(mapped.error()).isNotEqualTo(Errors.UNKNOWN_SERVER_ERROR);
        if (ControlPlaneErrors.isRetriable(new ControlPlaneException(kind, "x"))) {
            assertThat(mapped.exception()).isInstanceOf(RetriableException.class);
        }
    }
}
