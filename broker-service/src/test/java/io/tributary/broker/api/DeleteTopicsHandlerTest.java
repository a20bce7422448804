package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.broker.cluster.ControlPlaneException.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DeleteTopicsHandlerTest {

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(1);
    private final FakeMetadataView metadata = FakeMetadataView.following(controlPlane, 0);
    private final DeleteTopicsHandler handler =
            new DeleteTopicsHandler(metadata, controlPlane, AdminApiConfig.defaults());
    private Uuid ordersId;

    @BeforeEach
    void createTopics() {
        ordersId = controlPlane.createTopic("orders", 1, 1, Map.of()).topic().id();
        controlPlane.createTopic("events", 1, 1, Map.of());
    }

    static IntStream allVersions() {
        return IntStream.rangeClosed(ApiKeys.DELETE_TOPICS.oldestVersion(), ApiKeys.DELETE_TOPICS.latestVersion());
    }

    private DeleteTopicsResponse deleteByName(int version, String... names) {
        var data = new DeleteTopicsRequestData().setTimeoutMs(30_000);
        if (version >= 6) {
            for (String name : names) {
                data.topics().add(new DeleteTopicState().setName(name));
            }
        } else {
            data.setTopicNames(List.of(names));
        }
        return Wire.call(handler, new DeleteTopicsRequest.Builder(data), version);
    }

    private DeleteTopicsResponse delete(DeleteTopicState... topics) {
        var data = new DeleteTopicsRequestData().setTimeoutMs(30_000).setTopics(List.of(topics));
        return Wire.call(handler, new DeleteTopicsRequest.Builder(data), 6);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("allVersions")
    void deletesByNameAndWaitsUntilThisBrokerNoLongerSeesTheTopic(int version) {
        DeleteTopicsResponse response = deleteByName(version, "orders", "missing", "bad name");

        assertThat(response.data().responses())
                .extracting(DeletableTopicResult::name, DeletableTopicResult::errorCode)
                .containsExactly(
                        tuple("orders", Errors.NONE.code()),
                        tuple("missing", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                        tuple("bad name", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
        assertThat(controlPlane.image().topic("orders")).isEmpty();
        assertThat(metadata.waits).containsExactly(Duration.ofSeconds(15));
        if (version >= 6) {
            assertThat(response.data().responses().find("orders").topicId()).isEqualTo(ordersId);
        }
    }

    @Test
    void deletesByTopicIdAndAnUnknownIdIsUnknownTopicId() {
        Uuid unknown = Uuid.randomUuid();

        DeleteTopicsResponse response =
                delete(new DeleteTopicState().setTopicId(ordersId), new DeleteTopicState().setTopicId(unknown));

        assertThat(response.data().responses())
                .extracting(DeletableTopicResult::name, DeletableTopicResult::topicId, DeletableTopicResult::errorCode)
                .containsExactly(
                        tuple("orders", ordersId, Errors.NONE.code()),
                        tuple(null, unknown, Errors.UNKNOWN_TOPIC_ID.code()));
        assertThat(controlPlane.image().topic("orders")).isEmpty();
    }

    @Test
    void bothNameAndIdOrATopicGivenTwiceIsAnInvalidRequest() {
        DeleteTopicsResponse response = delete(
                new DeleteTopicState().setName("orders").setTopicId(ordersId),
                new DeleteTopicState().setName("events"),
                new DeleteTopicState().setName("events"));

        assertThat(response.data().responses())
                .extracting(DeletableTopicResult::name, DeletableTopicResult::errorCode)
                .containsExactly(
                        tuple("orders", Errors.INVALID_REQUEST.code()), tuple("events", Errors.INVALID_REQUEST.code()));
        assertThat(controlPlane.image().topics()).containsOnlyKeys("orders", "events");
    }

    @Test
    void aDeletionThisBrokerDoesNotSeeInTimeIsRequestTimedOut() {
        metadata.freeze();

        DeleteTopicsResponse response = deleteByName(6, "orders");

        assertThat(response.data().responses().find("orders").errorCode()).isEqualTo(Errors.REQUEST_TIMED_OUT.code());
    }

    @Test
    void anUnreachableCoordinatorIsNotController() {
        controlPlane.failNext(Kind.NOT_COMMITTED, "leadership moved");

        DeleteTopicsResponse response = deleteByName(6, "orders");

        assertThat(response.data().responses().find("orders").errorCode()).isEqualTo(Errors.NOT_CONTROLLER.code());
        assertThat(response.data().responses().find("orders").errorMessage()).isEqualTo("leadership moved");
    }
}
