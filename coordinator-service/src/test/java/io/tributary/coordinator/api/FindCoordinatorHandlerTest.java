package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The coordinator's FindCoordinator, every version, through Kafka's own codec both ways. */
class FindCoordinatorHandlerTest {

    private final AtomicReference<Optional<Integer>> leader = new AtomicReference<>(Optional.of(1));
    private final FindCoordinatorHandler handler =
            new FindCoordinatorHandler(leader::get, List.of("c0.example:9191", "c1.example:9192", "c2.example:9193"));

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
        var data = new FindCoordinatorRequestData().setKeyType(type.id());
        if (version >= 4) {
            data.setCoordinatorKeys(List.of(keys));
        } else {
            data.setKey(keys[0]);
        }
        AbstractRequest built = new FindCoordinatorRequest.Builder(data).build((short) version);
        short v = built.version();
        assertThat(handler.versions().contains(v)).as("v%d advertised", v).isTrue();
        AbstractRequest parsed = AbstractRequest.parseRequest(ApiKeys.FIND_COORDINATOR, v, built.serialize()).request;
        var request = new KafkaRequest(
                new RequestHeader(ApiKeys.FIND_COORDINATOR, v, "test-client", 7),
                parsed,
                new ConnectionInfo("test", new InetSocketAddress("127.0.0.1", 40000), "test"));
        AbstractResponse response = handler.handle(request);
        var bytes = MessageUtil.toByteBufferAccessor(response.data(), v).buffer();
        return (FindCoordinatorResponse)
                AbstractResponse.parseResponse(ApiKeys.FIND_COORDINATOR, new ByteBufferAccessor(bytes), v);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("unbatchedVersions")
    void aGroupIsServedByTheRaftLeaderAtItsKafkaAddress(int version) {
        FindCoordinatorResponse response = find(version, CoordinatorType.GROUP, "my-group");

        assertThat(response.error()).isEqualTo(Errors.NONE);
        assertThat(response.data().nodeId())
                .as("coordinator 1 is node 1_000_000_001, outside the broker ids")
                .isEqualTo(1_000_000_001);
        assertThat(response.data().host()).isEqualTo("c1.example");
        assertThat(response.data().port()).isEqualTo(9192);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("batchedVersions")
    void everyGroupOfABatchedLookupIsServedByTheLeader(int version) {
        leader.set(Optional.of(2));
        FindCoordinatorResponse response = find(version, CoordinatorType.GROUP, "a", "b");

        assertThat(response.data().coordinators())
                .extracting(
                        Coordinator::key,
                        Coordinator::errorCode,
                        Coordinator::nodeId,
                        Coordinator::host,
                        Coordinator::port)
                .containsExactly(
                        tuple("a", Errors.NONE.code(), 1_000_000_002, "c2.example", 9193),
                        tuple("b", Errors.NONE.code(), 1_000_000_002, "c2.example", 9193));
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("allVersions")
    void withoutALeaderTheCoordinatorIsNotAvailable(int version) {
        leader.set(Optional.empty());
        FindCoordinatorResponse response = find(version, CoordinatorType.GROUP, "g");

        Errors error = version >= 4
                ? Errors.forCode(response.data().coordinators().getFirst().errorCode())
                : response.error();
        assertThat(error).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("batchedVersions")
    void transactionAndShareKeysGetTheBrokersErrors(int version) {
        Coordinator tx = find(version, CoordinatorType.TRANSACTION, "tx-1")
                .data()
                .coordinators()
                .getFirst();
        assertThat(tx.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(tx.errorMessage()).contains("transactions are not supported");
        if (version >= 6) {
            Coordinator share = find(version, CoordinatorType.SHARE, "g:topic-id:0")
                    .data()
                    .coordinators()
                    .getFirst();
            assertThat(share.errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
            assertThat(share.errorMessage()).contains("share groups are not supported");
        }
    }
}
