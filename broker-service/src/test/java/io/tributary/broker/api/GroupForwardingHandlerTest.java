package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import io.tributary.broker.cluster.CoordinatorGroupsClient;
import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A broker's group forwarding against a fake coordinator listener (a real {@link
 * KafkaProtocolServer} on 127.0.0.1 whose DeleteGroups handler records what it gets): the request
 * goes through as it is (version, client id, body) over reused connections, the answer comes back,
 * NOT_COORDINATOR is passed on and drops the cached location, and an unreachable or unknown
 * coordinator is the request's own COORDINATOR_NOT_AVAILABLE.
 */
class GroupForwardingHandlerTest {

    private record Received(short version, String clientId, String connectionId, List<String> groups) {}

    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicReference<Errors> answer = new AtomicReference<>(Errors.NONE);
    private final FakeControlPlane coordinators = new FakeControlPlane();
    private KafkaProtocolServer coordinator;

    private final class FakeDeleteGroups implements RequestHandler {
        @Override
        public ApiVersionRange versions() {
            return ApiVersionRange.of(ApiKeys.DELETE_GROUPS, 0, 3);
        }

        @Override
        public AbstractResponse handle(KafkaRequest request) {
            DeleteGroupsRequestData data =
                    request.body(DeleteGroupsRequest.class).data();
            received.add(new Received(
                    request.header().apiVersion(),
                    request.header().clientId(),
                    request.connection().id(),
                    List.copyOf(data.groupsNames())));
            var results = new DeleteGroupsResponseData.DeletableGroupResultCollection();
            for (String group : data.groupsNames()) {
                results.add(new DeletableGroupResult()
                        .setGroupId(group)
                        .setErrorCode(answer.get().code()));
            }
            return new DeleteGroupsResponse(new DeleteGroupsResponseData().setResults(results));
        }
    }

    @BeforeEach
    void startCoordinator() {
        var config = ProtocolServerConfig.defaults("coordinator", "127.0.0.1", 0);
        coordinator = new KafkaProtocolServer(
                config, List.of(new FakeDeleteGroups()), new ProtocolMetrics(new SimpleMeterRegistry(), config.name()));
        coordinator.start();
        coordinators.groupCoordinator(Optional.of(new GroupCoordinator(0, "127.0.0.1", coordinator.port())));
    }

    @AfterEach
    void stop() {
        coordinator.close();
    }

    private GroupCoordinatorLocator locator() {
        return new GroupCoordinatorLocator(
                coordinators, InstantSource.system(), GroupCoordinatorLocator.Config.DEFAULTS);
    }

    private static CoordinatorGroupsClient client() {
        return new CoordinatorGroupsClient(
                new CoordinatorGroupsClient.Config(Duration.ofSeconds(1), Duration.ofSeconds(2), 1 << 20), 4);
    }

    private static GroupForwardingHandler deleteGroups(
            GroupCoordinatorLocator locator, CoordinatorGroupsClient client) {
        return GroupForwardingHandler.all(locator, client).stream()
                .filter(h -> h.versions().apiKey() == ApiKeys.DELETE_GROUPS)
                .findFirst()
                .orElseThrow();
    }

    private static DeleteGroupsResponse delete(GroupForwardingHandler handler, int version, String... groups) {
        return Wire.call(
                handler,
                new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData().setGroupsNames(List.of(groups))),
                version);
    }

    private static Errors errorOf(DeleteGroupsResponse response, String group) {
        return Errors.forCode(response.data().results().find(group).errorCode());
    }

    @Test
    void theRequestGoesThroughAsItIsAndTheAnswerComesBackOverOneReusedConnection() {
        GroupForwardingHandler handler = deleteGroups(locator(), client());

        DeleteGroupsResponse first = delete(handler, 2, "a", "b");
        DeleteGroupsResponse second = delete(handler, 3, "c");

        assertThat(errorOf(first, "a")).isEqualTo(Errors.NONE);
        assertThat(errorOf(second, "c")).isEqualTo(Errors.NONE);
        assertThat(received)
                .extracting(Received::version, Received::clientId, Received::groups)
                .containsExactly(
                        org.assertj.core.api.Assertions.tuple((short) 2, "test-client", List.of("a", "b")),
                        org.assertj.core.api.Assertions.tuple((short) 3, "test-client", List.of("c")));
        assertThat(received.get(0).connectionId())
                .as("the second forward reuses the first one's connection")
                .isEqualTo(received.get(1).connectionId());
    }

    @Test
    void notCoordinatorIsPassedOnAndTheCachedLocationDropped() {
        FakeControlPlane counting = coordinators;
        GroupCoordinatorLocator locator = locator();
        GroupForwardingHandler handler = deleteGroups(locator, client());
        delete(handler, 2, "a");
        int lookupsBefore = counting.groupCoordinatorLookups();

        answer.set(Errors.NOT_COORDINATOR);
        assertThat(errorOf(delete(handler, 2, "a"), "a")).isEqualTo(Errors.NOT_COORDINATOR);
        answer.set(Errors.NONE);
        assertThat(errorOf(delete(handler, 2, "a"), "a")).isEqualTo(Errors.NONE);

        assertThat(counting.groupCoordinatorLookups())
                .as("the location was looked up again")
                .isGreaterThan(lookupsBefore);
    }

    @Test
    void anUnreachableOrUnknownCoordinatorIsCoordinatorNotAvailable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        coordinators.groupCoordinator(Optional.of(new GroupCoordinator(0, "127.0.0.1", closedPort)));
        assertThat(errorOf(delete(deleteGroups(locator(), client()), 2, "a"), "a"))
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);

        coordinators.groupCoordinator(Optional.empty());
        assertThat(errorOf(delete(deleteGroups(locator(), client()), 2, "a"), "a"))
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(received).isEmpty();
    }
}
