package io.tributary.common.protocol;

import static io.tributary.common.protocol.TestHandlers.count;
import static io.tributary.common.protocol.TestHandlers.describeClusterOk;
import static io.tributary.common.protocol.TestHandlers.eventually;
import static io.tributary.common.protocol.TestHandlers.handler;
import static io.tributary.common.protocol.TestHandlers.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.testing.KafkaTestConnection;
import java.net.ConnectException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/** The listener's connection limit and its shutdown. */
class KafkaProtocolServerLifecycleTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ProtocolServerConfig defaults = ProtocolServerConfig.defaults("test", "127.0.0.1", 0);

    @Test
    void connectionOverMaxConnectionsIsClosedAtOnceAndCountedAndANewOneIsServedOnceTheFirstCloses() throws Exception {
        var config = new ProtocolServerConfig(
                "test",
                "127.0.0.1",
                0,
                defaults.maxFrameBytes(),
                1,
                defaults.maxInFlightRequestBytes(),
                defaults.idleTimeout(),
                defaults.shutdownTimeout(),
                defaults.connectionThreads());
        try (var server = start(config, registry)) {
            try (var first = KafkaTestConnection.open(server.port())) {
                assertThat(Errors.forCode(first.apiVersions().data().errorCode()))
                        .isEqualTo(Errors.NONE);

                try (var second = KafkaTestConnection.open(server.port())) {
                    assertThat(second.closedByServer())
                            .as("end of stream on the second connection")
                            .isTrue();
                }
                eventually()
                        .untilAsserted(() -> assertThat(count(registry, "tributary.protocol.connections.refused"))
                                .isEqualTo(1.0));
                assertThat(Errors.forCode(first.apiVersions().data().errorCode()))
                        .isEqualTo(Errors.NONE);
            }

            eventually()
                    .untilAsserted(() -> assertThat(server.connectionCount()).isZero());
            try (var third = KafkaTestConnection.open(server.port())) {
                assertThat(Errors.forCode(third.apiVersions().data().errorCode()))
                        .isEqualTo(Errors.NONE);
            }
            assertThat(count(registry, "tributary.protocol.connections.refused"))
                    .isEqualTo(1.0);
            assertThat(count(registry, "tributary.protocol.connections.accepted"))
                    .isEqualTo(2.0);
        }
    }

    @Test
    void closeLetsTheRequestInFlightFinishAndThenClosesItsConnection() throws Exception {
        var handlerEntered = new CountDownLatch(1);
        var releaseHandler = new CountDownLatch(1);
        var server = start(defaults, registry, handler(ApiKeys.DESCRIBE_CLUSTER, 0, 2, request -> {
            handlerEntered.countDown();
            TestHandlers.awaitLatch(releaseHandler);
            return describeClusterOk(request);
        }));
        try (var connection = KafkaTestConnection.open(server.port())) {
            RequestHeader inFlight = connection.send(TestRequests.describeCluster(2));
            TestHandlers.awaitLatch(handlerEntered);

            CompletableFuture<Void> closed = CompletableFuture.runAsync(server::close);
            eventually().untilAsserted(() -> assertThat(server.isServing()).isFalse());
            assertThat(closed).as("close() while a request is in flight").isNotDone();
            releaseHandler.countDown();

            var response = connection.receive(inFlight, DescribeClusterResponse.class);
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(connection.closedByServer())
                    .as("end of stream after the last response")
                    .isTrue();
            closed.get(1, TimeUnit.MINUTES);
        } finally {
            releaseHandler.countDown();
            server.close();
        }
    }

    @Test
    void closeEndsIdleConnections() throws Exception {
        var server = start(defaults, registry);
        try (var connection = KafkaTestConnection.open(server.port())) {
            assertThat(Errors.forCode(connection.apiVersions().data().errorCode()))
                    .isEqualTo(Errors.NONE);

            server.close();

            assertThat(connection.closedByServer())
                    .as("end of stream on an idle connection")
                    .isTrue();
            assertThat(server.connectionCount()).isZero();
        } finally {
            server.close();
        }
    }

    @Test
    void closedListenerRefusesNewConnections() throws Exception {
        var server = start(defaults, registry);
        int port = server.port();
        try (var connection = KafkaTestConnection.open(port)) {
            assertThat(Errors.forCode(connection.apiVersions().data().errorCode()))
                    .isEqualTo(Errors.NONE);
        }

        server.close();

        assertThat(server.isServing()).isFalse();
        assertThatThrownBy(() -> KafkaTestConnection.open(port).close()).isInstanceOf(ConnectException.class);
    }
}
