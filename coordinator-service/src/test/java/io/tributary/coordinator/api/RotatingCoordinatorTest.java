package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.ControlPlaneSignature;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.common.security.tls.TrustStores;
import io.tributary.common.testing.SecretVolume;
import io.tributary.common.testing.TestCertificates;
import io.tributary.coordinator.app.CoordinatorApplication;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.testing.TestCoordinators;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A coordinator in the middle of both rotations docs/security.md describes: its cluster secret is
 * the new one with the old one as {@code previous-secret-file}, and its HTTPS certificate comes from
 * a Spring Boot SSL bundle with {@code reload-on-update}, its files in a directory laid out as
 * Kubernetes mounts a Secret ({@link SecretVolume}). A call signed under either secret goes
 * through, one under another secret does not; a broker's internal SCRAM credential follows the
 * secret it signs with; replaced certificate files serve the next connections, and a half-written
 * replacement is kept out.
 */
@SpringBootTest(classes = CoordinatorApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RotatingCoordinatorTest {

    private static final ClusterSecret OLD = ClusterSecret.of("the cluster secret being rotated out, 32 bytes");
    private static final ClusterSecret NEW = ClusterSecret.of("the cluster secret being rotated in, 32 bytes");

    private static Path dataDir;
    private static Path tls;
    private static TestCertificates certificates;
    private static SecretVolume mount;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws IOException, InterruptedException {
        dataDir = TestCoordinators.oneVoter(registry, "rotating-coordinator-test");
        Path secrets = Files.createDirectories(dataDir.resolve("secrets"));
        Path current =
                Files.writeString(secrets.resolve("cluster.secret"), "the cluster secret being rotated in, 32 bytes\n");
        Path previous = Files.writeString(
                secrets.resolve("previous.secret"), "the cluster secret being rotated out, 32 bytes\n");
        registry.add("tributary.coordinator.control.secret-file", current::toString);
        registry.add("tributary.coordinator.control.previous-secret-file", previous::toString);
        tls = Files.createDirectories(dataDir.resolve("tls"));
        certificates = new TestCertificates(tls);
        certificates.ca("ca");
        certificates.signedServer("ca", "first", "CN=localhost,OU=first,O=Tributary test");
        certificates.signedServer("ca", "second", "CN=localhost,OU=second,O=Tributary test");
        mount = SecretVolume.create(tls.resolve("mount"), certificates.tlsSecret("first"));
        registry.add("server.ssl.bundle", () -> "control-plane");
        registry.add(
                "spring.ssl.bundle.pem.control-plane.keystore.certificate",
                () -> mount.file("tls.crt").toString());
        registry.add(
                "spring.ssl.bundle.pem.control-plane.keystore.private-key",
                () -> mount.file("tls.key").toString());
        registry.add("spring.ssl.bundle.pem.control-plane.reload-on-update", () -> "true");
        registry.add("spring.ssl.bundle.watch.file.quiet-period", () -> "200ms");
    }

    @AfterAll
    static void deleteDataDir() throws IOException {
        TestCoordinators.deleteRecursively(dataDir);
    }

    @LocalServerPort
    int httpPort;

    @Autowired
    MetadataRaftNode node;

    private SSLContext trustingTheCa() throws IOException {
        return TrustStores.clientContext(tls.resolve("ca.pem"), "PEM", null);
    }

    @BeforeEach
    void leader() {
        TestCoordinators.awaitReadyLeader(node);
    }

    private HttpResponse<String> signed(ClusterSecret secret, int brokerId, String method, String path, String body)
            throws Exception {
        byte[] bytes = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + httpPort + path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header(
                        "Authorization",
                        ControlPlaneSignature.sign(
                                secret.brokerKey(brokerId), method, path, bytes, System.currentTimeMillis()));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        try (HttpClient http =
                HttpClient.newBuilder().sslContext(trustingTheCa()).build()) {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private boolean brokerLogsInWith(int brokerId, ClusterSecret secret) {
        return node.stateMachine()
                .image()
                .scramCredentials()
                .get("tributary-broker-" + brokerId, ScramKeys.SCRAM_SHA_512)
                .map(c -> ScramKeys.matches(
                        ScramKeys.SCRAM_SHA_512,
                        c,
                        secret.brokerKey(brokerId).kafkaLogin().password().toCharArray()))
                .orElse(false);
    }

    @Test
    void aCallSignedUnderTheNewOrThePreviousSecretGoesThroughAndUnderAnotherIsRefused() throws Exception {
        assertThat(signed(NEW, 1, "GET", "/internal/v1/cluster", null).statusCode())
                .isEqualTo(200);
        assertThat(signed(OLD, 1, "GET", "/internal/v1/cluster", null).statusCode())
                .isEqualTo(200);

        HttpResponse<String> other = signed(
                ClusterSecret.of("neither the new nor the previous secret, 32 bytes"),
                1,
                "GET",
                "/internal/v1/cluster",
                null);
        assertThat(other.statusCode()).isEqualTo(401);
        assertThat(other.body()).contains("under the current or the previous secret");
    }

    @Test
    void aBrokersInternalLoginFollowsTheSecretItSignsWith() throws Exception {
        UUID incarnation = UUID.randomUUID();
        String register = """
                {"brokerId":7,"incarnationId":"%s",
                 "endpoints":[{"listener":"PLAINTEXT","host":"127.0.0.1","port":9007}]}""".formatted(incarnation);
        HttpResponse<String> registered = signed(OLD, 7, "POST", "/internal/v1/brokers", register);
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> brokerLogsInWith(7, OLD));

        // the broker restarts with the new secret
        UUID restarted = UUID.randomUUID();
        HttpResponse<String> again = signed(
                NEW, 7, "POST", "/internal/v1/brokers", register.replace(incarnation.toString(), restarted.toString()));
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> brokerLogsInWith(7, NEW));
        assertThat(brokerLogsInWith(7, OLD)).isFalse();
    }

    /** The serial number of the certificate a new TLS connection to the control plane is shown. */
    private BigInteger servedSerial() throws IOException {
        try (SSLSocket socket = (SSLSocket) trustingTheCa().getSocketFactory().createSocket("127.0.0.1", httpPort)) {
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    private static BigInteger serialOf(String alias) throws Exception {
        try (InputStream in = Files.newInputStream(tls.resolve(alias + ".crt"))) {
            return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in))
                    .getSerialNumber();
        }
    }

    @Test
    void replacedCertificateFilesServeTheNextConnectionsAndAHalfWrittenOneIsKeptOut() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> servedSerial().equals(serialOf("first")));

        mount.publish(certificates.tlsSecret("second"));
        await().atMost(Duration.ofSeconds(30)).until(() -> servedSerial().equals(serialOf("second")));

        // half written: the chain cut in the middle of its first certificate
        String chain = certificates.chainPem("first.p12", "first");
        mount.publish(Map.of(
                "tls.key", certificates.privateKeyPem("first.p12", "first"),
                "tls.crt", chain.substring(0, chain.length() / 3)));
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(10))
                .until(() -> servedSerial().equals(serialOf("second")));
    }
}
