package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admin APIs' per-item ACL checks over a real ACL set ({@link TestAcls}) for the caller {@link
 * Wire} sends as, with Kafka's answers: CreateTopics, DeleteTopics, CreatePartitions,
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs. Topics {@code orders} and {@code
 * events} exist.
 */
class AdminAuthorizationTest {

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(3);
    private final FakeMetadataView metadata = FakeMetadataView.following(controlPlane, 0);
    private final AdminApiConfig config = AdminApiConfig.defaults();
    private final TestAcls acls = TestAcls.wire();
    private Uuid eventsId;

    @BeforeEach
    void topics() {
        controlPlane.createTopic("orders", 1, 1, Map.of());
        eventsId = controlPlane.createTopic("events", 1, 1, Map.of()).topic().id();
    }

    private CreateTopicsResponse create(String... names) {
        var data = new CreateTopicsRequestData().setTimeoutMs(5000);
        for (String name : names) {
            data.topics()
                    .add(new CreatableTopic().setName(name).setNumPartitions(2).setReplicationFactor((short) 1));
        }
        var handler = new CreateTopicsHandler(metadata, controlPlane, config, acls.access);
        return Wire.call(handler, new CreateTopicsRequest.Builder(data), 7);
    }

    @Test
    void createTopicsNeedsCreateOnTheTopicAndWithholdsConfigsWithoutDescribeConfigs() {
        acls.allow(AclResourceType.TOPIC, "new-a", AclOperation.CREATE)
                .allow(AclResourceType.TOPIC, "new-b", AclOperation.CREATE)
                .allow(AclResourceType.TOPIC, "new-b", AclOperation.DESCRIBE_CONFIGS);

        var response = create("new-a", "new-b", "new-c", "bad/name").data().topics();

        var a = response.find("new-a");
        assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(a.topicConfigErrorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        assertThat(a.numPartitions()).isEqualTo(-1);
        assertThat(a.configs()).isEmpty();
        assertThat(controlPlane.image().topic("new-a")).isPresent();
        var b = response.find("new-b");
        assertThat(b.topicConfigErrorCode()).isEqualTo(Errors.NONE.code());
        assertThat(b.numPartitions()).isEqualTo(2);
        assertThat(b.configs()).isNotEmpty();
        for (String refused : List.of("new-c", "bad/name")) {
            assertThat(response.find(refused).errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(response.find(refused).errorMessage()).isEqualTo(CreateTopicsHandler.AUTHORIZATION_FAILED);
        }
        assertThat(controlPlane.image().topic("new-c")).isEmpty();
    }

    @Test
    void createOnTheClusterAllowsEveryTopic() {
        acls.allowOnCluster(AclOperation.CREATE);

        var response = create("new-a").data().topics();

        assertThat(response.find("new-a").errorCode()).isEqualTo(Errors.NONE.code());
    }

    private List<DeletableTopicResult> delete(DeleteTopicState... topics) {
        var handler = new DeleteTopicsHandler(metadata, controlPlane, config, acls.access);
        var data = new DeleteTopicsRequestData().setTimeoutMs(5000).setTopics(List.of(topics));
        DeleteTopicsResponse response = Wire.call(handler, new DeleteTopicsRequest.Builder(data), 6);
        return List.copyOf(response.data().responses());
    }

    @Test
    void deleteTopicsHidesWhatTheCallerMayNotDescribeAndRefusesWhatItMayNotDelete() {
        acls.allow(AclResourceType.TOPIC, "orders", AclOperation.DESCRIBE)
                .allow(AclResourceType.TOPIC, "missing", AclOperation.DESCRIBE);

        var results = delete(
                new DeleteTopicState().setName("orders"), // describable, not deletable
                new DeleteTopicState().setName("missing"), // describable, does not exist
                new DeleteTopicState().setName("hidden"), // not describable, does not exist
                new DeleteTopicState().setTopicId(eventsId)); // by id, neither

        assertThat(results)
                .extracting(
                        DeletableTopicResult::name, DeletableTopicResult::topicId, r -> Errors.forCode(r.errorCode()))
                .containsExactly(
                        tuple("orders", Uuid.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED),
                        tuple("missing", Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION),
                        tuple("hidden", Uuid.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED),
                        tuple(null, eventsId, Errors.TOPIC_AUTHORIZATION_FAILED));
        assertThat(controlPlane.image().topic("orders")).isPresent();
    }

    @Test
    void deleteTopicsDeletesWithDeleteOnTheTopicOrOnTheCluster() {
        acls.allow(AclResourceType.TOPIC, "orders", AclOperation.DELETE); // implies DESCRIBE

        assertThat(delete(new DeleteTopicState().setName("orders")).getFirst().errorCode())
                .isEqualTo(Errors.NONE.code());
        assertThat(delete(new DeleteTopicState().setTopicId(eventsId))
                        .getFirst()
                        .errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());

        acls.allowOnCluster(AclOperation.DELETE);
        assertThat(delete(new DeleteTopicState().setTopicId(eventsId))
                        .getFirst()
                        .errorCode())
                .isEqualTo(Errors.NONE.code());
    }

    @Test
    void createPartitionsNeedsAlterOnTheTopicWithoutClusterFallback() {
        acls.allow(AclResourceType.TOPIC, "orders", AclOperation.ALTER).allowOnCluster(AclOperation.ALTER);
        var data = new CreatePartitionsRequestData().setTimeoutMs(5000);
        data.topics()
                .add(new CreatePartitionsTopic().setName("orders").setCount(3).setAssignments(null));
        data.topics()
                .add(new CreatePartitionsTopic().setName("events").setCount(3).setAssignments(null));
        var handler = new CreatePartitionsHandler(metadata, controlPlane, config, acls.access);

        CreatePartitionsResponse response = Wire.call(handler, new CreatePartitionsRequest.Builder(data), 3);

        assertThat(response.data().results())
                .extracting(r -> r.name(), r -> Errors.forCode(r.errorCode()), r -> r.errorMessage())
                .containsExactly(
                        tuple("orders", Errors.NONE, null), tuple("events", Errors.TOPIC_AUTHORIZATION_FAILED, null));
        assertThat(controlPlane.image().topic("events").orElseThrow().partitions())
                .hasSize(1);
    }

    private static DescribeConfigsResource resource(ConfigResource.Type type, String name) {
        return new DescribeConfigsResource()
                .setResourceType(type.id())
                .setResourceName(name)
                .setConfigurationKeys(null);
    }

    @Test
    void describeConfigsAnswersRefusedResourcesAfterTheDescribedOnes() {
        acls.allow(AclResourceType.TOPIC, "events", AclOperation.ALTER_CONFIGS); // implies DESCRIBE_CONFIGS
        var data = new DescribeConfigsRequestData()
                .setResources(List.of(
                        resource(ConfigResource.Type.TOPIC, "orders"),
                        resource(ConfigResource.Type.BROKER, "0"),
                        resource(ConfigResource.Type.TOPIC, "events"),
                        resource(ConfigResource.Type.TOPIC, "missing")));
        var handler = new DescribeConfigsHandler(metadata, config, acls.access);

        DescribeConfigsResponse response = Wire.call(handler, new DescribeConfigsRequest.Builder(data), 4);

        assertThat(response.data().results())
                .extracting(
                        r -> r.resourceName(),
                        r -> Errors.forCode(r.errorCode()),
                        r -> r.configs().isEmpty())
                .containsExactly(
                        tuple("events", Errors.NONE, false),
                        tuple("orders", Errors.TOPIC_AUTHORIZATION_FAILED, true),
                        tuple("0", Errors.CLUSTER_AUTHORIZATION_FAILED, true),
                        tuple("missing", Errors.TOPIC_AUTHORIZATION_FAILED, true));
    }

    @Test
    void alteringConfigsNeedsAlterConfigsOnEachResource() {
        acls.allow(AclResourceType.TOPIC, "orders", AclOperation.ALTER_CONFIGS);
        var incremental = new IncrementalAlterConfigsRequestData();
        for (String topic : List.of("orders", "events")) {
            var resource = new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                    .setResourceType(ConfigResource.Type.TOPIC.id())
                    .setResourceName(topic);
            resource.configs()
                    .add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                            .setName("retention.ms")
                            .setValue("1000")
                            .setConfigOperation(AlterConfigOp.OpType.SET.id()));
            incremental.resources().add(resource);
        }
        incremental
                .resources()
                .add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                        .setResourceType(ConfigResource.Type.BROKER.id())
                        .setResourceName("0"));
        IncrementalAlterConfigsResponse altered = Wire.call(
                new IncrementalAlterConfigsHandler(metadata, controlPlane, config, acls.access),
                new IncrementalAlterConfigsRequest.Builder(incremental),
                1);

        assertThat(altered.data().responses())
                .extracting(r -> r.resourceName(), r -> Errors.forCode(r.errorCode()))
                .containsExactly(
                        tuple("orders", Errors.NONE),
                        tuple("events", Errors.TOPIC_AUTHORIZATION_FAILED),
                        tuple("0", Errors.CLUSTER_AUTHORIZATION_FAILED));
        assertThat(controlPlane.image().topic("orders").orElseThrow().configs()).containsEntry("retention.ms", "1000");

        var legacy = new AlterConfigsRequest.Builder(
                Map.of(
                        new ConfigResource(ConfigResource.Type.TOPIC, "events"),
                        new AlterConfigsRequest.Config(List.of())),
                false);
        AlterConfigsResponse refused =
                Wire.call(new AlterConfigsHandler(metadata, controlPlane, config, acls.access), legacy, 2);
        assertThat(refused.data().responses().getFirst().errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }
}
