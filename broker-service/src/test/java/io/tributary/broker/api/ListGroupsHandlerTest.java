package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import io.tributary.broker.cluster.CoordinatorGroupsClient;
import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.broker.log.TopicConfigDefaults;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ListGroups on brokers: the lowest alive broker forwards to a fake coordinator listener (a real
 * {@link KafkaProtocolServer} on 127.0.0.1 with a ListGroups handler that records what it gets), the
 * others answer empty; and kafka-clients' AdminClient over two brokers lists each group once.
 */
class ListGroupsHandlerTest {

    /** The fake coordinator's ListGroups: answers {@link #answer}, records every request. */
    private final class FakeCoordinatorListGroups implements RequestHandler {
        @Override
        public ApiVersionRange versions() {
            return new ApiVersionRange(
                    ApiKeys.LIST_GROUPS, ApiKeys.LIST_GROUPS.oldestVersion(), ApiKeys.LIST_GROUPS.latestVersion());
        }

        @Override
        public AbstractResponse handle(KafkaRequest request) {
            received.add(request.body(ListGroupsRequest.class).data());
            return new ListGroupsResponse(answer.get().duplicate());
        }
    }

    private final List<ListGroupsRequestData> received = new CopyOnWriteArrayList<>();
    private final AtomicReference<ListGroupsResponseData> answer = new AtomicReference<>(new ListGroupsResponseData()
            .setGroups(new ArrayList<>(List.of(
                    new ListedGroup()
                            .setGroupId("orders-readers")
                            .setProtocolType("consumer")
                            .setGroupState("Stable")
                            .setGroupType("consumer"),
                    new ListedGroup()
                            .setGroupId("audit")
                            .setProtocolType("consumer")
                            .setGroupState("Empty")
                            .setGroupType("consumer")))));
    private final List<KafkaProtocolServer> servers = new ArrayList<>();
    private final io.tributary.broker.cluster.FakeControlPlane coordinators =
            new io.tributary.broker.cluster.FakeControlPlane();
    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(2);
    private KafkaProtocolServer coordinator;

    private KafkaProtocolServer serve(String name, List<RequestHandler> handlers) {
        var config = ProtocolServerConfig.defaults(name, "127.0.0.1", 0);
        KafkaProtocolServer server = new KafkaProtocolServer(
                config, handlers, new ProtocolMetrics(new SimpleMeterRegistry(), config.name()));
        server.start();
        servers.add(server);
        return server;
    }

    @BeforeEach
    void startCoordinator() {
        coordinator = serve("coordinator", List.of(new FakeCoordinatorListGroups()));
        coordinators.groupCoordinator(Optional.of(new GroupCoordinator(0, "127.0.0.1", coordinator.port())));
    }

    @AfterEach
    void stop() {
        servers.forEach(KafkaProtocolServer::close);
    }

    private GroupCoordinatorLocator locator() {
        return new GroupCoordinatorLocator(
                coordinators, InstantSource.system(), GroupCoordinatorLocator.Config.DEFAULTS);
    }

    private ListGroupsHandler handler(int brokerId, GroupCoordinatorLocator locator) {
        return new ListGroupsHandler(
                FakeMetadataView.following(controlPlane, brokerId),
                locator,
                new CoordinatorGroupsClient(CoordinatorGroupsClient.Config.DEFAULTS, brokerId));
    }

    static IntStream allVersions() {
        return IntStream.rangeClosed(ApiKeys.LIST_GROUPS.oldestVersion(), ApiKeys.LIST_GROUPS.latestVersion());
    }

