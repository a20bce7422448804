package io.tributary.systemtests.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.ControlPlaneSignature;
import io.tributary.systemtests.ScriptedCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster secret rotated by a rolling restart, as docs/security.md ("Rotating the secret")
 * says, on a live cluster (one coordinator, two brokers, the gateway, run by {@code
 * bin/tributary}): after each step both brokers stay registered, a replicated partition keeps both
 * in its ISR (the brokers' follower fetches log in with their internal SCRAM credentials), a
 * producer with {@code acks=all} and a consumer group (forwarded by a broker to the coordinator,
 * with its internal login) work. A restarted process reads its secret files anew, so a step
 * writes the files and restarts: the coordinator with the new secret and the old as previous;
 * each broker with the new; the coordinator with the previous secret gone (another, retired secret
 * in its place), after which a call signed under the old secret is refused.
 *
 * <p>Tributary only (Apache Kafka has no cluster secret).
 */
class SecretRotationIT {

    private static final String OLD = "the secret this cluster started with, 32 bytes or more";
    private static final String NEW = "the secret this cluster rotates to, 32 bytes or more";
    private static final String RETIRED = "a secret retired long ago, 32 bytes or more";
    private static final String USER = "rotation-client";
    private static final String PASSWORD = "rotation-client-secret";
    private static final String TOPIC = "secret-rotation";

    @TempDir
    static Path work;

    private static ScriptedCluster cluster;
    private static Path coordinatorSecret;
    private static Path coordinatorPreviousSecret;
    private static Path brokerSecret;

    @BeforeAll
    static void up() throws Exception {
        coordinatorSecret = Files.writeString(work.resolve("coordinator.secret"), OLD + "\n");
        // the previous secret's setting is there from the start (a restart keeps the command
        // line): the same secret as the current one until the rotation
        coordinatorPreviousSecret = Files.writeString(work.resolve("coordinator-previous.secret"), OLD + "\n");
        brokerSecret = Files.writeString(work.resolve("broker.secret"), OLD + "\n");
        String javaOptions = String.join(
                " ",
                "-Xmx384m",
                "-Dtributary.coordinator.control.secret-file=" + coordinatorSecret,
                "-Dtributary.coordinator.control.previous-secret-file=" + coordinatorPreviousSecret,
                "-Dtributary.broker.cluster.secret-file=" + brokerSecret,
                "-Dtributary.coordinator.security.bootstrap-scram-users[0].name=" + USER,
                "-Dtributary.coordinator.security.bootstrap-scram-users[0].password=" + PASSWORD);
        // The gateway logs in to the brokers' internal listeners as the same SCRAM user.
        String gatewayLogin = """
                {"tributary.gateway.client-properties.security.protocol": "SASL_PLAINTEXT",
                 "tributary.gateway.client-properties.sasl.mechanism": "SCRAM-SHA-512",
                 "tributary.gateway.client-properties.sasl.jaas.config": "%s"}
                """.formatted(jaas().replace("\"", "\\\""));
        cluster = ScriptedCluster.create(
                Files.createDirectories(work.resolve("tributary")),
                "secret-rotation-logs",
                List.of(8080, 8081, 8082, 9092, 9093, 8091, 9191, 9291),
                Map.of(
                        "TRIBUTARY_JAVA_OPTS",
                        javaOptions,
                        "SPRING_APPLICATION_JSON",
                        gatewayLogin,
                        "TRIBUTARY_STOP_GRACE",
                        "20"));
        cluster.upOrClean("--coordinators", "1", "--brokers", "2");
    }

    @AfterAll
    static void down() {
        if (cluster != null) {
            cluster.downAndDeleteWork();
        }
    }

    private static String jaas() {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + USER + "\" password=\""
                + PASSWORD + "\";";
    }

    private static Properties client() {
        Properties properties = new Properties();
        int offset = cluster.portOffset();
        properties.put(
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + (9092 + offset) + ",127.0.0.1:" + (9093 + offset));
        properties.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        properties.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        properties.put(SaslConfigs.SASL_JAAS_CONFIG, jaas());
        properties.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        return properties;
    }

    private static void restart(String process) {
        ScriptedCluster.Result stop = cluster.run("stop", process);
        assertThat(stop.exitCode()).as(stop.output()).isZero();
        ScriptedCluster.Result start = cluster.run("start", process);
        assertThat(start.exitCode()).as(start.output()).isZero();
    }

    /**
     * Both brokers registered and in the partition's ISR, a write acknowledged by both, and a new
     * consumer group reading it.
     */
    private static void assertTheClusterServes(String step) throws Exception {
        try (Admin admin = Admin.create(client())) {
            await().alias(step + ": both brokers in the ISR")
                    .atMost(Duration.ofSeconds(90))
                    .until(() -> {
                        TopicDescription topic = admin.describeTopics(List.of(TOPIC))
                                .allTopicNames()
                                .get(60, TimeUnit.SECONDS)
                                .get(TOPIC);
                        return topic.partitions().getFirst().isr().size() == 2
                                && admin.describeCluster()
                                                .nodes()
                                                .get(60, TimeUnit.SECONDS)
                                                .size()
                                        == 2;
                    });
        }
        Properties producerProperties = client();
        producerProperties.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProperties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "90000");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(producerProperties, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(TOPIC, step)).get(90, TimeUnit.SECONDS);
        }
        Properties consumerProperties = client();
        consumerProperties.put(ConsumerConfig.GROUP_ID_CONFIG, "rotation-" + step);
        consumerProperties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(consumerProperties, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            List<String> values = new java.util.ArrayList<>();
            await().alias(step + ": a consumer group reads the write")
                    .atMost(Duration.ofSeconds(90))
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
                        return values.contains(step);
                    });
            consumer.commitSync(Duration.ofSeconds(60));
        }
    }

    /**
     * The status of a control-plane read signed under {@code secret} as a broker that is not in
     * the cluster (a call signed as a running broker's id would count as that broker's choice of
     * secret and move its internal credential).
     */
    private static int controlPlaneStatusSignedWith(String secret) throws Exception {
        String path = "/internal/v1/cluster";
        String authorization = ControlPlaneSignature.sign(
                ClusterSecret.of(secret).brokerKey(99), "GET", path, null, System.currentTimeMillis());
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + (8091 + cluster.portOffset()) + path))
                                    .header("Authorization", authorization)
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        }
    }

    @Test
    void aRollingRestartRotatesTheSecretWhileTheClusterKeepsServing() throws Exception {
        try (Admin admin = Admin.create(client())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 2))).all().get(60, TimeUnit.SECONDS);
        }
        assertTheClusterServes("started");

        // step 2: the coordinator on the new secret, accepting the old one
        Files.writeString(coordinatorSecret, NEW + "\n");
        Files.writeString(coordinatorPreviousSecret, OLD + "\n");
        restart("coordinator-0");
        assertTheClusterServes("coordinator-rotated");
        assertThat(controlPlaneStatusSignedWith(OLD)).isEqualTo(200);
        assertThat(controlPlaneStatusSignedWith(NEW)).isEqualTo(200);

        // step 3: the brokers, one at a time (each reads the file when it starts)
        Files.writeString(brokerSecret, NEW + "\n");
        restart("broker-0");
        assertTheClusterServes("broker-0-rotated");
        restart("broker-1");
        assertTheClusterServes("broker-1-rotated");

        // step 4: the coordinator without the old secret
        Files.writeString(coordinatorPreviousSecret, RETIRED + "\n");
        restart("coordinator-0");
        assertTheClusterServes("rotation-done");
        assertThat(controlPlaneStatusSignedWith(OLD)).isEqualTo(401);
        assertThat(controlPlaneStatusSignedWith(NEW)).isEqualTo(200);
    }
}
