package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.ControlPlaneSignature;
import io.tributary.common.security.tls.TrustStores;
import io.tributary.common.testing.TestCertificates;
import io.tributary.coordinator.app.CoordinatorApplication;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.testing.TestCoordinators;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A coordinator with {@code tributary.coordinator.control.secret-file} set, serving HTTPS with
 * Spring Boot's {@code server.ssl.*} (a PEM key and chain, as cert-manager writes them): a call
 * without a broker's signature, with a wrong one or an old one is refused (401, {@code
 * WWW-Authenticate}); a signed call goes through; a broker acting for another broker's id is
 * refused (403); the actuator stays outside the control plane's authentication.
 */
@SpringBootTest(classes = CoordinatorApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AuthenticatedControlPlaneTest {

    private static final String SECRET = "a test cluster's secret of 32 bytes or more";

    private static Path dataDir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws IOException {
        dataDir = TestCoordinators.oneVoter(registry, "authenticated-control-plane-test");
        Path secretFile = Files.writeString(dataDir.resolveSibling(dataDir.getFileName() + ".secret"), SECRET);
        registry.add("tributary.coordinator.control.secret-file", secretFile::toString);
        Path tls = Files.createDirectories(dataDir.resolve("tls"));
        TestCertificates certificates = new TestCertificates(tls);
        try {
            caPem = certificates.ca("ca");
            certificates.signedServer("ca", "coordinator", "CN=localhost,O=Tributary test");
        } catch (InterruptedException e) {
            throw new IOException(e);
        }
        Path key =
                Files.writeString(tls.resolve("tls.key"), certificates.privateKeyPem("coordinator.p12", "coordinator"));
        Path chain = Files.writeString(tls.resolve("tls.crt"), certificates.chainPem("coordinator.p12", "coordinator"));
        registry.add("server.ssl.certificate", chain::toString);
        registry.add("server.ssl.certificate-private-key", key::toString);
    }

    private static Path caPem;

    @AfterAll
    static void deleteDataDir() throws IOException {
        TestCoordinators.deleteRecursively(dataDir);
        Files.deleteIfExists(dataDir.resolveSibling(dataDir.getFileName() + ".secret"));
    }

    @LocalServerPort
    int httpPort;

    @Autowired
    MetadataRaftNode node;

    private final ClusterSecret secret = ClusterSecret.of(SECRET);
    /** Made on first use: the CA exists once the context (and its property source) started. */
    private HttpClient http;

    @BeforeEach
    void leader() {
        TestCoordinators.awaitReadyLeader(node);
    }

    private HttpResponse<String> call(String method, String path, String body, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + httpPort + path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (http == null) {
            http = HttpClient.newBuilder()
                    .sslContext(TrustStores.clientContext(caPem, "PEM", null))
                    .build();
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> signed(int brokerId, String method, String path, String body) throws Exception {
        byte[] bytes = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
        return call(
                method,
                path,
                body,
                ControlPlaneSignature.sign(
                        secret.brokerKey(brokerId), method, path, bytes, System.currentTimeMillis()));
    }

    private static String registerBody(int id, UUID incarnation) {
        return """
                {"brokerId":%d,"incarnationId":"%s",
                 "endpoints":[{"listener":"PLAINTEXT","host":"127.0.0.1","port":%d}]}""".formatted(id, incarnation, 9000 + id);
    }

    private static void assertProblem(HttpResponse<String> answer, int status, String slug) {
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(status);
        assertThat(answer.body()).contains("urn:tributary:problem:coordinator:" + slug);
    }

    @Test
    void anUnsignedCallIsRefusedAndSaysHowToAuthenticate() throws Exception {
        HttpResponse<String> answer = call("GET", "/internal/v1/metadata", null, null);

        assertProblem(answer, 401, "unauthenticated");
        assertThat(answer.headers().firstValue("WWW-Authenticate")).hasValue("Tributary-Broker");
        assertThat(answer.body()).contains("no Authorization header");
        assertProblem(
                call("POST", "/internal/v1/brokers", registerBody(1, UUID.randomUUID()), null), 401, "unauthenticated");
    }

    @Test
    void aSignedReadGoesThroughAndATamperedOrStaleOneDoesNot() throws Exception {
        assertThat(signed(1, "GET", "/internal/v1/metadata", null).statusCode()).isEqualTo(200);
        assertThat(signed(1, "GET", "/internal/v1/cluster", null).statusCode()).isEqualTo(200);

        String forMetadata = ControlPlaneSignature.sign(
                secret.brokerKey(1), "GET", "/internal/v1/metadata", null, System.currentTimeMillis());
        assertProblem(call("GET", "/internal/v1/cluster", null, forMetadata), 401, "unauthenticated");

        String old = ControlPlaneSignature.sign(
                secret.brokerKey(1),
                "GET",
                "/internal/v1/cluster",
                null,
                System.currentTimeMillis() - Duration.ofMinutes(6).toMillis());
        assertProblem(call("GET", "/internal/v1/cluster", null, old), 401, "unauthenticated");

        ClusterSecret other = ClusterSecret.of("another cluster's secret, 32 bytes or more");
        String foreign = ControlPlaneSignature.sign(
                other.brokerKey(1), "GET", "/internal/v1/cluster", null, System.currentTimeMillis());
        assertProblem(call("GET", "/internal/v1/cluster", null, foreign), 401, "unauthenticated");
    }

    @Test
    void aSignedQueryIsCheckedWithItsQuery() throws Exception {
        assertThat(signed(2, "GET", "/internal/v1/metadata?after=0&max_wait_ms=0", null)
                        .statusCode())
                .isEqualTo(200);
    }

    @Test
    void aBrokerRegistersAndHeartbeatsAsItselfButNotAsAnotherBroker() throws Exception {
        UUID incarnation = UUID.randomUUID();
        HttpResponse<String> registered = signed(3, "POST", "/internal/v1/brokers", registerBody(3, incarnation));
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
        String beat = "{\"incarnationId\":\"" + incarnation + "\"}";
        assertThat(signed(3, "POST", "/internal/v1/brokers/3/heartbeat", beat).statusCode())
                .isEqualTo(200);

        HttpResponse<String> impersonated = signed(4, "POST", "/internal/v1/brokers", registerBody(3, incarnation));
        assertProblem(impersonated, 403, "forbidden");
        assertThat(impersonated.body()).contains("broker 4 may act only for itself, not for broker 3");
        assertProblem(signed(4, "POST", "/internal/v1/brokers/3/heartbeat", beat), 403, "forbidden");
        assertProblem(signed(4, "POST", "/internal/v1/brokers/3/shutdown", beat), 403, "forbidden");
        assertProblem(
                signed(4, "POST", "/internal/v1/producer-ids", "{\"brokerId\":3,\"count\":10}"), 403, "forbidden");
        assertProblem(
                signed(
                        4,
                        "POST",
                        "/internal/v1/topics/t/partitions/0/alter",
                        "{\"leaderId\":3,\"leaderEpoch\":0,\"partitionEpoch\":0,\"isr\":[3]}"),
                403,
                "forbidden");
    }

    @Test
    void theActuatorIsNotPartOfTheControlPlane() throws Exception {
        assertThat(call("GET", "/actuator/health", null, null).statusCode()).isEqualTo(200);
    }
}
