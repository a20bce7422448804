package io.tributary.gateway.consume;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.gateway.app.GatewayApplication;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.testing.GatewayHttp;
import io.tributary.gateway.testing.SharedKafka;
import io.tributary.gateway.testing.SseClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A client that reads nothing while its stream's buffer never stays full long enough to be closed as
 * slow: the write blocked on its socket is bounded by {@code write-timeout}, and the close is counted
 * as {@code slow_client}. Its own context: the slow-client timeout here is far longer than the write
 * timeout, so only the write timeout can end the stream; and CORS keeps its default (no allowed
 * origins).
 */
@ExtendWith(SharedKafka.class)
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class WriteTimeoutAndDefaultCorsTest {

    @DynamicPropertySource
    static void slowClientTimeoutBeyondTheTest(DynamicPropertyRegistry registry) {
        registry.add("tributary.gateway.bootstrap-servers", SharedKafka::bootstrapServers);
        registry.add("tributary.gateway.sse.buffer-size", () -> "64KB");
        registry.add("tributary.gateway.sse.slow-client-timeout", () -> "10m");
        registry.add("tributary.gateway.write-timeout", () -> "1s");
    }

    @LocalServerPort
    int httpPort;

    @Autowired
    GatewayMetrics metrics;

    @Autowired
    MeterRegistry registry;

    @Autowired
    SseProperties sse;

    @Test
    void aWriteBlockedOnAClientThatReadsNothingEndsAtTheWriteTimeoutAndIsCounted() {
        assertThat(sse.slowClientTimeout()).isEqualTo(Duration.ofMinutes(10));
        String topic = "sse-write-timeout-" + Long.toHexString(System.nanoTime());
        GatewayHttp http = new GatewayHttp(httpPort);
        HttpResponse<String> created = http.post(
                "/v1/topics",
                "application/json",
                "{\"name\":\"" + topic + "\",\"partitions\":1,\"replication_factor\":1}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String big = "\"" + "x".repeat(100_000) + "\"";
        for (int b = 0; b < 24; b++) {
            StringBuilder body = new StringBuilder("{\"records\":[");
            for (int i = 0; i < 5; i++) {
                body.append(i == 0 ? "" : ",").append("{\"value\":").append(big).append('}');
            }
            body.append("]}");
            HttpResponse<String> r = http.post("/v1/topics/" + topic + "/records", "application/json", body.toString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> metrics.activeStreams() == 0);
        double before = slowCloses();
        try (SseClient stuck = SseClient.open(httpPort, 4096, "/v1/topics/" + topic + "/events?from=earliest")) {
            assertThat(stuck.status()).isEqualTo(200);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> slowCloses() > before);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> metrics.activeStreams() == 0);
        }
        assertThat(slowCloses()).isEqualTo(before + 1);
    }

    @Test
    void withNoAllowedOriginsNothingCrossOriginIsAnswered() {
        GatewayHttp http = new GatewayHttp(httpPort);
        HttpResponse<String> pre = http.send(java.net.http.HttpRequest.newBuilder(http.uri("/v1/topics"))
                .method("OPTIONS", java.net.http.HttpRequest.BodyPublishers.noBody())
                .header("Origin", "http://app.test")
                .header("Access-Control-Request-Method", "POST"));
        assertThat(pre.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        HttpResponse<String> get = http.send(
                java.net.http.HttpRequest.newBuilder(http.uri("/v1/topics")).header("Origin", "http://app.test"));
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(get.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    }

    private double slowCloses() {
        return registry
                .find("tributary.sse.streams.closed")
                .tag("reason", GatewayMetrics.SLOW_CLIENT)
                .counters()
                .stream()
                .mapToDouble(Counter::count)
                .sum();
    }
}
