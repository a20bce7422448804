package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.BrokerListeners;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import io.tributary.broker.cluster.GroupCoordinatorLocator.Lookup;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.common.app.KafkaListenerConfiguration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kafka's listener rule: Metadata, DescribeCluster, FindCoordinator and ListGroups answer a request
 * with the endpoints registered under the name of the listener it came in on, and leave out brokers
 * without one. The image: broker 0 internal only; 1 and 3 internal and external; 2 both but fenced.
 * Topic {@code t}: p0 led by 0, p1 led by 1.
 */
class ListenerAnswersTest {

    private static final String INTERNAL = KafkaListenerConfiguration.LISTENER_NAME;
    private static final String EXTERNAL = BrokerListeners.EXTERNAL_SERVER_NAME;

    private final AdminApiConfig config = AdminApiConfig.defaults();

    static ClusterImage image() {
        Map<Integer, BrokerInfo> brokers = Map.of(
                0, broker(0, false, List.of(internal(0))),
                1, broker(1, false, List.of(internal(1), external(1))),
                2, broker(2, true, List.of(internal(2), external(2))),
                3, broker(3, false, List.of(internal(3), external(3))));
        TopicInfo t = new TopicInfo(
                "t",
                Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAw"),
                Map.of(),
                List.of(
                        new PartitionInfo(0, List.of(0, 1), 0, 4, List.of(0, 1), 6),
                        new PartitionInfo(1, List.of(1, 3), 1, 2, List.of(1, 3), 3)));
        return new ClusterImage(7, brokers, Map.of("t", t));
    }

    private static BrokerEndpoint internal(int id) {
        return new BrokerEndpoint(BrokerListeners.INTERNAL, "broker-" + id + ".svc", 9092);
    }

    private static BrokerEndpoint external(int id) {
        return new BrokerEndpoint(BrokerListeners.EXTERNAL, "kafka.example.com", 31092 + id);
    }

    private static BrokerInfo broker(int id, boolean fenced, List<BrokerEndpoint> endpoints) {
        return new BrokerInfo(id, Uuid.randomUuid(), endpoints, "rack-" + id, fenced);
    }

    private MetadataHandler metadata(int self) {
        return new MetadataHandler(FakeMetadataView.fixed(image(), self), FakeControlPlane.withBrokers(4), config);
    }

