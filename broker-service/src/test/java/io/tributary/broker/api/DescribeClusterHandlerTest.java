package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.stream.IntStream;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DescribeClusterHandlerTest {

    private final DescribeClusterHandler handler =
            new DescribeClusterHandler(FakeMetadataView.fixed(TestImages.cluster(), 1), AdminApiConfig.defaults());

    static IntStream allVersions() {
        return IntStream.rangeClosed(
                ApiKeys.DESCRIBE_CLUSTER.oldestVersion(), ApiKeys.DESCRIBE_CLUSTER.latestVersion());
    }

    private DescribeClusterResponse describe(int version, DescribeClusterRequestData data) {
        return Wire.call(handler, new DescribeClusterRequest.Builder(data), version);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("allVersions")
    void listsTheAliveBrokersTheClusterIdAndTheController(int version) {
        DescribeClusterResponse response = describe(version, new DescribeClusterRequestData());

        assertThat(response.data().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.data().clusterId()).isEqualTo(AdminApiConfig.DEFAULT_CLUSTER_ID);
        assertThat(response.data().controllerId()).isEqualTo(1);
        assertThat(response.data().brokers())
                .extracting(DescribeClusterBroker::brokerId, DescribeClusterBroker::host, DescribeClusterBroker::port)
                .containsExactly(tuple(0, "host-0", 9092), tuple(1, "host-1", 9093));
        assertThat(response.data().clusterAuthorizedOperations()).isEqualTo(Integer.MIN_VALUE);
    }

    @Test
    void fencedBrokersAreListedAndMarkedWhenAskedFor() {
        DescribeClusterResponse response = describe(2, new DescribeClusterRequestData().setIncludeFencedBrokers(true));

        assertThat(response.data().brokers())
                .extracting(DescribeClusterBroker::brokerId, DescribeClusterBroker::isFenced)
                .containsExactly(tuple(0, false), tuple(1, false), tuple(2, true));
    }

    @Test
    void controllerEndpointsAreNotServedByABroker() {
        DescribeClusterResponse response = describe(
                1, new DescribeClusterRequestData().setEndpointType(DescribeClusterHandler.CONTROLLER_ENDPOINTS));

        assertThat(response.data().errorCode()).isEqualTo(Errors.MISMATCHED_ENDPOINT_TYPE.code());
        assertThat(response.data().brokers()).isEmpty();
    }

    @Test
    void clusterAuthorizedOperationsWhenAskedFor() {
        DescribeClusterResponse response =
                describe(2, new DescribeClusterRequestData().setIncludeClusterAuthorizedOperations(true));

        assertThat(response.data().clusterAuthorizedOperations())
                .isEqualTo(
                        // without an authorizer: every operation Kafka 4.4 lists for the cluster
                        1 << 5 | 1 << 9 | 1 << 10 | 1 << 11 | 1 << 12 | 1 << 7 | 1 << 8);
    }
}