    private static ListGroupsRequest.Builder request(int version) {
        var data = new ListGroupsRequestData();
        if (version >= 4) {
            data.setStatesFilter(List.of("Stable"));
        }
        if (version >= 5) {
            data.setTypesFilter(List.of("consumer"));
        }
        return new ListGroupsRequest.Builder(data);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("allVersions")
    void theLowestAliveBrokerForwardsToTheCoordinatorWithTheFilters(int version) {
        ListGroupsResponse response = Wire.call(handler(0, locator()), request(version), version);

        assertThat(response.data().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.data().groups())
                .extracting(ListedGroup::groupId)
                .containsExactly("orders-readers", "audit");
        assertThat(received).hasSize(1);
        if (version >= 4) {
            assertThat(received.getFirst().statesFilter()).containsExactly("Stable");
        }
        if (version >= 5) {
            assertThat(received.getFirst().typesFilter()).containsExactly("consumer");
        }
    }

    @Test
    void withAnAuthorizerOnlyTheGroupsTheCallerMayDescribeAreListedUnlessItMayDescribeTheCluster() {
        TestAcls acls = TestAcls.wire().allow(AclResourceType.GROUP, "audit", AclOperation.READ);
        var handler = new ListGroupsHandler(
                FakeMetadataView.following(controlPlane, 0),
                locator(),
                new CoordinatorGroupsClient(CoordinatorGroupsClient.Config.DEFAULTS, 0),
                acls.access);

        ListGroupsResponse filtered = Wire.call(handler, request(5), 5);
        assertThat(filtered.data().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(filtered.data().groups()).extracting(ListedGroup::groupId).containsExactly("audit");

        acls.allowOnCluster(AclOperation.DESCRIBE);
        ListGroupsResponse all = Wire.call(handler, request(5), 5);
        assertThat(all.data().groups()).extracting(ListedGroup::groupId).containsExactly("orders-readers", "audit");
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("allVersions")
    void everyOtherBrokerAnswersAnEmptyListWithoutAskingTheCoordinator(int version) {
        ListGroupsResponse response = Wire.call(handler(1, locator()), request(version), version);

        assertThat(response.data().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.data().groups()).isEmpty();
        assertThat(received).isEmpty();
    }

    @Test
    void whenTheLowestBrokerIsFencedTheNextOneAnswers() {
        controlPlane.addBroker(0, 9092, true);
        ListGroupsResponse response = Wire.call(handler(1, locator()), request(5), 5);

        assertThat(response.data().groups()).hasSize(2);
        assertThat(Wire.<ListGroupsResponse>call(handler(0, locator()), request(5), 5)
                        .data()
                        .groups())
                .isEmpty();
    }

    @Test
    void noKnownCoordinatorIsCoordinatorNotAvailable() {
        coordinators.groupCoordinator(Optional.empty());
        ListGroupsResponse response = Wire.call(handler(0, locator()), request(5), 5);

        assertThat(response.data().errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
    }

    @Test
    void anUnreachableCoordinatorIsCoordinatorNotAvailableAndItsAddressIsLookedUpAgain() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        coordinators.groupCoordinator(Optional.of(new GroupCoordinator(0, "127.0.0.1", closedPort)));
        GroupCoordinatorLocator locator = locator();
        ListGroupsHandler handler = handler(0, locator);

        ListGroupsResponse response = Wire.call(handler, request(5), 5);
        assertThat(response.data().errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());

        coordinators.groupCoordinator(Optional.of(new GroupCoordinator(0, "127.0.0.1", coordinator.port())));
        assertThat(Wire.<ListGroupsResponse>call(handler, request(5), 5).data().groups())
                .as("the failed address was dropped from the cache, not served for its refresh interval")
                .hasSize(2);
    }

    @Test
    void aCoordinatorThatIsNoLongerLeaderIsCoordinatorNotAvailable() {
        answer.set(new ListGroupsResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()));
        GroupCoordinatorLocator locator = locator();
        ListGroupsResponse response = Wire.call(handler(0, locator), request(5), 5);

        assertThat(response.data().errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
        int lookups = coordinators.groupCoordinatorLookups();
        locator.lookup();
        assertThat(coordinators.groupCoordinatorLookups()).isEqualTo(lookups + 1);
    }

    @Test
    void theAdminClientOverTwoBrokersListsEachGroupOnceAndTheCoordinatorIsAskedOnce() throws Exception {
        AdminApiConfig config = new AdminApiConfig(
                "test-cluster",
                2,
                (short) 1,
                AdminApiConfig.AutoCreateTopics.DISABLED,
                100,
                Duration.ofSeconds(5),
                TopicConfigDefaults.kafka());
        FakeControlPlane cluster = new FakeControlPlane();
        List<KafkaProtocolServer> brokers = new ArrayList<>();
        for (int id = 0; id < 2; id++) {
            FakeMetadataView view = FakeMetadataView.following(cluster, id);
            brokers.add(serve(
                    "broker-" + id,
                    List.of(
                            new MetadataHandler(view, cluster, config),
                            new ListGroupsHandler(
                                    view,
                                    locator(),
                                    new CoordinatorGroupsClient(CoordinatorGroupsClient.Config.DEFAULTS, id)))));
        }
        for (int id = 0; id < 2; id++) {
            cluster.addBroker(id, brokers.get(id).port(), false);
        }
        Properties props = new Properties();
        props.put(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + brokers.get(1).port());
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        try (Admin admin = Admin.create(props)) {
            assertThat(admin.listGroups().all().get())
                    .extracting(GroupListing::groupId)
                    .containsExactlyInAnyOrder("orders-readers", "audit");
        }
        assertThat(received).as("only broker 0 forwarded").hasSize(1);
    }
}
