package io.tributary.common.protocol;

import static io.tributary.common.protocol.TestHandlers.count;
import static io.tributary.common.protocol.TestHandlers.eventually;
import static io.tributary.common.protocol.TestHandlers.handler;
import static io.tributary.common.protocol.TestHandlers.start;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.testing.KafkaTestConnection;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.junit.jupiter.api.Test;

/** The per-API meters: requests, error codes in responses, latency. */
class KafkaProtocolServerMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void requestsErrorCodesAndLatencyAreRecordedPerApi() throws Exception {
        try (var server = start(
                        ProtocolServerConfig.defaults("test", "127.0.0.1", 0),
                        registry,
                        handler(ApiKeys.DESCRIBE_CLUSTER, 0, 2, request -> {
                            throw new ClusterAuthorizationException("not allowed");
                        }));
                var connection = KafkaTestConnection.open(server.port())) {
            connection.apiVersions();
            connection.apiVersions();
            connection.roundTrip(TestRequests.latestFetch(), FetchResponse.class);
            connection.roundTrip(TestRequests.describeCluster(2), DescribeClusterResponse.class);
            connection.roundTrip(TestRequests.describeCluster(1), DescribeClusterResponse.class);
            connection.roundTrip(TestRequests.describeCluster(0), DescribeClusterResponse.class);

            // A response is written before it is counted: wait for the last one.
            eventually()
                    .untilAsserted(
                            () -> assertThat(requests(ApiKeys.DESCRIBE_CLUSTER)).isEqualTo(3.0));
            assertThat(requests(ApiKeys.API_VERSIONS)).isEqualTo(2.0);
            assertThat(requests(ApiKeys.FETCH)).isEqualTo(1.0);
            assertThat(requests(ApiKeys.METADATA)).isZero();
            assertThat(errors(ApiKeys.FETCH, "UNSUPPORTED_VERSION")).isEqualTo(1.0);
            assertThat(errors(ApiKeys.DESCRIBE_CLUSTER, "CLUSTER_AUTHORIZATION_FAILED"))
                    .isEqualTo(3.0);
            assertThat(registry.find("tributary.protocol.errors")
                            .tag("api", ApiKeys.API_VERSIONS.name)
                            .counters())
                    .as("errors counted for ApiVersions, which all succeeded")
                    .isEmpty();
            assertThat(latency(ApiKeys.API_VERSIONS).count()).isEqualTo(2);
            assertThat(latency(ApiKeys.FETCH).count()).isEqualTo(1);
            assertThat(latency(ApiKeys.DESCRIBE_CLUSTER).count()).isEqualTo(3);
            assertThat(registry.get("tributary.protocol.requests").counters())
                    .allSatisfy(counter ->
                            assertThat(counter.getId().getTag("listener")).isEqualTo("test"));
        }
    }

    @Test
    void openConnectionsAreGaugedAndAcceptedOnesCounted() throws Exception {
        try (var server = start(ProtocolServerConfig.defaults("test", "127.0.0.1", 0), registry)) {
            try (var first = KafkaTestConnection.open(server.port());
                    var second = KafkaTestConnection.open(server.port())) {
                first.apiVersions();
                second.apiVersions();

                assertThat(activeConnections()).isEqualTo(2.0);
            }

            eventually().untilAsserted(() -> assertThat(activeConnections()).isZero());
            assertThat(count(registry, "tributary.protocol.connections.accepted"))
                    .isEqualTo(2.0);
        }
    }

    private double activeConnections() {
        return registry.get("tributary.protocol.connections.active").gauge().value();
    }

    private double requests(ApiKeys api) {
        return count(registry, "tributary.protocol.requests", "api", api.name);
    }

    private double errors(ApiKeys api, String error) {
        return count(registry, "tributary.protocol.errors", "api", api.name, "error", error);
    }

    private Timer latency(ApiKeys api) {
        return registry.get("tributary.protocol.request.latency")
                .tag("api", api.name)
                .timer();
    }
}
