package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.broker.api.AdminApiConfig.AutoCreateTopics;
import io.tributary.broker.cluster.ControlPlaneException.Kind;
import io.tributary.broker.log.TopicConfigDefaults;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class MetadataHandlerTest {

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(2);
    private final AdminApiConfig config = AdminApiConfig.defaults();

    private MetadataHandler handler(int self) {
        return new MetadataHandler(FakeMetadataView.fixed(TestImages.cluster(), self), controlPlane, config);
    }

    static IntStream allVersions() {
        return IntStream.rangeClosed(ApiKeys.METADATA.oldestVersion(), ApiKeys.METADATA.latestVersion());
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("allVersions")
    void allTopicsAnswerListsAliveClientBrokersEveryTopicAndTheClusterIdentity(int version) {
        // kafka-clients no longer builds v0 (where an empty list means all topics); brokers still parse it
        MetadataResponse response = version == 0
                ? Wire.call(handler(0), new MetadataRequest(new MetadataRequestData().setTopics(List.of()), (short) 0))
                : Wire.call(handler(0), MetadataRequest.Builder.allTopics(), version);

        assertThat(response.data().brokers())
                .extracting(b -> b.nodeId(), b -> b.host(), b -> b.port())
                .containsExactly(tuple(0, "host-0", 9092), tuple(1, "host-1", 9093));
        assertThat(response.data().topics())
                .extracting(MetadataResponseTopic::name)
                .containsExactly("events", "orders");
        if (version >= 1) {
            assertThat(response.data().controllerId()).isZero();
            assertThat(response.data().brokers().find(1).rack()).isEqualTo("rack-1");
        }
        if (version >= 2) {
            assertThat(response.data().clusterId()).isEqualTo(AdminApiConfig.DEFAULT_CLUSTER_ID);
        }
        if (version >= 10) {
            assertThat(response.data().topics().find("orders").topicId()).isEqualTo(TestImages.ORDERS_ID);
        }
    }

    @Test
    void partitionsCarryLeaderEpochReplicasIsrAndReplicasOnDeadOrUnknownBrokersAsOffline() {
        MetadataResponse response = Wire.call(handler(0), new MetadataRequest.Builder(List.of("orders"), false), 12);

        MetadataResponseTopic orders = response.data().topics().find("orders");
        assertThat(orders.errorCode()).isEqualTo(Errors.NONE.code());
        MetadataResponsePartition p0 = orders.partitions().get(0);
        assertThat(p0.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(p0.leaderId()).isZero();
        assertThat(p0.leaderEpoch()).isEqualTo(5);
        assertThat(p0.replicaNodes()).containsExactly(0, 1, 9);
        assertThat(p0.isrNodes()).containsExactly(0, 1);
        assertThat(p0.offlineReplicas()).containsExactly(9);
    }

    @Test
    void aPartitionWithoutALeaderOrLedByAFencedBrokerIsLeaderNotAvailableWithLeaderMinusOne() {
        MetadataResponse response = Wire.call(handler(0), new MetadataRequest.Builder(List.of("orders"), false), 12);

        List<MetadataResponsePartition> partitions =
                response.data().topics().find("orders").partitions();
        assertThat(partitions.subList(1, 3))
                .extracting(
                        MetadataResponsePartition::partitionIndex,
                        MetadataResponsePartition::errorCode,
                        MetadataResponsePartition::leaderId,
                        MetadataResponsePartition::leaderEpoch)
                .containsExactly(
                        tuple(1, Errors.LEADER_NOT_AVAILABLE.code(), -1, 3),
                        tuple(2, Errors.LEADER_NOT_AVAILABLE.code(), -1, 7));
        assertThat(partitions.get(2).offlineReplicas()).containsExactly(2);
    }

    @Test
    void theControllerIsThisBrokerWhenAliveElseTheLowestAliveBroker() {
        assertThat(Wire.<MetadataResponse>call(handler(1), MetadataRequest.Builder.allTopics(), 12)
                        .data()
                        .controllerId())
                .isEqualTo(1);
        assertThat(Wire.<MetadataResponse>call(handler(2), MetadataRequest.Builder.allTopics(), 12)
                        .data()
                        .controllerId())
                .isZero();
    }

    @Test
    void anUnknownTopicIsUnknownTopicOrPartitionAndIsNotCreated() {
        MetadataResponse response =
                Wire.call(handler(0), new MetadataRequest.Builder(List.of("nope", "orders"), true), 12);

        assertThat(response.data().topics())
                .extracting(MetadataResponseTopic::name, MetadataResponseTopic::errorCode)
                .containsExactly(
                        tuple("nope", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()), tuple("orders", Errors.NONE.code()));
        assertThat(controlPlane.image().topics()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"bad name", "..", ".", "a/b"})
    void anIllegalTopicNameIsInvalidTopicException(String name) {
        MetadataResponse response = Wire.call(handler(0), new MetadataRequest.Builder(List.of(name), true), 12);

        assertThat(response.data().topics().iterator().next().errorCode())
                .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
    }

    @Test
    void aTopicNameLongerThan249CharactersIsInvalidTopicException() {
        MetadataResponse response =
                Wire.call(handler(0), new MetadataRequest.Builder(List.of("t".repeat(250)), false), 12);

        assertThat(response.data().topics().iterator().next().errorCode())
                .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
    }

    @Test
    void topicsAskedForByIdAreFoundAndAnUnknownIdIsUnknownTopicIdWithoutAName() {
        Uuid unknown = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAw");
        MetadataResponse response =
                Wire.call(handler(0), MetadataRequest.Builder.forTopicIds(Set.of(TestImages.EVENTS_ID, unknown)), 12);

        assertThat(response.data().topics())
                .extracting(
                        MetadataResponseTopic::topicId, MetadataResponseTopic::name, MetadataResponseTopic::errorCode)
                .containsExactlyInAnyOrder(
                        tuple(TestImages.EVENTS_ID, "events", Errors.NONE.code()),
                        tuple(unknown, null, Errors.UNKNOWN_TOPIC_ID.code()));
    }

    @Test
    void topicIdsBeforeVersion12AreAnInvalidRequest() {
        var data = new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestTopic().setName("orders").setTopicId(TestImages.ORDERS_ID)));
        var request = new MetadataRequest(data, (short) 11);

        assertThatThrownBy(() -> handler(0)
                        .handle(new io.tributary.common.protocol.KafkaRequest(
                                new org.apache.kafka.common.requests.RequestHeader(
                                        ApiKeys.METADATA, (short) 11, "c", 1),
                                request,
                                new io.tributary.common.protocol.ConnectionInfo(
                                        "c", new java.net.InetSocketAddress("127.0.0.1", 1), "test"))))
                .isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void aTopicAskedForTwiceIsAnsweredOnce() {
        MetadataResponse response =
                Wire.call(handler(0), new MetadataRequest.Builder(List.of("orders", "orders"), false), 12);

        assertThat(response.data().topics()).hasSize(1);
    }

    @Test
    void authorizedOperationsAreAllOperationsWhenAskedFor() {
        var data = new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestTopic().setName("orders")))
                .setIncludeClusterAuthorizedOperations(true)
                .setIncludeTopicAuthorizedOperations(true);
        MetadataResponse response = Wire.call(handler(0), new MetadataRequest.Builder(data), 10);

        assertThat(Utils.from32BitField(response.data().clusterAuthorizedOperations()))
                .contains(
                        AclOperation.CREATE.code(), AclOperation.DESCRIBE.code(), AclOperation.IDEMPOTENT_WRITE.code());
        assertThat(Utils.from32BitField(response.data().topics().find("orders").topicAuthorizedOperations()))
                .contains(AclOperation.READ.code(), AclOperation.WRITE.code(), AclOperation.DELETE.code());
    }

    @Test
    void authorizedOperationsAreOmittedWhenNotAskedFor() {
        MetadataResponse response = Wire.call(handler(0), new MetadataRequest.Builder(List.of("orders"), false), 10);

        assertThat(response.data().clusterAuthorizedOperations()).isEqualTo(Integer.MIN_VALUE);
        assertThat(response.data().topics().find("orders").topicAuthorizedOperations())
                .isEqualTo(Integer.MIN_VALUE);
    }

    private MetadataHandler autoCreating() {
        var autoCreate = new AdminApiConfig(
                "c", 3, (short) 2, AutoCreateTopics.ENABLED, 10, Duration.ofSeconds(1), TopicConfigDefaults.kafka());
        return new MetadataHandler(FakeMetadataView.following(controlPlane, 0), controlPlane, autoCreate);
    }

    @Test
    void autoCreationCreatesAMissingTopicWithTheDefaultsAndAnswersLeaderNotAvailable() {
        MetadataResponse response = Wire.call(autoCreating(), new MetadataRequest.Builder(List.of("fresh"), true), 12);

        assertThat(response.data().topics().find("fresh").errorCode()).isEqualTo(Errors.LEADER_NOT_AVAILABLE.code());
        var created = controlPlane.image().topic("fresh").orElseThrow();
        assertThat(created.partitions()).hasSize(3);
        assertThat(created.partitions().getFirst().replicas()).hasSize(2);
    }

    @Test
    void autoCreationIsSkippedWhenTheClientDisallowsIt() {
        MetadataResponse response = Wire.call(autoCreating(), new MetadataRequest.Builder(List.of("fresh"), false), 12);

        assertThat(response.data().topics().find("fresh").errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(controlPlane.image().topics()).isEmpty();
    }

    @Test
    void autoCreationNeverCreatesAnIllegalName() {
        MetadataResponse response =
                Wire.call(autoCreating(), new MetadataRequest.Builder(List.of("bad name"), true), 12);

        assertThat(response.data().topics().iterator().next().errorCode())
                .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
        assertThat(controlPlane.writes).hasValue(0);
    }

    @Test
    void autoCreationRefusedByTheCoordinatorsReportsTheirErrorAndUnreachableOnesLeaderNotAvailable() {
        controlPlane.failNext(Kind.INVALID_REPLICATION_FACTOR, "only 1 live broker");
        MetadataResponse refused = Wire.call(autoCreating(), new MetadataRequest.Builder(List.of("a"), true), 12);
        controlPlane.failNext(Kind.UNAVAILABLE, "no leader");
        MetadataResponse unavailable = Wire.call(autoCreating(), new MetadataRequest.Builder(List.of("b"), true), 12);

        assertThat(refused.data().topics().find("a").errorCode()).isEqualTo(Errors.INVALID_REPLICATION_FACTOR.code());
        assertThat(unavailable.data().topics().find("b").errorCode()).isEqualTo(Errors.LEADER_NOT_AVAILABLE.code());
    }
}
