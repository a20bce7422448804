package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
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
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
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
 * SCRAM credentials through a one-voter coordinator process: the bootstrap user configured for the
 * new cluster is in its metadata, {@code POST /internal/v1/scram-credentials} answers per user and
 * commits what it accepted, and the metadata long poll carries the credentials to brokers.
 */
@SpringBootTest(
        classes = CoordinatorApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "tributary.coordinator.security.bootstrap-scram-users[0].name=admin",
            "tributary.coordinator.security.bootstrap-scram-users[0].password=admin-secret",
            "tributary.coordinator.security.bootstrap-scram-users[0].iterations=8192",
            "tributary.coordinator.security.max-scram-user-name-length=10"
        })
class ScramControlPlaneTest {

    private static Path dataDir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws IOException {
        dataDir = TestCoordinators.oneVoter(registry, "scram-control-plane-test");
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
    void bootstrapped() {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> node.isLeader()
                        && node.stateMachine().image().scramCredentials().bootstrapped());
    }

    private JsonNode call(String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path));
        if (body == null) {
            request.GET();
        } else {
            request.method(method, HttpRequest.BodyPublishers.ofString(body))
                    .header("Content-Type", "application/json");
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json.readTree(response.body());
    }

    private static Map<String, String> errors(JsonNode answer) {
        Map<String, String> errors = new HashMap<>();
        answer.get("results")
                .forEach(
                        r -> errors.put(r.get("user").asString(), r.get("error").asString()));
        return errors;
    }

    private static JsonNode user(JsonNode metadata, String name) {
        for (JsonNode u : metadata.get("scramCredentials")) {
            if (u.get("user").asString().equals(name)) {
                return u;
            }
        }
        return null;
    }

    @Test
    void theBootstrapUserIsInTheFullMetadataWithoutItsPassword() throws Exception {
        JsonNode metadata = call("GET", "/internal/v1/metadata", null);

        JsonNode admin = user(metadata, "admin");
        assertThat(admin).as(metadata.toString()).isNotNull();
        JsonNode credential = admin.get("credentials").get(0);
        assertThat(credential.get("mechanism").asInt()).isEqualTo(ScramKeys.SCRAM_SHA_512);
        assertThat(credential.get("iterations").asInt()).isEqualTo(8192);
        ScramCredentialData data = new ScramCredentialData(
                Base64.getDecoder().decode(credential.get("salt").asString()),
                Base64.getDecoder().decode(credential.get("storedKey").asString()),
                Base64.getDecoder().decode(credential.get("serverKey").asString()),
                8192);
        assertThat(ScramKeys.matches(ScramKeys.SCRAM_SHA_512, data, "admin-secret".toCharArray()))
                .isTrue();
        assertThat(metadata.toString()).doesNotContain("admin-secret");
    }

    @Test
    void anAlterationAnswersPerUserCommitsTheAcceptedAndTheLongPollCarriesThem() throws Exception {
        long before = node.stateMachine().image().version();
        ScramCredentialData c = ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_256, "pw", new byte[] {1, 2}, 4096);
        String upsert = """
                {"user":"%s","mechanism":1,"iterations":%d,"salt":"%s","storedKey":"%s","serverKey":"%s"}""";
        Base64.Encoder b64 = Base64.getEncoder();
        String ok = upsert.formatted(
                "carol",
                4096,
                b64.encodeToString(c.salt()),
                b64.encodeToString(c.storedKey()),
                b64.encodeToString(c.serverKey()));
        String few = upsert.formatted(
                "dave",
                100,
                b64.encodeToString(c.salt()),
                b64.encodeToString(c.storedKey()),
                b64.encodeToString(c.serverKey()));
        String longName = upsert.formatted(
                "a-very-long-name",
                4096,
                b64.encodeToString(c.salt()),
                b64.encodeToString(c.storedKey()),
                b64.encodeToString(c.serverKey()));

        JsonNode answer = call(
                "POST",
                "/internal/v1/scram-credentials",
                "{\"deletions\":[{\"user\":\"nobody\",\"mechanism\":1}],\"upsertions\":[%s,%s,%s]}"
                        .formatted(ok, few, longName));

        assertThat(errors(answer))
                .containsOnly(
                        Map.entry("carol", "NONE"),
                        Map.entry("dave", "UNACCEPTABLE_CREDENTIAL"),
                        Map.entry("a-very-long-name", "UNACCEPTABLE_CREDENTIAL"),
                        Map.entry("nobody", "RESOURCE_NOT_FOUND"));
        long version = answer.get("version").asLong();
        assertThat(version).isEqualTo(before + 1);
        assertThat(node.stateMachine().image().scramCredentials().get("carol", 1))
                .contains(c);

        JsonNode delta = call("GET", "/internal/v1/metadata?after=" + before + "&max_wait_ms=0", null);
        assertThat(delta.get("full").asBoolean()).isFalse();
        assertThat(user(delta, "carol")).isNotNull();
        assertThat(user(delta, "admin")).as("credentials travel whole").isNotNull();

        JsonNode unchanged = call(
                "POST", "/internal/v1/scram-credentials", "{\"deletions\":[{\"user\":\"carol\",\"mechanism\":2}]}");
        assertThat(errors(unchanged)).containsOnly(Map.entry("carol", "RESOURCE_NOT_FOUND"));
        assertThat(unchanged.get("version").asLong()).isEqualTo(version);

        JsonNode deleted = call(
                "POST", "/internal/v1/scram-credentials", "{\"deletions\":[{\"user\":\"carol\",\"mechanism\":1}]}");
        assertThat(errors(deleted)).containsOnly(Map.entry("carol", "NONE"));
        JsonNode afterDeletion = call("GET", "/internal/v1/metadata?after=" + version + "&max_wait_ms=0", null);
        assertThat(user(afterDeletion, "carol")).isNull();
        assertThat(user(afterDeletion, "admin")).isNotNull();
        JsonNode quiet = call(
                "GET",
                "/internal/v1/metadata?after=" + afterDeletion.get("version").asLong() + "&max_wait_ms=0",
                null);
        JsonNode none = quiet.get("scramCredentials");
        assertThat(none == null || none.isNull()).as(quiet.toString()).isTrue();
    }
}
