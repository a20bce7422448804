package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.broker.cluster.GroupCoordinatorLocator.Lookup;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FindCoordinatorHandlerTest {

    private final AtomicReference<Lookup> lookup =
            new AtomicReference<>(new Lookup.Found(new GroupCoordinator(2, "c2.example", 9193)));
    private final FindCoordinatorHandler handler = new FindCoordinatorHandler(
            lookup::get, listener -> Optional.of(new FindCoordinatorHandler.Self(7, "b7.example", 9097)));

    static IntStream allVersions() {
        return IntStream.rangeClosed(
                ApiKeys.FIND_COORDINATOR.oldestVersion(), ApiKeys.FIND_COORDINATOR.latestVersion());
    }

    static IntStream batchedVersions() {
        return allVersions().filter(v -> v >= 4);
    }

    static IntStream unbatchedVersions() {
        return allVersions().filter(v -> v < 4);
    }

    private FindCoordinatorResponse find(int version, CoordinatorType type, String... keys) {
        return find(handler, version, type, keys);
    }

    /** Asks {@code handler} for the coordinators of {@code keys} (the first only before v4). */
    static FindCoordinatorResponse find(
            FindCoordinatorHandler handler, int version, CoordinatorType type, String... keys) {
        var data = new FindCoordinatorRequestData().setKeyType(type.id());
        if (version >= 4) {
            data.setCoordinatorKeys(List.of(keys));
        } else {
            data.setKey(keys[0]);
        }
        return Wire.call(handler, new FindCoordinatorRequest.Builder(data), version);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("unbatchedVersions")
    void aGroupIsServedThroughThisBrokerWhichForwardsToTheCoordinatorLeader(int version) {
        FindCoordinatorResponse response = find(version, CoordinatorType.GROUP, "my-group");

        assertThat(response.error()).isEqualTo(Errors.NONE);
        assertThat(response.data().nodeId())
                .as("this broker: the AdminClient reaches a coordinator only among the Metadata's brokers")
                .isEqualTo(7);
        assertThat(response.data().host()).isEqualTo("b7.example");
        assertThat(response.data().port()).isEqualTo(9097);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("unbatchedVersions")
    void withoutAKnownCoordinatorAGroupLookupIsNotAvailableWithTheReason(int version) {
        lookup.set(new Lookup.NotAvailable("the coordinators know no leader right now"));
        FindCoordinatorResponse response = find(version, CoordinatorType.GROUP, "my-group");

        assertThat(response.error()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(response.data().nodeId()).isEqualTo(-1);
        if (version >= 1) {
            assertThat(response.data().errorMessage()).contains("no leader");
        }
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("batchedVersions")
    void everyGroupOfABatchedLookupGetsTheCoordinatorOrTheError(int version) {
        FindCoordinatorResponse response = find(version, CoordinatorType.GROUP, "a", "b");

        assertThat(response.data().coordinators())
                .extracting(
                        Coordinator::key,
                        Coordinator::errorCode,
                        Coordinator::nodeId,
                        Coordinator::host,
                        Coordinator::port)
                .containsExactly(
                        tuple("a", Errors.NONE.code(), 7, "b7.example", 9097),
                        tuple("b", Errors.NONE.code(), 7, "b7.example", 9097));

        lookup.set(new Lookup.NotAvailable("down"));
        assertThat(find(version, CoordinatorType.GROUP, "a", "b").data().coordinators())
                .extracting(Coordinator::key, Coordinator::errorCode, Coordinator::nodeId)
                .containsExactly(
                        tuple("a", Errors.COORDINATOR_NOT_AVAILABLE.code(), -1),
                        tuple("b", Errors.COORDINATOR_NOT_AVAILABLE.code(), -1));
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("batchedVersions")
    void aShareGroupLookupSaysShareGroupsAreNotSupported(int version) {
        if (version < 6) {
            return; // share keys exist from v6
        }
        Coordinator share = find(version, CoordinatorType.SHARE, "g:id:0")
                .data()
                .coordinators()
                .getFirst();
        assertThat(share.errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
        assertThat(share.errorMessage()).contains("share groups are not supported");
    }

    @org.junit.jupiter.api.Test
    void theLocatorOverTheHttpControlPlaneAnswersWithTheFakeCoordinatorsLeader() throws Exception {
        var fake = new io.tributary.broker.cluster.FakeControlPlane();
        fake.groupCoordinator(java.util.Optional.of(new GroupCoordinator(1, "127.0.0.1", 9192)));
        try (var server = new io.tributary.broker.cluster.FakeCoordinatorServer(fake);
                var http = new io.tributary.broker.cluster.HttpControlPlane(
                        io.tributary.broker.cluster.HttpControlPlane.Config.of(List.of(server.address())))) {
            var locator = new GroupCoordinatorLocator(
                    http, java.time.InstantSource.system(), GroupCoordinatorLocator.Config.DEFAULTS);
            FindCoordinatorHandler overHttp = new FindCoordinatorHandler(
                    locator::lookup, listener -> Optional.of(new FindCoordinatorHandler.Self(3, "127.0.0.1", 9093)));
            var data = new FindCoordinatorRequestData()
                    .setKeyType(CoordinatorType.GROUP.id())
                    .setKey("g");
            FindCoordinatorResponse response = org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(20))
                    .until(
                            () -> Wire.<FindCoordinatorResponse>call(
                                    overHttp, new FindCoordinatorRequest.Builder(data), 3),
                            r -> r.error() == Errors.NONE);
            assertThat(response.data().nodeId()).isEqualTo(3);
            assertThat(response.data().port()).isEqualTo(9093);
        }
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("batchedVersions")
    void aTransactionCoordinatorLookupFailsAtOnceSayingTransactionsAreNotSupported(int version) {
        FindCoordinatorResponse response = find(version, CoordinatorType.TRANSACTION, "tx-1");

        Coordinator coordinator = response.data().coordinators().getFirst();
        assertThat(coordinator.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(coordinator.errorMessage()).contains("transactions are not supported");
    }
}
