package io.tributary.common.protocol;

import static io.tributary.common.protocol.TestHandlers.count;
import static io.tributary.common.protocol.TestHandlers.eventually;
import static io.tributary.common.protocol.TestHandlers.handler;
import static io.tributary.common.protocol.TestHandlers.start;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.testing.KafkaTestConnection;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.junit.jupiter.api.Test;

/**
 * Kafka's channel muting: after an answer with {@code throttle_time_ms}, the listener reads nothing
 * more from that connection until the throttle passed, then serves it again; an answer without a
 * throttle mutes nothing.
 */
class KafkaProtocolServerMuteTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static RequestHandler throttling(int throttleMs) {
        return handler(
                ApiKeys.DESCRIBE_CLUSTER,
                0,
                2,
                request ->
                        new DescribeClusterResponse(new DescribeClusterResponseData().setThrottleTimeMs(throttleMs)));
    }

    @Test
    void aThrottledAnswerMutesItsConnectionForItsThrottleAndTheNextRequestIsStillServed() throws Exception {
        try (var server = start(ProtocolServerConfig.defaults("test", "127.0.0.1", 0), registry, throttling(150));
                var connection = KafkaTestConnection.open(server.port())) {
            DescribeClusterResponse first =
                    connection.roundTrip(TestRequests.describeCluster(1), DescribeClusterResponse.class);
            DescribeClusterResponse second =
                    connection.roundTrip(TestRequests.describeCluster(1), DescribeClusterResponse.class);

            assertThat(first.throttleTimeMs()).isEqualTo(150);
            assertThat(second.throttleTimeMs()).isEqualTo(150);
            eventually()
                    .untilAsserted(() -> assertThat(count(registry, "tributary.protocol.connections.muted"))
                            .isEqualTo(2.0));
            assertThat(count(registry, "tributary.protocol.connections.muted.time"))
                    .isEqualTo(0.3);
        }
    }

    @Test
    void anAnswerWithoutAThrottleMutesNothing() throws Exception {
        try (var server = start(ProtocolServerConfig.defaults("test", "127.0.0.1", 0), registry, throttling(0));
                var connection = KafkaTestConnection.open(server.port())) {
            connection.roundTrip(TestRequests.describeCluster(1), DescribeClusterResponse.class);
            connection.roundTrip(TestRequests.describeCluster(1), DescribeClusterResponse.class);

            eventually()
                    .untilAsserted(
                            () -> assertThat(count(registry, "tributary.protocol.requests", "api", "DescribeCluster"))
                                    .isEqualTo(2.0));
            assertThat(count(registry, "tributary.protocol.connections.muted")).isZero();
        }
    }
}
