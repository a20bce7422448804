package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.tributary.systemtests.ManifestPods.PodRun;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The chart's TLS on real processes: renders it with {@code security.tls.existingSecret} (PEM
 * {@code tls.crt}, {@code tls.key}, {@code ca.crt}, as cert-manager writes them), HTTPS coordinators
 * (an SSL bundle of the PEM files), mutual TLS on their Raft port from the same files, and the
 * admin's password from an existing Secret, adds those two Secrets as {@code kubectl create
 * secret} would (a CA and a certificate for 127.0.0.1 made with openssl), and runs one coordinator,
 * one broker and one gateway with {@link ManifestPods}. The coordinator answers its probes over
 * HTTPS, the broker registers through HTTPS trusting the Secret's {@code ca.crt}, and a Kafka client
 * logs in over SASL_SSL with the supplied password while one that does not trust the CA cannot.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
// Each runs a whole rendered cluster (up to six JVMs): never the two at once on a shared machine.
@ResourceLock(ManifestPods.LOCK)
class HelmTlsIT {

    /** Three JVMs starting beside other test classes' on two cores took 2.5 minutes in one run. */
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(5);

    private static final String ADMIN_PASSWORD = "admin-password-from-an-existing-secret";

    private static final Map<String, Object> VALUES = ManifestPods.withTestJvms(Map.ofEntries(
            Map.entry("coordinator.replicas", 1),
            Map.entry("broker.replicas", 1),
            Map.entry("gateway.autoscaling.enabled", false),
            Map.entry("gateway.replicas", 1),
            Map.entry("security.tls.existingSecret", "kafka-tls"),
            Map.entry("security.coordinatorHttps.enabled", true),
            Map.entry("security.raftTls.enabled", true),
            Map.entry("security.users.existingSecret", "kafka-admin"),
            Map.entry("security.users.adminPasswordKey", "password")));

    @TempDir
    static Path work;

    private static final List<PodRun> pods = new ArrayList<>();
    private static Path caFile;
    private static HttpClient https;

    @BeforeAll
    static void renderAndStartEveryPod() throws Exception {
        DebianTool.requireOnPath("openssl", "openssl");
        Path repoRoot = HelmChart.repoRoot();
        Path logsDir = ManifestPods.logsDir("helm-tls-it-logs");
        Runtime.getRuntime().addShutdownHook(new Thread(HelmTlsIT::stopAll, "helm-tls-it-stopper"));

        Path tls = Files.createDirectories(work.resolve("tls-material"));
        makeCertificates(tls);
        caFile = tls.resolve("ca.crt");
        https = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(3))
                .sslContext(trusting(caFile))
                .build();

