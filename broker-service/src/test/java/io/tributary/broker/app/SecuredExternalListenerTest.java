package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.broker.app.ExternalListenerConfiguration.ExternalKafkaListener;
import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.ClusterAcls;
import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.FakeCoordinatorServer;
import io.tributary.broker.cluster.MetadataFollower;
import io.tributary.broker.cluster.ScramUsers;
import io.tributary.common.app.KafkaListenerLifecycle;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.sasl.ScramKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A broker process whose external listener is SASL_SSL ({@code
 * tributary.broker.external-listener.security-protocol}): TLS from PEM files signed by a test CA
 * (the global {@code tributary.broker.ssl.*}, as the Helm chart sets them), SASL mechanisms of its
 * own ({@code tributary.broker.listener.name.external.sasl.enabled.mechanisms}), SCRAM users from
 * the coordinators, the authorizer on. kafka-clients log in through the external address it
 * advertises ({@code localhost}, which the certificate names), are told the external addresses of
 * every broker, and produce and consume as a SCRAM user and as a PLAIN user checked against the
 * SCRAM credentials; the ACLs the coordinators store apply to its principals; a plaintext client,
 * a wrong password and a user no ACL allows are refused.
 */
class SecuredExternalListenerTest {

    private static final int BROKER_ID = 0;
    private static final String TOPIC = "outside-secured";
    private static final String ALICE_PASSWORD = "alice-secret";

    @TempDir
    static Path dir;

    private static FakeControlPlane coordinator;
    private static FakeCoordinatorServer server;
    private static ConfigurableApplicationContext broker;
    private static Path caPem;
    private static int internalPort;
    private static int externalPort;

    @BeforeAll
    static void startBrokerWithASaslSslExternalListener() throws Exception {
        caPem = ListenerClients.localhostTlsFiles(dir);
        coordinator = new FakeControlPlane();
        server = new FakeCoordinatorServer(coordinator);
        broker = ListenerClients.startBroker(
                server,
                BROKER_ID,
                dir.resolve("data"),
                "--tributary.kafka.port=0",
                "--tributary.broker.external-listener.enabled=true",
                "--tributary.broker.external-listener.port=0",
                "--tributary.broker.external-listener.advertised-host=localhost",
                "--tributary.broker.external-listener.security-protocol=SASL_SSL",
                "--tributary.broker.ssl.keystore.type=PEM",
                "--tributary.broker.ssl.keystore.location=" + dir.resolve("tls.key"),
                "--tributary.broker.ssl.keystore.certificate.chain.location=" + dir.resolve("tls.crt"),
                "--tributary.broker.listener.name.external.sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN",
                "--tributary.broker.authorizer.enabled=true");
        MetadataFollower follower = broker.getBean(MetadataFollower.class);
        await().atMost(Duration.ofSeconds(30)).until(follower::isActive);
        internalPort = broker.getBean(KafkaListenerLifecycle.class).server().port();
        externalPort = broker.getBean(ExternalKafkaListener.class).server().port();

        long created = coordinator.createTopic(TOPIC, 1, 1, Map.of()).version();
        // Another broker of the cluster, registered here with no process behind it.
        Uuid incarnation = Uuid.randomUuid();
        coordinator.register(
                5,
                incarnation,
                null,
                List.of(
                        new BrokerEndpoint("PLAINTEXT", "broker-5.internal.example", 9092),
                        new BrokerEndpoint("EXTERNAL", "broker-5.kafka.example.com", 31005)));
        long registered = coordinator.heartbeat(5, incarnation);
        var alice = ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_512, ALICE_PASSWORD, new byte[] {1, 2, 3}, 4096);
        var bob = ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_512, "bob-secret", new byte[] {4, 5, 6}, 4096);
        coordinator.scramCredentials(new ScramUsers(Map.of("alice", Map.of(2, alice), "bob", Map.of(2, bob))));
        long acls = coordinator.acls(new ClusterAcls(List.of(new AclBinding(
                AclResourceType.TOPIC,
                TOPIC,
                AclPatternType.LITERAL,
                "User:alice",
                "*",
                AclOperation.ALL,
                AclPermission.ALLOW))));
        long version = Math.max(Math.max(created, registered), acls);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> follower.image().version() >= version
                        && follower.image().brokers().size() == 2
                        && !follower.image().broker(5).orElseThrow().fenced());
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

    private static Properties client(String protocol, String mechanism, String user, String password) {
        return ListenerClients.sasl("localhost:" + externalPort, protocol, mechanism, user, password, caPem);
    }

    @Test
    void theBrokerRegistersTheExternalListenersAdvertisedAddress() {
        assertThat(coordinator.broker(BROKER_ID).endpoints())
                .containsExactly(
                        new BrokerEndpoint("PLAINTEXT", "127.0.0.1", internalPort),
                        new BrokerEndpoint("EXTERNAL", "localhost", externalPort));
    }

    @Test
    void aScramUserLogsInOverTlsIsToldTheExternalAddressesAndProducesAndConsumes() throws Exception {
        Properties client = client("SASL_SSL", "SCRAM-SHA-512", "alice", ALICE_PASSWORD);
        try (Admin admin = Admin.create(client)) {
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .containsExactlyInAnyOrder(
                            new Node(BROKER_ID, "localhost", externalPort),
                            new Node(5, "broker-5.kafka.example.com", 31005));
        }
        assertThat(ListenerClients.produceAndConsume(
                        client, TOPIC, "scram", new Node(BROKER_ID, "localhost", externalPort)))
                .containsExactly("scram-0", "scram-1");
    }

    @Test
    void aPlainLoginIsCheckedAgainstTheScramCredentials() throws Exception {
        Properties client = client("SASL_SSL", "PLAIN", "alice", ALICE_PASSWORD);
        assertThat(ListenerClients.produceAndConsume(
                        client, TOPIC, "plain", new Node(BROKER_ID, "localhost", externalPort)))
                .containsExactly("plain-0", "plain-1");
    }

    @Test
    void aPlaintextClientIsRefused() {
        Properties client = client("PLAINTEXT", "PLAIN", "alice", ALICE_PASSWORD);
        client.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
        client.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
        try (Admin admin = Admin.create(client)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .as("the listener answers no Kafka request before a TLS handshake")
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(TimeoutException.class);
        }
    }

    @Test
    void aWrongPasswordIsRefused() {
        try (Admin admin = Admin.create(client("SASL_SSL", "SCRAM-SHA-512", "alice", "wrong"))) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void aUserNoAclAllowsCannotProduce() {
        Properties config = client("SASL_SSL", "SCRAM-SHA-512", "bob", "bob-secret");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        try (var producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            assertThatThrownBy(() -> producer.send(
                                    new ProducerRecord<>(TOPIC, 0, null, "denied".getBytes(StandardCharsets.UTF_8)))
                            .get(30, TimeUnit.SECONDS))
                    .as("User:bob, authenticated on the external listener, is checked against the ACLs")
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void theExternalListenerCountsItsCertificateReloads() {
        assertThat(broker.getBean(MeterRegistry.class)
                        .find("tributary.protocol.tls.reloads")
                        .tag("listener", "external")
                        .functionCounter())
                .isNotNull()
                .satisfies(c -> assertThat(c.count()).isZero());
    }
}
