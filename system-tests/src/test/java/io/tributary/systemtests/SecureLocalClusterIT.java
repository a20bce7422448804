package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.testing.KafkaTestConnection;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/tributary up --secure} on the jars the reactor packaged (one coordinator, one broker,
 * the gateway): the client configs it writes are what Kafka's clients and kcat take as they are
 * ({@code admin.properties} as {@code --command-config}, {@code admin.kcat.properties} as kcat's
 * {@code -F}); the SASL_SSL listener refuses a client without credentials; the authorizer is on
 * (a new user can do nothing until an ACL allows it); the LOCAL SASL_PLAINTEXT listener serves the
 * admin on 127.0.0.1 with {@code admin-local.properties} as written; the gateway logs in (it is ready). The internal Kafka traffic is SASL_SSL:
 * the broker's internal listener and the coordinator's Kafka listener refuse a PLAINTEXT client and
 * a TLS client without the run's CA, and a classic group's commit, which the broker forwards to the
 * coordinator's listener over TLS, is stored. Its own run state, data and port offset.
 */
class SecureLocalClusterIT {

    @TempDir
    static Path work;

    private static ScriptedCluster cluster;
    private static Path secure;
    private static int offset;

    @BeforeAll
    static void up() throws IOException {
        cluster = ScriptedCluster.create(
                work, "secure-local-cluster-logs", List.of(8080, 8081, 8091, 9092, 9191, 9291, 9392, 9492), Map.of());
        offset = cluster.portOffset();
        cluster.upOrClean("--secure", "--coordinators", "1", "--brokers", "1");
        secure = work.resolve("state").resolve("secure");
    }

    @AfterAll
    static void down() {
        if (cluster != null) {
            cluster.downAndDeleteWork();
        }
    }

    /** {@code admin.properties} as written, with the broker's SASL_SSL (or another) address. */
    private static Properties admin(int basePort) throws IOException {
        return admin("admin.properties", basePort);
    }

