package io.tributary.systemtests.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.common.protocol.KafkaFrames;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.ControlPlaneSignature;
import io.tributary.common.security.internal.InternalLogin;
import io.tributary.common.security.internal.ScramSocketLogin;
import io.tributary.common.testing.FileTokenLogin;
import io.tributary.common.testing.KafkaTestConnection;
import io.tributary.common.testing.TestJwts;
import io.tributary.systemtests.kafka.KafkaTargets;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
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
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnacceptableCredentialException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SASL_SSL with PLAIN and SCRAM, and SASL_PLAINTEXT with OAUTHBEARER (KIP-768 JWT validation,
 * re-authentication every 2 s), on Apache Kafka and on Tributary, configured the same way ({@link
 * SecureTargets}), driven by kafka-clients: what a client observes (records, the error it gets, a
 * session's lifetime and its end) must be the same on both. One start of each target for the whole class. Tributary runs when
 * {@code tributary} is among {@code tributary.systest.targets}; Kafka, the reference, always.
 */
class SecureListenersIT {

    private static SecureTargets targets;

    @BeforeAll
    static void start() throws Exception {
        targets = SecureTargets.start(SecureListenersIT.class, KafkaTargets.isEnabled(KafkaTargets.Kind.TRIBUTARY));
    }

    @AfterAll
    static void stop() {
        if (targets != null) {
            targets.close();
        }
    }

    private static void assertSameOutcome(String expected, SecureDifferential.Scenario scenario) {
        SecureDifferential.assertSameOutcome(targets, expected, scenario);
    }

    private static void assertSameOutcomeAtOnce(String expected, SecureDifferential.Scenario scenario) {
        SecureDifferential.assertSameOutcomeAtOnce(targets, expected, scenario);
    }

    private static Properties client(SecureTargets.Target target, String protocol) {
        Properties properties = new Properties();
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap());
        properties.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
        properties.put(CommonClientConfigs.CLIENT_ID_CONFIG, "secure-listeners-it");
        // a hang becomes a failure; not an assertion on speed
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        return properties;
    }

    /** A SASL_SSL client logging in with PLAIN as {@code user}, trusting the test CA. */
    private static Properties sasl(SecureTargets.Target target, String user, String password) {
        return sasl(target, "PLAIN", user, password);
    }

    /** A SASL_SSL client logging in with {@code mechanism} as {@code user}, trusting the test CA. */
    private static Properties sasl(SecureTargets.Target target, String mechanism, String user, String password) {
        Properties properties = client(target, "SASL_SSL");
        properties.put("sasl.mechanism", mechanism);
        String module = mechanism.equals("PLAIN")
                ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        properties.put(
                "sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
        properties.put("ssl.truststore.type", "PEM");
        properties.put("ssl.truststore.location", targets.caPem().toString());
        return properties;
    }

    /** What an admin call on a client with {@code properties} ends with: the cluster's broker count, or the error. */
    private static String describeCluster(Properties properties) throws InterruptedException {
        try (Admin admin = Admin.create(properties)) {
            return "ok, brokers "
                    + admin.describeCluster().nodes().get(60, TimeUnit.SECONDS).size();
        } catch (ExecutionException e) {
            return e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage();
        } catch (java.util.concurrent.TimeoutException e) {
            return "no answer";
        }
    }

    @Test
    void aPlainUserProducesAndConsumesOverSaslSsl() throws Exception {
        assertSameOutcome("consumed [0:k0=v0, 1:k1=v1, 2:k2=v2]", (target, outcome) -> {
            Properties properties = sasl(target, SecureTargets.USER, SecureTargets.PASSWORD);
            String topic = "secure-events";
            try (Admin admin = Admin.create(properties)) {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                outcome.add("topic created");
            }
            Properties producerConfig = new Properties();
            producerConfig.putAll(properties);
            producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
            producerConfig.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
            try (var producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 3; i++) {
                    long offset = producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i))
                            .get(60, TimeUnit.SECONDS)
                            .offset();
                    outcome.add("produced at offset " + offset);
                }
            }
            Properties consumerConfig = new Properties();
            consumerConfig.putAll(properties);
            consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            try (var consumer =
                    new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
                TopicPartition partition = new TopicPartition(topic, 0);
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                List<String> read = new ArrayList<>();
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (read.size() < 3 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                        read.add(record.offset() + ":" + record.key() + "=" + record.value());
                    }
                }
                outcome.add("consumed " + read);
            }
        });
    }

    /**
     * A login as {@code user} with SCRAM-SHA-512, tried until it succeeds or 30 s pass (Kafka's
     * broker applies a credential from its metadata log shortly after the admin call returns); the
     * last outcome.
     */
    private static String scramLoginAfterAnAlteration(SecureTargets.Target target, String user, String password)
            throws InterruptedException {
        String outcome = "";
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            outcome = describeCluster(sasl(target, "SCRAM-SHA-512", user, password));
            if (outcome.startsWith("ok")) {
                break;
            }
            Thread.sleep(200);
        }
        return outcome;
    }

    @Test
    void aScramCredentialAlteredThroughTheAdminApiLogsInAndIsGoneOnceDeleted() {
        assertSameOutcome("SCRAM login as carol: ok, brokers 1", (target, outcome) -> {
            Properties admin = sasl(target, SecureTargets.USER, SecureTargets.PASSWORD);
            try (Admin client = Admin.create(admin)) {
                client.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                                "carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), "carol-secret")))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                outcome.add("carol's SCRAM-SHA-512 credential upserted");
                outcome.add("SCRAM login as carol: " + scramLoginAfterAnAlteration(target, "carol", "carol-secret"));
                outcome.add("SCRAM login as carol, wrong password: "
                        + describeCluster(sasl(target, "SCRAM-SHA-512", "carol", "not-carols")));
                outcome.add("PLAIN login as carol: "
                        + describeCluster(sasl(target, "PLAIN", "carol", "carol-secret"))
                                .split(":")[0]);
                client.alterUserScramCredentials(
                                List.of(new UserScramCredentialDeletion("carol", ScramMechanism.SCRAM_SHA_512)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                outcome.add("carol's credential deleted");
            }
            String afterDeletion = "";
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                afterDeletion = describeCluster(sasl(target, "SCRAM-SHA-512", "carol", "carol-secret"));
                if (!afterDeletion.startsWith("ok")) {
                    break;
                }
                Thread.sleep(200);
            }
            outcome.add(
                    "SCRAM login as carol after the deletion: " + afterDeletion.split(":")[0]);
        });
    }

    @Test
    void aWrongPasswordIsRefusedWithKafkasError() {
        assertSameOutcome(
                "SaslAuthenticationException",
                (target, outcome) -> outcome.add(
                        "wrong password: " + describeCluster(sasl(target, SecureTargets.USER, "not-the-password"))));
    }

    @Test
    void anUnknownUserIsRefusedWithKafkasError() {
        assertSameOutcome(
                "SaslAuthenticationException",
                (target, outcome) -> outcome.add(
                        "unknown user: " + describeCluster(sasl(target, "mallory", SecureTargets.PASSWORD))));
    }

    @Test
    void aScramLoginWithoutCredentialsIsRefusedWithKafkasError() {
        assertSameOutcome(
                "SaslAuthenticationException",
                (target, outcome) -> outcome.add("SCRAM without credentials: "
                        + describeCluster(sasl(target, "SCRAM-SHA-512", SecureTargets.USER, SecureTargets.PASSWORD))));
    }

    @Test
    void aMechanismTheListenerDoesNotEnableIsRefusedNamingTheEnabledOnes() {
        assertSameOutcome(
                "UnsupportedSaslMechanismException",
                (target, outcome) -> outcome.add("SCRAM-SHA-256: "
                        + describeCluster(sasl(target, "SCRAM-SHA-256", SecureTargets.USER, SecureTargets.PASSWORD))));
    }

    @Test
    void aPlaintextClientOnTheSaslSslPortGetsNoAnswer() {
        assertSameOutcome("TimeoutException", (target, outcome) -> {
            Properties properties = client(target, "PLAINTEXT");
            properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
            properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
            String result = describeCluster(properties);
            // the admin's own deadline message names its call and times: keep the kind of failure
            outcome.add("plaintext client: " + result.substring(0, Math.max(result.indexOf(':'), 0)));
        });
    }

    /**
     * Delegation tokens with token authentication off (Kafka without {@code
     * delegation.token.secret.key}, Tributary always): every token call of a SASL_SSL client is
     * answered with Kafka's error, the same on both.
     */
    @Test
    void delegationTokenCallsAreAnsweredAsKafkaWithTokenAuthenticationOff() {
        assertSameOutcome("create: DelegationTokenDisabledException", (target, outcome) -> {
            try (Admin admin = Admin.create(sasl(target, SecureTargets.USER, SecureTargets.PASSWORD))) {
                outcome.add("create: "
                        + SecureDifferential.outcomeOf(
                                admin.createDelegationToken().delegationToken()));
                outcome.add("describe: "
                        + SecureDifferential.outcomeOf(
                                admin.describeDelegationToken().delegationTokens()));
                byte[] hmac = "not-a-token-hmac".getBytes(StandardCharsets.UTF_8);
                outcome.add("renew: "
                        + SecureDifferential.outcomeOf(
                                admin.renewDelegationToken(hmac).expiryTimestamp()));
                outcome.add("expire: "
                        + SecureDifferential.outcomeOf(
                                admin.expireDelegationToken(hmac).expiryTimestamp()));
            }
        });
    }

    @Test
    void aTlsClientWithoutTheCaFailsItsHandshake() {
        assertSameOutcome("SslAuthenticationException", (target, outcome) -> {
            Properties properties = sasl(target, SecureTargets.USER, SecureTargets.PASSWORD);
            properties.remove("ssl.truststore.type");
            properties.remove("ssl.truststore.location");
            String result = describeCluster(properties);
            outcome.add("TLS client without the CA: " + result.substring(0, Math.max(result.indexOf(':'), 0)));
        });
    }

    /**
     * Tributary's own: the coordinator's control plane (the broker's registration, heartbeats,
     * metadata with SCRAM keys) refuses a call that no broker signed, and one signed with another
     * cluster's secret; the broker, which signs with the cluster's secret, works (the scenarios above).
     */
    @Test
    void tributarysControlPlaneRefusesCallsNoBrokerSigned() throws Exception {
        String controlPlane = targets.tributaryControlPlane();
        Assumptions.assumeTrue(controlPlane != null, "Tributary is not among the targets");
        URI metadata = URI.create(controlPlane + "/metadata");

        HttpResponse<String> unsigned = getSigned(metadata, null);
        assertThat(unsigned.statusCode()).as(unsigned.body()).isEqualTo(401);
        assertThat(unsigned.body()).doesNotContain("storedKey");
        HttpResponse<String> wrongKey =
                getSigned(metadata, ClusterSecret.of("another cluster's secret, 32 bytes or more"));
        assertThat(wrongKey.statusCode()).as(wrongKey.body()).isEqualTo(401);

        HttpResponse<String> ok = getSigned(metadata, ClusterSecret.of(SecureTargets.CLUSTER_SECRET));
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(ok.body())
                .as("the broker registered through the signed control plane")
                .contains("\"brokers\":[{");
    }

    /**
     * Tributary's own: with the cluster secret the broker's internal listener and the coordinator's
     * Kafka listener answer nothing to an unauthenticated client, nor to another cluster's broker
     * login; broker 0's login (its credential written by the coordinator, checked by each listener
     * against its image) is accepted by both; group requests a client makes on the SASL_SSL listener
     * are forwarded to the coordinator as broker 0; and the brokers' user names are reserved.
     */
    @Test
    void tributarysInternalKafkaListenersRequireTheClusterLogins() throws Exception {
        int internal = targets.tributaryInternalPort();
        Assumptions.assumeTrue(internal > 0, "Tributary is not among the targets");
        int coordinator = targets.tributaryCoordinatorKafkaPort();

        assertThatThrownBy(() -> describeCluster(internal, null))
                .as("an unauthenticated request on the broker's internal listener")
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> listGroups(coordinator, null))
                .as("an unauthenticated group request on the coordinator's Kafka listener")
                .isInstanceOf(IOException.class);
        InternalLogin foreign = ClusterSecret.of("another cluster's secret, 32 bytes or more")
                .brokerKey(0)
                .kafkaLogin();
        assertThatThrownBy(() -> describeCluster(internal, foreign))
                .isInstanceOf(ScramSocketLogin.LoginFailedException.class)
                .hasMessageContaining("SASL_AUTHENTICATION_FAILED");

        InternalLogin broker0 =
                ClusterSecret.of(SecureTargets.CLUSTER_SECRET).brokerKey(0).kafkaLogin();
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(
                                describeCluster(internal, broker0).data().errorCode())
                        .isZero());
        assertThat(listGroups(coordinator, broker0).data().errorCode()).isZero();

        SecureTargets.Target tributary = targets.all().getLast();
        try (Admin admin = Admin.create(sasl(tributary, SecureTargets.USER, SecureTargets.PASSWORD))) {
            assertThat(admin.listConsumerGroups().all().get(60, TimeUnit.SECONDS))
                    .as("ListGroups forwarded to the coordinator by the logged-in broker")
                    .isNotNull();
            var reserved = admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "tributary-broker-9", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), "x")))
                    .all();
            assertThatThrownBy(() -> reserved.get(60, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(UnacceptableCredentialException.class);
        }
        // The gateway logs in as its SCRAM user (tributary.gateway.client-properties.*).
        URI topics = URI.create(targets.tributaryGateway() + "/v1/topics");
        try (HttpClient http = HttpClient.newHttpClient()) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                HttpResponse<String> listed =
                        http.send(HttpRequest.newBuilder(topics).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
            });
        }
    }

    /** A raw connection to 127.0.0.1:{@code port}, logged in as {@code login} unless null. */
    private static Socket connect(int port, InternalLogin login) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(15_000);
            if (login != null) {
                ScramSocketLogin.login(socket, login, "secure-listeners-it", 1 << 20);
            }
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    private static DescribeClusterResponse describeCluster(int port, InternalLogin login) throws IOException {
        try (Socket socket = connect(port, login)) {
            var request = new DescribeClusterRequest.Builder(new DescribeClusterRequestData()).build((short) 0);
            return (DescribeClusterResponse) KafkaFrames.roundTrip(
                    socket, request, new RequestHeader(request.apiKey(), (short) 0, "secure-listeners-it", 1), 1 << 20);
        }
    }

    private static ListGroupsResponse listGroups(int port, InternalLogin login) throws IOException {
        try (Socket socket = connect(port, login)) {
            var request = new ListGroupsRequest.Builder(new ListGroupsRequestData()).build((short) 4);
            return (ListGroupsResponse) KafkaFrames.roundTrip(
                    socket, request, new RequestHeader(request.apiKey(), (short) 4, "secure-listeners-it", 1), 1 << 20);
        }
    }

    /** GET {@code uri}, signed as broker 0 with {@code secret}'s key (unsigned when null). */
    private static HttpResponse<String> getSigned(URI uri, ClusterSecret secret) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri);
        if (secret != null) {
            request.header(
                    "Authorization",
                    ControlPlaneSignature.sign(
                            secret.brokerKey(0), "GET", uri.getRawPath(), null, System.currentTimeMillis()));
        }
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    /** A client of the OAUTH listener logging in with {@code token} (kafka-clients' OAUTHBEARER login module). */
    private static Properties oauth(SecureTargets.Target target, String token) throws IOException {
        Properties properties = client(target, "SASL_PLAINTEXT");
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, target.oauthBootstrap());
        properties.putAll(FileTokenLogin.clientConfig(targets.tokenFile(token)));
        return properties;
    }

    /** A token of the listeners' key for {@code audience}, expiring at {@code expires}. */
    private static String token(String sub, String audience, Instant expires) {
        Map<String, Object> claims = TestJwts.claims(sub, SecureTargets.JWT_ISSUER, audience, Instant.now());
        claims.put("exp", expires.getEpochSecond());
        return SecureTargets.JWT_KEY.sign(claims);
    }

    @Test
    void anOAuthBearerTokenLogsInAndRefusedTokensGetKafkasInvalidToken() {
        Instant inAnHour = Instant.now().plusSeconds(3600);
        assertSameOutcome("valid token: ok, brokers 1", (target, outcome) -> {
            outcome.add("valid token: "
                    + describeCluster(oauth(target, token("carol", SecureTargets.JWT_AUDIENCE, inAnHour))));
            outcome.add("expired token: "
                    + describeCluster(oauth(
                            target,
                            token(
                                    "carol",
                                    SecureTargets.JWT_AUDIENCE,
                                    Instant.now().minusSeconds(600)))));
            outcome.add(
                    "another audience: " + describeCluster(oauth(target, token("carol", "another-cluster", inAnHour))));
            Map<String, Object> claims =
                    TestJwts.claims("carol", SecureTargets.JWT_ISSUER, SecureTargets.JWT_AUDIENCE, Instant.now());
            outcome.add("unknown key: "
                    + describeCluster(oauth(
                            target, TestJwts.Signer.create("ES256", "stranger").sign(claims))));
        });
    }

    /** The sum of a client's metrics named {@code name} (the network layer's, one per client). */
    private static double clientMetric(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    @Test
    void anOAuthBearerProducerKeepsProducingAcrossReauthentications() throws InterruptedException {
        String topic = "oauth-events";
        for (SecureTargets.Target target : targets.all()) {
            try (Admin admin = Admin.create(sasl(target, SecureTargets.USER, SecureTargets.PASSWORD))) {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new AssertionError("cannot create " + topic + " on " + target.name(), e);
            }
        }
        assertSameOutcomeAtOnce("re-authenticated at least twice while producing", (target, outcome) -> {
            Properties producerConfig = oauth(
                    target,
                    token("carol", SecureTargets.JWT_AUDIENCE, Instant.now().plusSeconds(3600)));
            producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
            producerConfig.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
            try (var producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer())) {
                int sent = 0;
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (clientMetric(producer.metrics(), "successful-reauthentication-total") < 2
                        && System.nanoTime() < deadline) {
                    producer.send(new ProducerRecord<>(topic, 0, "k", "v" + sent))
                            .get(60, TimeUnit.SECONDS);
                    sent++;
                    Thread.sleep(100);
                }
                outcome.add(
                        clientMetric(producer.metrics(), "successful-reauthentication-total") >= 2
                                ? "re-authenticated at least twice while producing"
                                : "fewer than two re-authentications in 30 s");
                outcome.add("failed re-authentications: "
                        + (long) clientMetric(producer.metrics(), "failed-reauthentication-total"));
                producer.send(new ProducerRecord<>(topic, 0, "k", "last")).get(60, TimeUnit.SECONDS);
                outcome.add("produced after the re-authentications");
            }
        });
    }

    @Test
    void aSessionLeftToExpireIsClosedAtItsNextRequest() throws InterruptedException {
        assertSameOutcomeAtOnce("closed after the session expired", (target, outcome) -> {
            int port = Integer.parseInt(
                    target.oauthBootstrap().substring(target.oauthBootstrap().lastIndexOf(':') + 1));
            try (var connection = KafkaTestConnection.open(port)) {
                SaslHandshakeResponse handshake = connection.roundTrip(
                        new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("OAUTHBEARER"))
                                .build((short) 1),
                        SaslHandshakeResponse.class);
                outcome.add("handshake: " + Errors.forCode(handshake.data().errorCode()));
                String first = "n,,\u0001auth=Bearer "
                        + token(
                                "carol",
                                SecureTargets.JWT_AUDIENCE,
                                Instant.now().plusSeconds(3600)) + "\u0001\u0001";
                // The session's clock starts when the server authenticates, after this request left
                // and before its answer arrives: timed from here, "lived" never undercounts it.
                long authenticatedAt = System.nanoTime();
                SaslAuthenticateResponse authenticated = connection.roundTrip(
                        new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData()
                                        .setAuthBytes(first.getBytes(StandardCharsets.UTF_8)))
                                .build((short) 2),
                        SaslAuthenticateResponse.class);
                outcome.add(
                        "authenticate: " + Errors.forCode(authenticated.data().errorCode()) + ", session_lifetime_ms "
                                + authenticated.data().sessionLifetimeMs());
                // A request every 100 ms: answered while the session lasts, then the connection closes.
                int answered = 0;
                long deadline = authenticatedAt + Duration.ofSeconds(30).toNanos();
                boolean closed = false;
                while (!closed && System.nanoTime() < deadline) {
                    RequestHeader header = connection.send(new ApiVersionsRequest.Builder().build((short) 3));
                    try {
                        connection.receive(header);
                        answered++;
                        Thread.sleep(100);
                    } catch (EOFException | SocketException e) {
                        closed = true;
                    }
                }
                long lived =
                        Duration.ofNanos(System.nanoTime() - authenticatedAt).toMillis();
                outcome.add("requests answered within the session: " + (answered > 0));
                outcome.add(
                        !closed
                                ? "still open 30 s later"
                                : lived >= SecureTargets.OAUTH_MAX_REAUTH_MS
                                        ? "closed after the session expired"
                                        : "closed before the session expired");
            }
        });
    }
}
