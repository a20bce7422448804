package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
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

    private final FindCoordinatorHandler handler = new FindCoordinatorHandler();

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
        return Wire.call(handler, new FindCoordinatorRequest.Builder(data), version);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("unbatchedVersions")
    void aGroupCoordinatorIsNotAvailableYet(int version) {
        FindCoordinatorResponse response = find(version, CoordinatorType.GROUP, "my-group");

        assertThat(response.error()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(response.data().nodeId()).isEqualTo(-1);
        if (version >= 1) {
            assertThat(response.data().errorMessage()).contains("consumer groups are not served");
        }
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("batchedVersions")
    void everyGroupOfABatchedLookupIsNotAvailableYet(int version) {
        FindCoordinatorResponse response = find(version, CoordinatorType.GROUP, "a", "b");

        assertThat(response.data().coordinators())
                .extracting(Coordinator::key, Coordinator::errorCode, Coordinator::nodeId)
                .containsExactly(
                        tuple("a", Errors.COORDINATOR_NOT_AVAILABLE.code(), -1),
                        tuple("b", Errors.COORDINATOR_NOT_AVAILABLE.code(), -1));
        assertThat(response.data().coordinators())
                .allSatisfy(c -> assertThat(c.errorMessage()).contains("consumer groups are not served"));
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