    /** A client config {@code up --secure} wrote, as written, with the broker's address on {@code basePort}. */
    private static Properties admin(String file, int basePort) throws IOException {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(secure.resolve(file))) {
            properties.load(in);
        }
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + (basePort + offset));
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        return properties;
    }

    @Test
    void statusSaysWhereTheClientConfigsAre() {
        ScriptedCluster.Result status = cluster.run("status");
        assertThat(status.exitCode()).as(status.output()).isZero();
        assertThat(status.output())
                .contains("admin.properties", "admin-local.properties", "admin.kcat.properties", secure.toString());
        assertThat(secure.resolve("ca.pem")).exists();
        assertThat(secure.resolve("truststore.p12")).exists();
        assertThat(secure.resolve("truststore.password")).exists();
    }

    @Test
    void theAdminConfigServesJavaClientsAndKcatAndAClientWithoutCredentialsGetsNothing() throws Exception {
        try (Admin admin = Admin.create(admin(9092))) {
            admin.createTopics(List.of(new NewTopic("secured-events", 1, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            assertThat(admin.listTopics().names().get(60, TimeUnit.SECONDS)).contains("secured-events");
        }
        DebianTool.Result kcat = DebianTool.run(
                work,
                work,
                "kcat",
                List.of(
                        "kcat",
                        "-F",
                        secure.resolve("admin.kcat.properties").toString(),
                        "-b",
                        "127.0.0.1:" + (9092 + offset),
                        "-L",
                        "-t",
                        "secured-events"));
        assertThat(kcat.exitCode()).as(kcat.output()).isZero();
        assertThat(kcat.output()).contains("topic \"secured-events\" with 1 partitions");

        DebianTool.Result plain = DebianTool.run(
                work, work, "kcat", List.of("kcat", "-b", "127.0.0.1:" + (9092 + offset), "-L", "-m", "5"));
        assertThat(plain.exitCode())
                .as("a PLAINTEXT client on the SASL_SSL port: " + plain.output())
                .isNotZero();
    }

    @Test
    void aNewUserCanDoNothingUntilAnAclAllowsIt() throws Exception {
        try (Admin admin = Admin.create(admin(9092))) {
            admin.createTopics(List.of(new NewTopic("acl-events", 1, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "alice", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "alice-secret")))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        Properties alice = admin(9092);
        alice.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\"alice-secret\";");
        alice.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
        alice.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        List<String> outcomes = new ArrayList<>();
        try (var producer = new KafkaProducer<>(alice, new StringSerializer(), new StringSerializer())) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("acl-events", "k", "v"))
                            .get(30, TimeUnit.SECONDS))
                    .as("no ACL: alice may not write")
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            outcomes.add("denied");
        }
        try (Admin admin = Admin.create(admin(9092))) {
            admin.createAcls(List.of(new AclBinding(
                            new ResourcePattern(ResourceType.TOPIC, "acl-events", PatternType.LITERAL),
                            new AccessControlEntry("User:alice", "*", AclOperation.WRITE, AclPermissionType.ALLOW))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        try (var producer = new KafkaProducer<>(alice, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("acl-events", "k", "v")).get(30, TimeUnit.SECONDS);
            outcomes.add("allowed");
        }
        assertThat(outcomes).containsExactly("denied", "allowed");
    }

    @Test
    void theLocalListenerServesTheAdminOverSaslPlaintext() throws Exception {
        Properties local = admin("admin-local.properties", 9392);
        try (Admin admin = Admin.create(local)) {
            assertThat(admin.describeCluster().nodes().get(60, TimeUnit.SECONDS))
                    .singleElement()
                    .satisfies(node -> assertThat(node.port()).isEqualTo(9392 + offset));
        } catch (ExecutionException e) {
            throw new AssertionError("the LOCAL listener refused the admin", e);
        }
    }

    @Test
    void theGatewayLogsInToTheBrokersInternalListener() throws Exception {
        URI topics = URI.create("http://127.0.0.1:" + (8080 + offset) + "/v1/topics");
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> listed = http.send(
                    HttpRequest.newBuilder(topics)
                            .timeout(Duration.ofSeconds(30))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
        }
    }

    @Test
    void aClassicGroupCommitsThroughTheBrokerToTheCoordinatorsSaslSslListener() throws Exception {
        String topic = "forwarded-group-events";
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = Admin.create(admin(9092))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Properties producerConfig = admin(9092);
        producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        try (var producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get(30, TimeUnit.SECONDS);
        }
        Properties consumerConfig = admin(9092);
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, "tls-forwarded");
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (var consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            int received = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (received == 0 && System.nanoTime() < deadline) {
                received += consumer.poll(Duration.ofSeconds(1)).count();
            }
            assertThat(received).as("records the classic group member received").isEqualTo(1);
            consumer.commitSync(Duration.ofSeconds(30));
        }
        try (Admin admin = Admin.create(admin(9092))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("tls-forwarded")
                    .partitionsToOffsetAndMetadata()
                    .get(60, TimeUnit.SECONDS);
            assertThat(committed.get(partition).offset()).isEqualTo(1L);
        }
    }

    @Test
    void theInternalListenersAreSaslSslAndRefusePlaintextAndClientsWithoutTheCa() throws Exception {
        try (Admin admin = Admin.create(admin(9492))) {
            assertThat(admin.describeCluster().nodes().get(60, TimeUnit.SECONDS))
                    .as("the admin over the broker's internal listener, with the run's CA")
                    .singleElement()
                    .satisfies(node -> assertThat(node.port()).isEqualTo(9492 + offset));
        }
        for (int port : List.of(9492 + offset, 9191 + offset)) {
            try (KafkaTestConnection plain = KafkaTestConnection.open(port)) {
                plain.send(new ApiVersionsRequest.Builder().build((short) 3));
                assertThat(plain.readUntilClosed())
                        .as("bytes a PLAINTEXT client reads from port %d: at most a TLS alert, never an answer", port)
                        .isLessThan(64);
            }
        }
        Properties withoutCa = admin(9492);
        withoutCa.remove("ssl.truststore.location");
        withoutCa.remove("ssl.truststore.password");
        withoutCa.remove("ssl.truststore.type");
        withoutCa.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        withoutCa.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        try (Admin admin = Admin.create(withoutCa)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SslAuthenticationException.class);
        }
    }
}
