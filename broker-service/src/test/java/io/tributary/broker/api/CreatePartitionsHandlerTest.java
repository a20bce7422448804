package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsAssignment;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CreatePartitionsHandlerTest {

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(2);
    private final FakeMetadataView metadata = FakeMetadataView.following(controlPlane, 0);
    private final CreatePartitionsHandler handler =
            new CreatePartitionsHandler(metadata, controlPlane, AdminApiConfig.defaults());

    @BeforeEach
    void createTopic() {
        controlPlane.createTopic("orders", 3, 2, Map.of());
    }

    static IntStream allVersions() {
        return IntStream.rangeClosed(
                ApiKeys.CREATE_PARTITIONS.oldestVersion(), ApiKeys.CREATE_PARTITIONS.latestVersion());
    }

    private static CreatePartitionsTopic grow(String name, int count) {
        return new CreatePartitionsTopic().setName(name).setCount(count).setAssignments(null);
    }

    private CreatePartitionsResponse call(int version, boolean validateOnly, CreatePartitionsTopic... topics) {
        var data = new CreatePartitionsRequestData().setTimeoutMs(30_000).setValidateOnly(validateOnly);
        for (CreatePartitionsTopic t : topics) {
            data.topics().add(t);
        }
        return Wire.call(handler, new CreatePartitionsRequest.Builder(data), version);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("allVersions")
    void growsTheTopicAndWaitsForIt(int version) {
        CreatePartitionsResponse response = call(version, false, grow("orders", 5));

        assertThat(response.data().results())
                .extracting(CreatePartitionsTopicResult::name, CreatePartitionsTopicResult::errorCode)
                .containsExactly(tuple("orders", Errors.NONE.code()));
        assertThat(controlPlane.image().topic("orders").orElseThrow().partitions())
                .hasSize(5);
        assertThat(metadata.waits).hasSize(1);
    }

    @Test
    void countsThatDoNotGrowUnknownTopicsAssignmentsAndRepeatsAreRefusedWithoutWriting() {
        var assigned = grow("orders", 4);
        assigned.setAssignments(List.of(new CreatePartitionsAssignment().setBrokerIds(List.of(0, 1))));

        CreatePartitionsResponse response = call(
                3,
                false,
                grow("orders", 3),
                grow("missing", 4),
                grow("bad name", 4),
                grow("twice", 4),
                grow("twice", 5));
        CreatePartitionsResponse shrink = call(3, false, grow("orders", 2));
        CreatePartitionsResponse zero = call(3, false, grow("orders", 0));
        CreatePartitionsResponse manual = call(3, false, assigned);

        assertThat(response.data().results())
                .extracting(CreatePartitionsTopicResult::name, CreatePartitionsTopicResult::errorCode)
                .containsExactly(
                        tuple("orders", Errors.INVALID_PARTITIONS.code()),
                        tuple("missing", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                        tuple("bad name", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                        tuple("twice", Errors.INVALID_REQUEST.code()));
        assertThat(shrink.data().results().getFirst().errorCode()).isEqualTo(Errors.INVALID_PARTITIONS.code());
        assertThat(shrink.data().results().getFirst().errorMessage()).contains("currently has 3");
        assertThat(zero.data().results().getFirst().errorCode()).isEqualTo(Errors.INVALID_PARTITIONS.code());
        assertThat(manual.data().results().getFirst().errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(controlPlane.image().topic("orders").orElseThrow().partitions())
                .hasSize(3);
    }

    @Test
    void validateOnlyChecksAgainstThisBrokersImageWithoutWriting() {
        int writes = controlPlane.writes.get();

        CreatePartitionsResponse response = call(3, true, grow("orders", 6), grow("missing", 2));

        assertThat(response.data().results())
                .extracting(CreatePartitionsTopicResult::name, CreatePartitionsTopicResult::errorCode)
                .containsExactly(
                        tuple("orders", Errors.NONE.code()),
                        tuple("missing", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
        assertThat(controlPlane.writes).hasValue(writes);
    }

    @Test
    void growthThisBrokerDoesNotSeeInTimeIsRequestTimedOut() {
        metadata.freeze();

        CreatePartitionsResponse response = call(3, false, grow("orders", 4));

        assertThat(response.data().results().getFirst().errorCode()).isEqualTo(Errors.REQUEST_TIMED_OUT.code());
    }
}
