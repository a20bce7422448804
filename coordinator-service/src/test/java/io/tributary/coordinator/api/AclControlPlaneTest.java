package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.coordinator.app.CoordinatorApplication;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.testing.TestCoordinators;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * ACLs through a one-voter coordinator process: {@code POST /internal/v1/acls} answers each creation
 * and commits the valid ones, the metadata long poll carries every ACL, and {@code POST
 * /internal/v1/acls/delete} answers each filter's matches and deletes them.
 */
@SpringBootTest(
        classes = CoordinatorApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "tributary.coordinator.metadata.max-acls=3")
class AclControlPlaneTest {

    private static Path dataDir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws IOException {
        dataDir = TestCoordinators.oneVoter(registry, "acl-control-plane-test");
    }

    @AfterAll
    static void deleteDataDir() throws IOException {
        TestCoordinators.deleteRecursively(dataDir);
    }

    @LocalServerPort
    int httpPort;

    @Autowired
    MetadataRaftNode node;

    private final JsonMapper json = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void leader() {
        await().atMost(Duration.ofSeconds(20)).until(node::isLeader);
    }

    private JsonNode call(String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path));
        if (body == null) {
            request.GET();
        } else {
            request.POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json");
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json.readTree(response.body());
    }

    private static String acl(String name, String pattern, String principal) {
        return """
                {"resourceType":"TOPIC","resourceName":"%s","patternType":"%s","principal":"%s","host":"*",\
                "operation":"READ","permission":"ALLOW"}""".formatted(name, pattern, principal);
    }

    @Test
    void createdAclsReachTheLongPollAndADeletionByFilterAnswersAndRemovesWhatItMatched() throws Exception {
        long before = node.stateMachine().image().version();
        JsonNode created = call(
                "/internal/v1/acls",
                "{\"creations\":[%s,%s,%s]}"
                        .formatted(
                                acl("orders", "LITERAL", "User:bob"),
                                acl("ord", "PREFIXED", "User:bob"),
                                acl("orders", "LITERAL", "bob")));

        assertThat(created.get("results").findValuesAsString("error"))
                .containsExactly("NONE", "NONE", "INVALID_REQUEST");
        assertThat(created.get("version").asLong()).isGreaterThan(before);
        JsonNode metadata = call("/internal/v1/metadata", null);
        assertThat(metadata.get("acls")).hasSize(2);
        JsonNode delta = call("/internal/v1/metadata?after=" + before + "&max_wait_ms=0", null);
        assertThat(delta.get("acls").findValuesAsString("resourceName")).containsExactly("ord", "orders");

        JsonNode deleted = call("/internal/v1/acls/delete", """
                {"filters":[{"resourceType":"TOPIC","resourceName":"orders","patternType":"MATCH",\
                "operation":"ANY","permission":"ANY"},{"resourceType":"UNKNOWN","patternType":"ANY",\
                "operation":"ANY","permission":"ANY"}]}""");

        JsonNode first = deleted.get("results").get(0);
        assertThat(first.get("error").asString()).isEqualTo("NONE");
        assertThat(first.get("matched").findValuesAsString("resourceName")).containsExactly("ord", "orders");
        assertThat(deleted.get("results").get(1).get("error").asString()).isEqualTo("INVALID_REQUEST");
        assertThat(node.stateMachine().image().acls().size()).isZero();
    }
}
