package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.broker.cluster.ControlPlaneException.Kind;
import io.tributary.broker.log.TopicConfigCatalog;
import io.tributary.broker.log.TopicConfigDefaults;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CreateTopicsHandlerTest {

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(3);
    private final FakeMetadataView metadata = FakeMetadataView.following(controlPlane, 0);
    private final AdminApiConfig config = new AdminApiConfig(
            "c",
            4,
            (short) 2,
            AdminApiConfig.AutoCreateTopics.DISABLED,
            10,
            Duration.ofSeconds(5),
            TopicConfigDefaults.kafka());
    private final CreateTopicsHandler handler = new CreateTopicsHandler(metadata, controlPlane, config);

    static IntStream allVersions() {
        return IntStream.rangeClosed(ApiKeys.CREATE_TOPICS.oldestVersion(), ApiKeys.CREATE_TOPICS.latestVersion());
    }

    private static CreatableTopic topic(String name, int partitions, int replicationFactor) {
        return new CreatableTopic().setName(name).setNumPartitions(partitions).setReplicationFactor((short)
                replicationFactor);
    }

    private CreateTopicsResponse create(int version, boolean validateOnly, int timeoutMs, CreatableTopic... topics) {
        var data = new CreateTopicsRequestData().setTimeoutMs(timeoutMs).setValidateOnly(validateOnly);
        for (CreatableTopic t : topics) {
            data.topics().add(t);
        }
        return Wire.call(handler, new CreateTopicsRequest.Builder(data), version);
    }

    private static CreatableTopicResult result(CreateTopicsResponse response, String name) {
        return response.data().topics().find(name);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("allVersions")
    void createsTheTopicThroughTheControlPlaneAndWaitsUntilThisBrokerSeesIt(int version) {
        CreateTopicsResponse response = create(version, false, 30_000, topic("orders", 6, 3));

        CreatableTopicResult result = result(response, "orders");
        assertThat(result.errorCode()).isEqualTo(Errors.NONE.code());
        var created = controlPlane.image().topic("orders").orElseThrow();
        assertThat(created.partitions()).hasSize(6);
        assertThat(created.partitions())
                .allSatisfy(p -> assertThat(p.replicas()).hasSize(3));
        assertThat(metadata.waits).containsExactly(Duration.ofSeconds(5));
        if (version >= 5) {
            assertThat(result.numPartitions()).isEqualTo(6);
            assertThat(result.replicationFactor()).isEqualTo((short) 3);
            assertThat(result.configs())
                    .extracting(CreatableTopicConfigs::name)
                    .containsExactlyElementsOf(TopicConfigCatalog.names());
        }
        if (version >= 7) {
            assertThat(result.topicId()).isEqualTo(created.id());
        }
    }

    @Test
    void minusOneTakesTheBrokerDefaults() {
        CreateTopicsResponse response = create(7, false, 30_000, topic("orders", -1, -1));

        assertThat(result(response, "orders").numPartitions()).isEqualTo(4);
        assertThat(result(response, "orders").replicationFactor()).isEqualTo((short) 2);
        assertThat(controlPlane.image().topic("orders").orElseThrow().partitions())
                .hasSize(4);
    }

    @Test
    void configsAreValidatedNormalizedStoredAndReportedWithTheirSource() {
        CreatableTopic topic = topic("orders", 1, 1);
        topic.configs().add(new CreatableTopicConfig().setName("retention.ms").setValue(" 3600000"));
        topic.configs().add(new CreatableTopicConfig().setName("cleanup.policy").setValue("delete, compact"));

        CreateTopicsResponse response = create(7, false, 30_000, topic);

        assertThat(controlPlane.image().topic("orders").orElseThrow().configs())
                .containsOnly(
                        java.util.Map.entry("retention.ms", "3600000"),
                        java.util.Map.entry("cleanup.policy", "compact,delete"));
        assertThat(result(response, "orders").configs())
                .filteredOn(c -> c.name().equals("retention.ms") || c.name().equals("segment.ms"))
                .extracting(
                        CreatableTopicConfigs::name, CreatableTopicConfigs::value, CreatableTopicConfigs::configSource)
                .containsExactly(
                        tuple("retention.ms", "3600000", ConfigSource.TOPIC_CONFIG.id()),
                        tuple("segment.ms", "604800000", ConfigSource.DEFAULT_CONFIG.id()));
    }

    @Test
    void clientMistakesGetTheirOwnErrorAndNothingIsWritten() {
        CreatableTopic badConfig = topic("bad-config", 1, 1);
        badConfig
                .configs()
                .add(new CreatableTopicConfig().setName("retention.ms").setValue("soon"));
        CreatableTopic unknownConfig = topic("unknown-config", 1, 1);
        unknownConfig
                .configs()
                .add(new CreatableTopicConfig().setName("preallocate").setValue("true"));
        CreatableTopic nullConfig = topic("null-config", 1, 1);
        nullConfig
                .configs()
                .add(new CreatableTopicConfig().setName("retention.ms").setValue(null));
        CreatableTopic assigned = topic("assigned", -1, -1);
        assigned.assignments()
                .add(new CreatableReplicaAssignment().setPartitionIndex(0).setBrokerIds(List.of(0)));

        CreateTopicsResponse response = create(
                7,
                false,
                30_000,
                topic("bad name", 1, 1),
                topic("t".repeat(250), 1, 1),
                topic("zero-partitions", 0, 1),
                topic("negative-partitions", -2, 1),
                topic("zero-replicas", 1, 0),
                badConfig,
                unknownConfig,
                nullConfig,
                assigned);

        assertThat(response.data().topics())
                .extracting(CreatableTopicResult::name, CreatableTopicResult::errorCode)
                .containsExactly(
                        tuple("bad name", Errors.INVALID_TOPIC_EXCEPTION.code()),
                        tuple("t".repeat(250), Errors.INVALID_TOPIC_EXCEPTION.code()),
                        tuple("zero-partitions", Errors.INVALID_PARTITIONS.code()),
                        tuple("negative-partitions", Errors.INVALID_PARTITIONS.code()),
                        tuple("zero-replicas", Errors.INVALID_REPLICATION_FACTOR.code()),
                        tuple("bad-config", Errors.INVALID_CONFIG.code()),
                        tuple("unknown-config", Errors.INVALID_CONFIG.code()),
                        tuple("null-config", Errors.INVALID_CONFIG.code()),
                        tuple("assigned", Errors.INVALID_REQUEST.code()));
        assertThat(response.data().topics())
                .allSatisfy(r -> assertThat(r.errorMessage()).isNotBlank());
        assertThat(controlPlane.writes).hasValue(0);
    }

    @Test
    void aTopicNamedTwiceIsAnInvalidRequestAnsweredOnce() {
        CreateTopicsResponse response = create(7, false, 30_000, topic("twice", 1, 1), topic("twice", 2, 1));

        assertThat(response.data().topics()).hasSize(1);
        assertThat(result(response, "twice").errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(controlPlane.writes).hasValue(0);
    }

    @Test
    void theCoordinatorsRefusalsBecomeKafkaErrorsWithTheirDetail() {
        create(7, false, 30_000, topic("exists", 1, 1));

        CreateTopicsResponse response =
                create(7, false, 30_000, topic("exists", 1, 1), topic("too-many-replicas", 1, 4));

        assertThat(result(response, "exists").errorCode()).isEqualTo(Errors.TOPIC_ALREADY_EXISTS.code());
        assertThat(result(response, "too-many-replicas").errorCode())
                .isEqualTo(Errors.INVALID_REPLICATION_FACTOR.code());
        assertThat(result(response, "too-many-replicas").errorMessage()).contains("3 live brokers");
    }

    @Test
    void anExistingTopicIsRefusedWithKafkasOwnMessageWhetherValidatingOrCreating() {
        create(7, false, 30_000, topic("exists", 1, 1));

        CreateTopicsResponse created = create(7, false, 30_000, topic("exists", 1, 1));
        CreateTopicsResponse validated = create(7, true, 30_000, topic("exists", 1, 1));

        assertThat(result(created, "exists").errorMessage()).isEqualTo("Topic 'exists' already exists.");
        assertThat(result(validated, "exists").errorMessage()).isEqualTo("Topic 'exists' already exists.");
    }

    @Test
    void anUnreachableCoordinatorIsNotControllerWhichTheAdminClientRetries() {
        controlPlane.failNext(Kind.UNAVAILABLE, "no leader among the coordinators");

        CreateTopicsResponse response = create(7, false, 30_000, topic("orders", 1, 1));

        assertThat(result(response, "orders").errorCode()).isEqualTo(Errors.NOT_CONTROLLER.code());
        assertThat(result(response, "orders").errorMessage()).isEqualTo("no leader among the coordinators");
    }

    @Test
    void validateOnlyChecksWithoutCreating() {
        create(7, false, 30_000, topic("exists", 1, 1));
        int writes = controlPlane.writes.get();

        CreateTopicsResponse response =
                create(7, true, 30_000, topic("fine", 3, 3), topic("exists", 1, 1), topic("too-many-replicas", 1, 4));

        assertThat(response.data().topics())
                .extracting(CreatableTopicResult::name, CreatableTopicResult::errorCode)
                .containsExactly(
                        tuple("fine", Errors.NONE.code()),
                        tuple("exists", Errors.TOPIC_ALREADY_EXISTS.code()),
                        tuple("too-many-replicas", Errors.INVALID_REPLICATION_FACTOR.code()));
        assertThat(result(response, "fine").numPartitions()).isEqualTo(3);
        assertThat(result(response, "fine").topicId()).isEqualTo(Uuid.ZERO_UUID);
        assertThat(controlPlane.writes).hasValue(writes);
        assertThat(controlPlane.image().topic("fine")).isEmpty();
    }

    @Test
    void validateOnlyCountsAFencedBrokerForTheReplicationFactorAsThePlacementDoes() {
        controlPlane.addBroker(3, 9095, true);

        CreateTopicsResponse response =
                create(7, true, 30_000, topic("with-the-fenced-one", 1, 4), topic("one-too-many", 1, 5));

        assertThat(response.data().topics())
                .extracting(CreatableTopicResult::name, CreatableTopicResult::errorCode)
                .containsExactly(
                        tuple("with-the-fenced-one", Errors.NONE.code()),
                        tuple("one-too-many", Errors.INVALID_REPLICATION_FACTOR.code()));
        assertThat(result(response, "one-too-many").errorMessage())
                .isEqualTo("replication factor 5 is larger than the 4 registered brokers");
    }

    @Test
    void aTopicThisBrokerDoesNotSeeWithinTheTimeoutIsRequestTimedOut() {
        metadata.freeze();

        CreateTopicsResponse response = create(7, false, 1_500, topic("orders", 1, 1));

        assertThat(result(response, "orders").errorCode()).isEqualTo(Errors.REQUEST_TIMED_OUT.code());
        assertThat(result(response, "orders").errorMessage()).contains("was created");
        assertThat(metadata.waits).containsExactly(Duration.ofMillis(1_500));
        assertThat(controlPlane.image().topic("orders")).isPresent();
    }

    @Test
    void aTimeoutOfZeroDoesNotWait() {
        CreateTopicsResponse response = create(7, false, 0, topic("orders", 1, 1));

        assertThat(result(response, "orders").errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(metadata.waits).containsExactly(Duration.ZERO);
    }
}