    static IntStream metadataVersions() {
        return IntStream.rangeClosed(1, ApiKeys.METADATA.latestVersion());
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("metadataVersions")
    void metadataOnTheExternalListenerListsOnlyTheExternalAddressesOfBrokersThatHaveOne(int version) {
        MetadataResponse response =
                Wire.callOn(EXTERNAL, metadata(0), new MetadataRequest.Builder(List.of("t"), version < 4), version);

        assertThat(response.data().brokers())
                .extracting(b -> b.nodeId(), b -> b.host(), b -> b.port())
                .containsExactly(tuple(1, "kafka.example.com", 31093), tuple(3, "kafka.example.com", 31095));
        assertThat(response.data().controllerId())
                .as("broker 0 has no external listener: the lowest broker that has")
                .isEqualTo(1);
        List<MetadataResponsePartition> partitions =
                response.data().topics().find("t").partitions();
        assertThat(partitions.get(0).leaderId()).isEqualTo(-1);
        assertThat(partitions.get(0).errorCode())
                .as("leader 0 is alive without an external endpoint: Kafka's LISTENER_NOT_FOUND from v6")
                .isEqualTo(version >= 6 ? Errors.LISTENER_NOT_FOUND.code() : Errors.LEADER_NOT_AVAILABLE.code());
        assertThat(partitions.get(0).replicaNodes()).containsExactly(0, 1);
        assertThat(partitions.get(0).offlineReplicas()).isEmpty();
        assertThat(partitions.get(1).leaderId()).isEqualTo(1);
        assertThat(partitions.get(1).errorCode()).isEqualTo(Errors.NONE.code());
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("metadataVersions")
    void metadataOnTheInternalListenerListsTheInternalAddressesOfEveryAliveBroker(int version) {
        MetadataResponse response =
                Wire.callOn(INTERNAL, metadata(0), new MetadataRequest.Builder(List.of("t"), version < 4), version);

        assertThat(response.data().brokers())
                .extracting(b -> b.nodeId(), b -> b.host(), b -> b.port())
                .containsExactly(
                        tuple(0, "broker-0.svc", 9092), tuple(1, "broker-1.svc", 9092), tuple(3, "broker-3.svc", 9092));
        assertThat(response.data().controllerId()).isZero();
        assertThat(response.data().topics().find("t").partitions())
                .extracting(MetadataResponsePartition::leaderId, MetadataResponsePartition::errorCode)
                .containsExactly(tuple(0, Errors.NONE.code()), tuple(1, Errors.NONE.code()));
    }

    @Test
    void describeClusterAnswersTheExternalAddressesOnTheExternalListenerFencedIncludedWhenAsked() {
        var handler = new DescribeClusterHandler(FakeMetadataView.fixed(image(), 3), config);
        var data = new DescribeClusterRequestData().setIncludeFencedBrokers(true);

        DescribeClusterResponse external = Wire.callOn(EXTERNAL, handler, new DescribeClusterRequest.Builder(data), 2);
        DescribeClusterResponse internal = Wire.callOn(INTERNAL, handler, new DescribeClusterRequest.Builder(data), 2);

        assertThat(external.data().brokers())
                .extracting(b -> b.brokerId(), b -> b.host(), b -> b.port(), b -> b.isFenced())
                .containsExactly(
                        tuple(1, "kafka.example.com", 31093, false),
                        tuple(2, "kafka.example.com", 31094, true),
                        tuple(3, "kafka.example.com", 31095, false));
        assertThat(external.data().controllerId()).isEqualTo(3);
        assertThat(internal.data().brokers())
                .extracting(b -> b.brokerId(), b -> b.host())
                .containsExactly(
                        tuple(0, "broker-0.svc"),
                        tuple(1, "broker-1.svc"),
                        tuple(2, "broker-2.svc"),
                        tuple(3, "broker-3.svc"));
    }

    @Test
    void findCoordinatorAnswersThisBrokersAddressOnTheListenerTheRequestCameInOn() {
        var found = new Lookup.Found(new GroupCoordinator(0, "coordinator-0.svc", 9191));
        var metadata1 = FakeMetadataView.fixed(image(), 1);
        var handler1 =
                new FindCoordinatorHandler(() -> found, listener -> FindCoordinatorHandler.self(metadata1, listener));
        var metadata0 = FakeMetadataView.fixed(image(), 0);
        var handler0 =
                new FindCoordinatorHandler(() -> found, listener -> FindCoordinatorHandler.self(metadata0, listener));
        var request = new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                .setKeyType(CoordinatorType.GROUP.id())
                .setCoordinatorKeys(List.of("g")));

        FindCoordinatorResponse external = Wire.callOn(EXTERNAL, handler1, request, 6);
        FindCoordinatorResponse internal = Wire.callOn(INTERNAL, handler1, request, 6);
        FindCoordinatorResponse withoutExternal = Wire.callOn(EXTERNAL, handler0, request, 6);

        assertThat(external.data().coordinators())
                .extracting(c -> c.nodeId(), c -> c.host(), c -> c.port(), c -> c.errorCode())
                .containsExactly(tuple(1, "kafka.example.com", 31093, Errors.NONE.code()));
        assertThat(internal.data().coordinators())
                .extracting(c -> c.nodeId(), c -> c.host(), c -> c.port())
                .containsExactly(tuple(1, "broker-1.svc", 9092));
        assertThat(withoutExternal.data().coordinators())
                .extracting(c -> c.errorCode())
                .as("broker 0 is in no Metadata of the external listener")
                .containsExactly(Errors.COORDINATOR_NOT_AVAILABLE.code());
    }

    @Test
    void theBrokerThatListsGroupsIsTheLowestAliveOneOnTheRequestsListener() {
        assertThat(ListGroupsHandler.answeringBroker(image(), BrokerListeners.INTERNAL))
                .contains(0);
        assertThat(ListGroupsHandler.answeringBroker(image(), BrokerListeners.EXTERNAL))
                .contains(1);
    }

    @Test
    void everyListenerNameButTheExternalOneIsTheInternalListener() {
        assertThat(BrokerListeners.registeredName(EXTERNAL)).isEqualTo("EXTERNAL");
        assertThat(BrokerListeners.registeredName(INTERNAL)).isEqualTo("PLAINTEXT");
        assertThat(BrokerListeners.registeredName("test")).isEqualTo("PLAINTEXT");
    }
}