        List<HasMetadata> resources = new ArrayList<>(HelmChart.render(Optional.empty(), VALUES));
        resources.add(secret(
                "kafka-tls",
                Map.of(
                        "tls.crt", Files.readAllBytes(tls.resolve("tls.crt")),
                        "tls.key", Files.readAllBytes(tls.resolve("tls.key")),
                        "ca.crt", Files.readAllBytes(caFile))));
        resources.add(secret("kafka-admin", Map.of("password", ADMIN_PASSWORD.getBytes(StandardCharsets.UTF_8))));
        pods.addAll(ManifestPods.start(resources, work, logsDir, repoRoot));
    }

    @AfterAll
    static void stopAll() {
        ManifestPods.stop(pods);
    }

    @Test
    @Order(1)
    void everyPodBecomesReadyTheCoordinatorOnHttps() {
        assertThat(pods)
                .extracting(PodRun::name)
                .containsExactlyInAnyOrder(
                        "demo-tributary-coordinator-0", "demo-tributary-broker-0", "demo-tributary-gateway-0");
        ManifestPods.awaitReady(pods, READY_TIMEOUT, https);
        assertThat(pods)
                .allSatisfy(pod -> assertThat(
                                pod.container().getReadinessProbe().getHttpGet().getScheme())
                        .as(pod.name() + " probe scheme")
                        .isEqualTo(pod.component().equals("coordinator") ? "HTTPS" : null));
    }

    @Test
    @Order(2)
    void theBrokerReachesTheCoordinatorOverHttpsTrustingTheSecretsCa() {
        PodRun broker = pod("broker");
        PodRun coordinator = pod("coordinator");

        assertThat(broker.env().get("TRIBUTARY_BROKER_COORDINATORS"))
                .isEqualTo("https://127.0.0.1:" + coordinator.port("http"));
        assertThat(Path.of(broker.env().get("TRIBUTARY_BROKER_CLUSTER_SSL_TRUSTSTORE_LOCATION")))
                .as("the mounted ca.crt")
                .hasSameTextualContentAs(caFile);
        HttpClient plain =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
        int status;
        try {
            status = plain.send(
                            HttpRequest.newBuilder(URI.create(
                                            "http://127.0.0.1:" + coordinator.port("http") + "/actuator/health"))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .statusCode();
        } catch (IOException e) {
            status = -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        assertThat(status)
                .as("plain HTTP on the coordinator's HTTPS port is not served")
                .isNotEqualTo(200);
    }

    @Test
    @Order(3)
    void kafkaClientsLogInOverSaslSslWithTheSuppliedPasswordAndTheCa() throws Exception {
        PodRun broker = pod("broker");
        String bootstrap = "127.0.0.1:" + broker.port("kafka");

        try (Admin admin = Admin.create(saslSsl(bootstrap, Optional.of(caFile)))) {
            admin.createTopics(List.of(new NewTopic("over-tls", 1, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("over-tls");
        }
        try (Admin untrusting = Admin.create(saslSsl(bootstrap, Optional.empty()))) {
            assertThatThrownBy(() -> untrusting.listTopics().names().get(30, TimeUnit.SECONDS))
                    .as("a client that does not trust the Secret's CA")
                    .isInstanceOf(ExecutionException.class);
        }
    }

    // ---- helpers ------------------------------------------------------------------------------

    private static PodRun pod(String component) {
        return pods.stream()
                .filter(p -> p.component().equals(component))
                .findFirst()
                .orElseThrow();
    }

    private static Map<String, Object> saslSsl(String bootstrap, Optional<Path> trust) {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        config.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        config.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\""
                        + ADMIN_PASSWORD + "\";");
        trust.ifPresent(ca -> {
            config.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            config.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.toString());
        });
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return config;
    }

    /** A Secret as {@code kubectl create secret generic NAME --from-file=...} makes it. */
    private static Secret secret(String name, Map<String, byte[]> files) {
        Map<String, String> data = new LinkedHashMap<>();
        files.forEach((key, bytes) -> data.put(key, Base64.getEncoder().encodeToString(bytes)));
        return new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(HelmChart.NAMESPACE)
                .endMetadata()
                .withData(data)
                .build();
    }

    /** A CA (ca.crt) and a server key and certificate it signed for 127.0.0.1 (tls.key, tls.crt), PEM. */
    private static void makeCertificates(Path dir) throws IOException, InterruptedException {
        Files.writeString(
                dir.resolve("server.ext"),
                "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                        + "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n");
        List<String> newEcKey =
                List.of("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout");
        openssl(dir, "req", "-x509", newEcKey, "ca.key", "-out", "ca.crt", "-subj", "/CN=helm-tls-it CA", "-days", "2");
        openssl(dir, "req", newEcKey, "tls.key", "-out", "tls.csr", "-subj", "/CN=localhost");
        openssl(
                dir,
                "x509",
                "-req",
                "-in",
                "tls.csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "tls.crt",
                "-days",
                "2",
                "-extfile",
                "server.ext");
    }

    /** Runs openssl in {@code dir}; each argument a word or a list of words. */
    private static void openssl(Path dir, Object... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("openssl"));
        for (Object arg : args) {
            if (arg instanceof List<?> words) {
                words.forEach(word -> command.add(word.toString()));
            } else {
                command.add(arg.toString());
            }
        }
        Path output = dir.resolve("openssl.log");
        Process process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS))
                .as("openssl %s", command)
                .isTrue();
        assertThat(process.exitValue())
                .as("openssl %s: %s", command, Files.readString(output))
                .isZero();
    }

    private static SSLContext trusting(Path caPem) throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            store.setCertificateEntry(
                    "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }
}
