package io.tributary.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.tributary.gateway.testing.GatewayHttp;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** With no broker answering, cluster calls are 503 cluster-unavailable with Retry-After, not hangs or 500s. */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ClusterUnavailableTest {

    @LocalServerPort
    int port;

    GatewayHttp http;

    @DynamicPropertySource
    static void noCluster(DynamicPropertyRegistry registry) throws IOException {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort(); // free, and nothing listens there once closed
        }
        registry.add("tributary.gateway.bootstrap-servers", () -> "127.0.0.1:" + closed);
        registry.add("tributary.gateway.cluster-timeout", () -> "2s");
    }

    @BeforeEach
    void connect() {
        http = new GatewayHttp(port);
    }

    private static void assertUnavailable(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:cluster-unavailable");
    }

    @Test
    void listingTopicsIs503WithRetryAfter() {
        assertUnavailable(http.get("/v1/topics"));
    }

    @Test
    void producingIs503WithRetryAfter() {
        assertUnavailable(http.post("/v1/topics/orders/records", "application/json", "{\"value\":1}"));
    }

    @Test
    void creatingATopicIs503WithRetryAfter() {
        assertUnavailable(http.post("/v1/topics", "application/json", "{\"name\":\"orders\"}"));
    }
}
