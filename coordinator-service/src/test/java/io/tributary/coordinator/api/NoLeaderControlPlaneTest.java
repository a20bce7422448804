package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.coordinator.app.CoordinatorApplication;
import io.tributary.coordinator.testing.TestCoordinators;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * One voter of three whose two peers never start: it can never be elected, so writes get 503
 * {@code no-leader} with {@code Retry-After}, while reads are still answered from its image.
 */
@SpringBootTest(
        classes = CoordinatorApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "tributary.coordinator.control.retry-after=2s")
class NoLeaderControlPlaneTest {

    private static Path dataDir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws IOException {
        dataDir = Files.createTempDirectory("no-leader-test");
        int[] ports = {TestCoordinators.freePort(), TestCoordinators.freePort(), TestCoordinators.freePort()};
        registry.add("tributary.coordinator.data-dir", dataDir::toString);
        registry.add("tributary.coordinator.raft-port", () -> ports[0]);
        registry.add(
                "tributary.coordinator.peers",
                () -> "127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d".formatted(ports[0], ports[1], ports[2]));
        registry.add("tributary.coordinator.http-peers", () -> "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3");
        registry.add("tributary.coordinator.kafka-peers", () -> "127.0.0.1:4,127.0.0.1:5,127.0.0.1:6");
        registry.add("tributary.kafka.port", () -> 0);
    }

    @AfterAll
    static void deleteDataDir() throws IOException {
        TestCoordinators.deleteRecursively(dataDir);
    }

    @LocalServerPort
    int httpPort;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path));
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.method(method, HttpRequest.BodyPublishers.ofString(body))
                    .header("Content-Type", "application/json");
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertNoLeader(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(response.body()).contains("\"type\":\"urn:tributary:problem:coordinator:no-leader\"");
    }

    @Test
    void everyWriteIsNoLeaderWithRetryAfter() throws Exception {
        UUID incarnation = UUID.randomUUID();
        assertNoLeader(send(
                "POST",
                "/internal/v1/brokers",
                "{\"brokerId\":1,\"incarnationId\":\"%s\",\"endpoints\":[{\"listener\":\"P\",\"host\":\"h\",\"port\":1}]}"
                        .formatted(incarnation)));
        assertNoLeader(send("POST", "/internal/v1/brokers/1/heartbeat", "{\"incarnationId\":\"" + incarnation + "\"}"));
        assertNoLeader(
                send("POST", "/internal/v1/topics", "{\"name\":\"a\",\"partitions\":1,\"replicationFactor\":1}"));
        assertNoLeader(send("DELETE", "/internal/v1/topics/a", null));
        assertNoLeader(send("POST", "/internal/v1/topics/a/configs", "{\"set\":{}}"));
        assertNoLeader(send(
                "POST",
                "/internal/v1/topics/a/partitions/0/alter",
                "{\"leaderId\":1,\"leaderEpoch\":0,\"partitionEpoch\":0,\"isr\":[1]}"));
        assertNoLeader(send("POST", "/internal/v1/topics/a/partitions", "{\"count\":2}"));
        assertNoLeader(send("POST", "/internal/v1/producer-ids", "{\"brokerId\":1,\"count\":1000}"));
    }

    @Test
    void readsAreStillAnsweredFromThisVotersImage() throws Exception {
        HttpResponse<String> cluster = send("GET", "/internal/v1/cluster", null);
        assertThat(cluster.statusCode()).isEqualTo(200);
        assertThat(cluster.body()).contains("\"leaderId\":null").contains("\"httpAddress\":\"127.0.0.1:3\"");
        HttpResponse<String> metadata = send("GET", "/internal/v1/metadata?after=0&max_wait_ms=10", null);
        assertThat(metadata.statusCode()).isEqualTo(200);
        assertThat(metadata.body()).contains("\"version\":0");
    }
}
