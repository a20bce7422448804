package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.broker.app.NamedListenersConfiguration.NamedKafkaListeners;
import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.FakeCoordinatorServer;
import io.tributary.broker.cluster.MetadataFollower;
import io.tributary.common.app.KafkaListenerLifecycle;
import io.tributary.common.testing.FileTokenLogin;
import io.tributary.common.testing.TestJwts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A broker process with three named listeners configured with Kafka's names, SASL_SSL (TLS from PEM
 * files signed by a test CA, advertised as {@code localhost}) and LOCAL mapped to SASL_PLAINTEXT,
 * PLAIN users from a file and no SCRAM users (no credential store bean), and OAUTH, SASL_PLAINTEXT
 * with OAUTHBEARER only (JWTs checked against a JWKS file, sessions of 2 s): it registers one
 * endpoint per listener, and kafka-clients log in, are told the listener's own addresses, and
 * produce and consume through each; a wrong password, a SCRAM login and an expired token are
 * refused; an OAUTHBEARER producer keeps producing across re-authentications (KIP-368).
 */
class NamedListenersTest {

    private static final String TOPIC = "named";
    private static final String JWT_ISSUER = "https://issuer.test";
    private static final String JWT_AUDIENCE = "tributary";

    @TempDir
    static Path dir;

    private static FakeControlPlane coordinator;
    private static FakeCoordinatorServer server;
    private static ConfigurableApplicationContext broker;
    private static Path caPem;
    private static int internalPort;
    private static int sslPort;
    private static int localPort;
    private static int oauthPort;
    private static final TestJwts.Signer JWT_KEY = TestJwts.Signer.create("ES256", "ec-1");

