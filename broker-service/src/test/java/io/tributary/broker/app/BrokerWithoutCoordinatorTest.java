package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.tributary.broker.cluster.MetadataFollower;
import io.tributary.common.testing.ServiceHttp;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** A broker that cannot reach any coordinator is alive but not ready, and keeps trying to register. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "tributary.kafka.port=0",
            "tributary.broker.data-dir=target/test-data/broker-alone",
            "tributary.broker.cluster.retry-backoff=50ms",
            "tributary.broker.cluster.request-timeout=1s"
        })
class BrokerWithoutCoordinatorTest {

    @LocalServerPort
    int httpPort;

    @Autowired
    MetadataFollower follower;

    ServiceHttp http;

    /** A loopback port nothing listens on: connections are refused. */
    @DynamicPropertySource
    static void unreachableCoordinator(DynamicPropertyRegistry registry) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        registry.add("tributary.broker.coordinators", () -> "127.0.0.1:" + port);
    }

    @BeforeEach
    void connect() {
        http = new ServiceHttp(httpPort);
    }

    @Test
    void itIsAliveButNotReadyAndKeepsTryingToRegister() {
        await().atMost(Duration.ofSeconds(30)).until(() -> follower.registrationFailures() >= 2);

        assertThat(JsonPath.<String>read(http.getJson("/actuator/health/liveness"), "$.status"))
                .isEqualTo("UP");
        var response = http.get("/actuator/health/readiness", "application/json");
        assertThat(response.statusCode()).isEqualTo(503);
        String readiness = response.body();
        assertThat(JsonPath.<String>read(readiness, "$.status")).isEqualTo("OUT_OF_SERVICE");
        assertThat(JsonPath.<String>read(readiness, "$.components.brokerRegistration.status"))
                .isEqualTo("OUT_OF_SERVICE");
        assertThat(JsonPath.<Boolean>read(readiness, "$.components.brokerRegistration.details.registered"))
                .isFalse();
        assertThat(JsonPath.<String>read(readiness, "$.components.kafkaListener.status"))
                .isEqualTo("UP");
    }
}
