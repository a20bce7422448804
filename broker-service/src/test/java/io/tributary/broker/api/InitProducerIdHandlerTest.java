package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ControlPlaneException.Kind;
import java.util.stream.IntStream;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class InitProducerIdHandlerTest {

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(1);
    private final InitProducerIdHandler handler =
            new InitProducerIdHandler(new ProducerIdAllocator(controlPlane, () -> 0, 3, Runnable::run));

    static IntStream allVersions() {
        return IntStream.rangeClosed(ApiKeys.INIT_PRODUCER_ID.oldestVersion(), InitProducerIdHandler.LATEST_STABLE);
    }

    private InitProducerIdResponse init(int version, InitProducerIdRequestData data) {
        return Wire.call(handler, new InitProducerIdRequest.Builder(data), version);
    }

    private static InitProducerIdRequestData idempotent() {
        return new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(Integer.MAX_VALUE);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("allVersions")
    void anIdempotentProducerGetsANewIdWithEpochZero(int version) {
        InitProducerIdResponse first = init(version, idempotent());
        InitProducerIdResponse second = init(version, idempotent());

        assertThat(first.error()).isEqualTo(Errors.NONE);
        assertThat(first.data().producerEpoch()).isZero();
        assertThat(second.data().producerId()).isNotEqualTo(first.data().producerId());
    }

    @Test
    void aReinitialisationWithItsIdAndEpochGetsAFreshIdAsFromKafka() {
        InitProducerIdResponse first = init(5, idempotent());

        InitProducerIdResponse again =
                init(5, idempotent().setProducerId(first.data().producerId()).setProducerEpoch((short) 0));

        assertThat(again.error()).isEqualTo(Errors.NONE);
        assertThat(again.data().producerId()).isNotEqualTo(first.data().producerId());
        assertThat(again.data().producerEpoch()).isZero();
    }

    @Test
    void onlyOneOfProducerIdAndEpochIsAnInvalidRequest() {
        InitProducerIdResponse response = init(5, idempotent().setProducerId(7).setProducerEpoch((short) -1));

        assertThat(response.error()).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void aTransactionalIdIsRefusedWithAFatalError() {
        InitProducerIdResponse response =
                init(5, idempotent().setTransactionalId("tx").setTransactionTimeoutMs(60_000));

        assertThat(response.error()).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        assertThat(controlPlane.producerIdCalls).hasValue(0);
    }

    @Test
    void unreachableCoordinatorsAreCoordinatorLoadInProgressWhichProducersRetry() {
        controlPlane.failNext(Kind.UNAVAILABLE, "no leader");

        InitProducerIdResponse response = init(5, idempotent());

        assertThat(response.error()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(init(5, idempotent()).error()).isEqualTo(Errors.NONE);
    }
}