    @BeforeAll
    static void startBrokerWithNamedListeners() throws Exception {
        caPem = ListenerClients.localhostTlsFiles(dir);
        Files.writeString(dir.resolve("users.properties"), "alice=alice-secret\n");
        Files.writeString(dir.resolve("jwks.json"), TestJwts.jwks(JWT_KEY));
        coordinator = new FakeControlPlane();
        server = new FakeCoordinatorServer(coordinator);
        broker = ListenerClients.startBroker(
                server,
                0,
                dir.resolve("data"),
                "--tributary.kafka.port=0",
                "--tributary.broker.listeners=SASL_SSL://127.0.0.1:0,LOCAL://127.0.0.1:0,OAUTH://127.0.0.1:0",
                "--tributary.broker.advertised.listeners=SASL_SSL://localhost:0,LOCAL://:0,OAUTH://:0",
                "--tributary.broker.listener.security.protocol.map=SASL_SSL:SASL_SSL,LOCAL:SASL_PLAINTEXT,"
                        + "OAUTH:SASL_PLAINTEXT",
                "--tributary.broker.listener.name.oauth.sasl.enabled.mechanisms=OAUTHBEARER",
                "--tributary.broker.listener.name.oauth.oauthbearer.sasl.oauthbearer.jwks.endpoint.url="
                        + dir.resolve("jwks.json").toUri(),
                "--tributary.broker.sasl.oauthbearer.expected.issuer=" + JWT_ISSUER,
                "--tributary.broker.sasl.oauthbearer.expected.audience=" + JWT_AUDIENCE,
                "--tributary.broker.listener.name.oauth.oauthbearer.connections.max.reauth.ms=2000",
                "--tributary.broker.ssl.keystore.type=PEM",
                "--tributary.broker.ssl.keystore.location=" + dir.resolve("tls.key"),
                "--tributary.broker.ssl.keystore.certificate.chain.location=" + dir.resolve("tls.crt"),
                "--tributary.broker.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512",
                "--tributary.broker.sasl.plain.users.file=" + dir.resolve("users.properties"));
        MetadataFollower follower = broker.getBean(MetadataFollower.class);
        await().atMost(Duration.ofSeconds(30)).until(follower::isActive);
        internalPort = broker.getBean(KafkaListenerLifecycle.class).server().port();
        var named = broker.getBean(NamedKafkaListeners.class).listeners();
        sslPort = named.get(0).server().port();
        localPort = named.get(1).server().port();
        oauthPort = named.get(2).server().port();
        long created = coordinator.createTopic(TOPIC, 1, 1, Map.of()).version();
        await().atMost(Duration.ofSeconds(30)).until(() -> follower.image().version() >= created);
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static Properties sasl(String protocol, int port, String mechanism, String user, String password) {
        return ListenerClients.sasl("127.0.0.1:" + port, protocol, mechanism, user, password, caPem);
    }

    @Test
    void theBrokerRegistersOneEndpointPerListenerUnderItsName() {
        assertThat(coordinator.broker(0).endpoints())
                .containsExactly(
                        new BrokerEndpoint("PLAINTEXT", "127.0.0.1", internalPort),
                        new BrokerEndpoint("SASL_SSL", "localhost", sslPort),
                        new BrokerEndpoint("LOCAL", "127.0.0.1", localPort),
                        new BrokerEndpoint("OAUTH", "127.0.0.1", oauthPort));
    }

    @Test
    void aTlsListenerCountsItsCertificateReloadsAndAPlainOneDoesNot() {
        MeterRegistry registry = broker.getBean(MeterRegistry.class);
        assertThat(registry.find("tributary.protocol.tls.reloads")
                        .tag("listener", "SASL_SSL")
                        .functionCounter())
                .isNotNull()
                .satisfies(c -> assertThat(c.count()).isZero());
        assertThat(registry.find("tributary.protocol.tls.reload.failures")
                        .tag("listener", "SASL_SSL")
                        .functionCounter())
                .isNotNull();
        assertThat(registry.find("tributary.protocol.tls.reloads")
                        .tag("listener", "LOCAL")
                        .functionCounter())
                .isNull();
    }

    @Test
    void aPlainUserFromTheFileProducesAndConsumesOverSaslSslAndIsToldTheAdvertisedAddress() throws Exception {
        Properties client = sasl("SASL_SSL", sslPort, "PLAIN", "alice", "alice-secret");
        try (Admin admin = Admin.create(client)) {
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .containsExactly(new Node(0, "localhost", sslPort));
        }
        assertThat(ListenerClients.produceAndConsume(client, TOPIC, "tls", new Node(0, "localhost", sslPort)))
                .containsExactly("tls-0", "tls-1");
    }

    @Test
    void theSaslPlaintextListenerServesTheSameUsers() throws Exception {
        Properties client = sasl("SASL_PLAINTEXT", localPort, "PLAIN", "alice", "alice-secret");
        assertThat(ListenerClients.produceAndConsume(client, TOPIC, "local", new Node(0, "127.0.0.1", localPort)))
                .containsExactly("local-0", "local-1");
    }

    @Test
    void aWrongPasswordAndAScramLoginWithoutACredentialStoreAreRefused() {
        for (Properties client : new Properties[] {
            sasl("SASL_SSL", sslPort, "PLAIN", "alice", "wrong"),
            sasl("SASL_SSL", sslPort, "SCRAM-SHA-512", "alice", "alice-secret")
        }) {
            try (Admin admin = Admin.create(client)) {
                assertThatThrownBy(() -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .isInstanceOf(SaslAuthenticationException.class);
            }
        }
    }

    private static Properties oauth(String token) throws IOException {
        Path file = Files.createTempFile(dir, "token", ".jwt");
        Files.writeString(file, token);
        Properties client = new Properties();
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + oauthPort);
        client.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        client.putAll(FileTokenLogin.clientConfig(file));
        client.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        client.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return client;
    }

    private static String token(String sub, Instant expires) {
        Map<String, Object> claims = TestJwts.claims(sub, JWT_ISSUER, JWT_AUDIENCE, Instant.now());
        claims.put("exp", expires.getEpochSecond());
        return JWT_KEY.sign(claims);
    }

    private static double reauthentications(String result) {
        var counter = broker.getBean(MeterRegistry.class)
                .find("tributary.protocol.sasl.reauthentications")
                .tags("listener", "OAUTH", "result", result)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void anOAuthBearerClientProducesAndConsumesAndKeepsProducingAcrossReauthentications() throws Exception {
        Properties client = oauth(token("carol", Instant.now().plusSeconds(3600)));
        assertThat(ListenerClients.produceAndConsume(client, TOPIC, "oauth", new Node(0, "127.0.0.1", oauthPort)))
                .containsExactly("oauth-0", "oauth-1");

        Properties producerConfig = new Properties();
        producerConfig.putAll(client);
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        double before = reauthentications("success");
        try (var producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            await().pollInterval(Duration.ofMillis(200))
                    .atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> {
                        producer.send(new ProducerRecord<>(TOPIC, 0, null, "again".getBytes(StandardCharsets.UTF_8)))
                                .get(30, TimeUnit.SECONDS);
                        assertThat(reauthentications("success")).isGreaterThanOrEqualTo(before + 3);
                    });
        }
        assertThat(reauthentications("failure")).isZero();
    }

    @Test
    void anExpiredTokenIsRefusedWithKafkasInvalidToken() throws Exception {
        try (Admin admin = Admin.create(oauth(token("carol", Instant.now().minusSeconds(300))))) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("invalid_token");
        }
    }
}
