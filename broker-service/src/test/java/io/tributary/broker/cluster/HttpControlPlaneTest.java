package io.tributary.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.cluster.ControlPlaneException.Kind;
import io.tributary.broker.cluster.StubCoordinator.Answer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.internal.BrokerKey;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.ControlPlaneSignature;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.common.security.tls.TrustStores;
import io.tributary.common.testing.TestCertificates;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The control-plane client against a stub coordinator that plays the protocol's edge cases. */
class HttpControlPlaneTest {

    private static final JsonMapper JSON = new JsonMapper();
    private static final String TOPIC_JSON = """
            {"name":"orders","id":"2f0c1d7e-0000-4000-8000-000000000001","configs":{"retention.ms":"1000"},
             "partitions":[{"partition":0,"replicas":[1,2],"leader":1,"leaderEpoch":3,"isr":[1,2],"partitionEpoch":7}]}""";

    private final List<StubCoordinator> stubs = new CopyOnWriteArrayList<>();
    private final List<Duration> pauses = new CopyOnWriteArrayList<>();
    private HttpControlPlane client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        stubs.forEach(StubCoordinator::close);
    }

    @Test
    void registerSendsTheDocumentedBodyAndReturnsTheVersion() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.json(200, "{\"version\":5}"));
        Uuid incarnation = Uuid.randomUuid();

        long version = client(coordinator)
                .register(3, incarnation, "r1", List.of(new BrokerEndpoint("PLAINTEXT", "10.0.0.5", 9092)));

        assertThat(version).isEqualTo(5);
        var request = coordinator.received().getFirst();
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.rawPathAndQuery()).isEqualTo("/internal/v1/brokers");
        assertThat(request.headers().get("Content-type")).containsExactly("application/json");
        JsonNode body = JSON.readTree(request.body());
        assertThat(body.get("brokerId").asInt()).isEqualTo(3);
        assertThat(body.get("incarnationId").asString())
                .isEqualTo(ControlPlaneJson.uuid(incarnation).toString());
        assertThat(body.get("rack").asString()).isEqualTo("r1");
        assertThat(body.at("/endpoints/0/listener").asString()).isEqualTo("PLAINTEXT");
        assertThat(body.at("/endpoints/0/host").asString()).isEqualTo("10.0.0.5");
        assertThat(body.at("/endpoints/0/port").asInt()).isEqualTo(9092);
    }

    @Test
    void theGroupCoordinatorIsTheLeadersKafkaAddressFromTheClusterAnswer() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.json(200, """
                {"version":9,"leaderId":1,"coordinators":[
                  {"id":0,"httpAddress":"c0:8091","raftAddress":"c0:9291","kafkaAddress":"c0.example:9191","leader":false},
                  {"id":1,"httpAddress":"c1:8091","raftAddress":"c1:9291","kafkaAddress":"c1.example:9192","leader":true}],
                 "brokers":[]}"""));

        assertThat(client(coordinator).groupCoordinator())
                .contains(new ControlPlane.GroupCoordinator(1, "c1.example", 9192));
        assertThat(coordinator.received().getFirst().method()).isEqualTo("GET");
        assertThat(coordinator.received().getFirst().rawPathAndQuery()).isEqualTo("/internal/v1/cluster");
    }

    @Test
    void noLeaderOrALeaderWithoutAKafkaAddressIsNoGroupCoordinator() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.json(200, """
                {"version":9,"leaderId":null,"coordinators":[{"id":0,"kafkaAddress":"c0:9191","leader":false}]}"""));
        HttpControlPlane client = client(coordinator);
        assertThat(client.groupCoordinator()).isEmpty();

        coordinator.respond(r -> Answer.json(200, """
                {"version":9,"leaderId":0,"coordinators":[{"id":0,"httpAddress":"c0:8091","leader":true}]}"""));
        assertThat(client.groupCoordinator())
                .as("a coordinator from before kafkaAddress")
                .isEmpty();

        coordinator.respond(r -> Answer.json(200, """
                {"version":9,"leaderId":0,"coordinators":[{"id":0,"kafkaAddress":"c0:port","leader":true}]}"""));
        assertThat(client.groupCoordinator()).as("an unparsable address").isEmpty();
    }

    @Test
    void aRedirectIsFollowedWithTheSameMethodAndBodyAndTheLeaderIsAskedFirstAfterwards() throws Exception {
        StubCoordinator follower = stub();
        StubCoordinator leader = stub();
        follower.respond(
                r -> new Answer(307, Map.of("Location", leader.baseUrl() + r.rawPathAndQuery()), new byte[0], false));
        leader.respond(r -> Answer.json(201, "{\"version\":9,\"topic\":" + TOPIC_JSON + "}"));
        HttpControlPlane client = client(follower, leader);

        ControlPlane.TopicWrite write = client.createTopic("orders", 1, 2, Map.of("retention.ms", "1000"));
        client.createTopic("orders", 1, 2, Map.of("retention.ms", "1000"));

        assertThat(write.version()).isEqualTo(9);
        assertThat(write.topic().name()).isEqualTo("orders");
        assertThat(write.topic().partitions().getFirst().leaderEpoch()).isEqualTo(3);
        assertThat(follower.received()).hasSize(1);
        assertThat(leader.received()).hasSize(2);
        var redirected = leader.received().getFirst();
        assertThat(redirected.method()).isEqualTo("POST");
        assertThat(redirected.body()).isEqualTo(follower.received().getFirst().body());
        assertThat(JSON.readTree(redirected.body()).get("replicationFactor").asInt())
                .isEqualTo(2);
        assertThat(client.preferredCoordinator().getPort()).isEqualTo(portOf(leader));
    }

    @Test
    void withAKeyEveryRequestIsSignedAgainOnEachHopAndAnswersOf401AreNotRetried() throws Exception {
        ClusterSecret secret = ClusterSecret.of("a test cluster's secret of 32 bytes or more");
        var verifier = ControlPlaneSignature.Verifier.of(secret, Duration.ofMinutes(5), InstantSource.system());
        List<Integer> signers = new java.util.concurrent.CopyOnWriteArrayList<>();
        StubCoordinator follower = stub();
        StubCoordinator leader = stub();
        follower.respond(r -> {
            signers.add(verified(verifier, r));
            return new Answer(307, Map.of("Location", leader.baseUrl() + r.rawPathAndQuery()), new byte[0], false);
        });
        leader.respond(r -> {
            signers.add(verified(verifier, r));
            return Answer.json(201, "{\"version\":9,\"topic\":" + TOPIC_JSON + "}");
        });
        HttpControlPlane client = signingClient(secret.brokerKey(3), follower, leader);

        client.createTopic("orders", 1, 2, Map.of());

        assertThat(signers).containsExactly(3, 3);

        leader.respond(r -> Answer.problem(401, "unauthenticated", "the signature does not match broker 3's key"));
        assertThatThrownBy(() -> client.createTopic("orders", 1, 1, Map.of()))
                .isInstanceOf(ControlPlaneException.class)
                .hasMessageContaining("401 unauthenticated: the signature does not match broker 3's key");
        assertThat(leader.received()).as("a refusal is final").hasSize(2);

        leader.respond(r -> Answer.json(201, "{\"version\":9,\"topic\":" + TOPIC_JSON + "}"));
        client(leader).createTopic("orders", 1, 1, Map.of());
        assertThat(leader.received().getLast().headers())
                .as("without a key nothing is signed")
                .doesNotContainKey("Authorization");
    }

    @Test
    void anHttpsCoordinatorIsCalledWithTheConfiguredAuthoritiesAndNeverRedirectedToHttp(@TempDir Path dir)
            throws Exception {
        TestCertificates certificates = new TestCertificates(dir);
        Path ca = certificates.ca("ca");
        certificates.signedServer("ca", "coordinator", "CN=localhost,O=Tributary test");
        SSLContext serverTls = new TlsSettings(
                        dir.resolve("coordinator.p12"),
                        "PKCS12",
                        TestCertificates.PASSWORD.toCharArray(),
                        null,
                        null,
                        null,
                        null,
                        TlsSettings.ClientAuth.NONE,
                        TlsSettings.DEFAULT_PROTOCOLS)
                .sslContext();
        StubCoordinator https = new StubCoordinator(serverTls);
        stubs.add(https);
        https.respond(r -> Answer.json(200, "{\"version\":5}"));
        SSLContext trusting = TrustStores.clientContext(ca, "PEM", null);

        assertThat(tlsClient(trusting, https).register(3, Uuid.randomUuid(), null, List.of()))
                .isEqualTo(5);
        assertThat(https.received()).hasSize(1);

        assertThatThrownBy(() -> tlsClient(null, https).register(3, Uuid.randomUuid(), null, List.of()))
                .as("the JDK's authorities do not know the test CA")
                .isInstanceOf(ControlPlaneException.class)
                .hasMessageContaining(https.address().substring("https://".length()));
        assertThat(https.received())
                .as("no request got through the failed handshake")
                .hasSize(1);

        StubCoordinator plain = stub();
        plain.respond(r -> Answer.json(200, "{\"version\":6}"));
        https.respond(
                r -> new Answer(307, Map.of("Location", plain.baseUrl() + r.rawPathAndQuery()), new byte[0], false));
        assertThatThrownBy(() -> tlsClient(trusting, https).register(3, Uuid.randomUuid(), null, List.of()))
                .isInstanceOf(ControlPlaneException.class)
                .hasMessageContaining("redirected without a usable Location");
        assertThat(plain.received()).isEmpty();
    }

    @Test
    void coordinatorAddressesAreHostPortOrAnHttpOrHttpsUrl() {
        assertThat(HttpControlPlane.baseUri("c0:8091")).hasToString("http://c0:8091");
        assertThat(HttpControlPlane.baseUri("http://c0:8091")).hasToString("http://c0:8091");
        assertThat(HttpControlPlane.baseUri("HTTPS://c0.example:8443")).hasToString("https://c0.example:8443");
        for (String bad : List.of("ftp://c0:21", "https://c0", "https://c0:8443/path", "c0", "https://u@c0:1")) {
            assertThatThrownBy(() -> HttpControlPlane.baseUri(bad))
                    .as(bad)
                    .hasMessageContaining("host:port, http://host:port or https://host:port");
        }
    }

    /** The broker id that signed {@code request}; -1 when the signature is not valid. */
    private static int verified(ControlPlaneSignature.Verifier verifier, StubCoordinator.Received request) {
        try {
            List<String> authorization = request.headers().get("Authorization");
            return verifier.verify(
                    authorization == null ? null : authorization.getFirst(),
                    request.method(),
                    request.rawPathAndQuery(),
                    request.body().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (ControlPlaneSignature.Refused e) {
            return -1;
        }
    }

    @Test
    void a503NoLeaderIsRetriedAfterItsRetryAfter() throws Exception {
        StubCoordinator coordinator = stub();
        AtomicInteger calls = new AtomicInteger();
        coordinator.respond(r -> calls.getAndIncrement() == 0
                ? Answer.problem(503, "no-leader", "election").withHeader("Retry-After", "2")
                : Answer.json(200, "{\"version\":4}"));

        long version = client(coordinator).heartbeat(1, Uuid.randomUuid());

        assertThat(version).isEqualTo(4);
        assertThat(coordinator.received()).hasSize(2);
        assertThat(pauses).containsExactly(Duration.ofSeconds(2));
    }

    @Test
    void anUnreachableFirstCoordinatorIsSkippedAndTheOneThatAnsweredIsPreferred() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.json(200, "{\"version\":1}"));
        HttpControlPlane client = client(List.of("127.0.0.1:" + closedPort(), coordinator.address()));

        assertThat(client.heartbeat(1, Uuid.randomUuid())).isEqualTo(1);
        assertThat(client.preferredCoordinator().getPort()).isEqualTo(portOf(coordinator));
        assertThat(pauses).isEmpty();
    }

    @Test
    void aCoordinatorThatDoesNotAnswerIsNoLongerAskedFirst() throws Exception {
        StubCoordinator hung = stub();
        StubCoordinator healthy = stub();
        CountDownLatch release = new CountDownLatch(1);
        hung.respond(r -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Answer.json(200, "{\"version\":1}");
        });
        healthy.respond(r -> Answer.json(200, "{\"version\":2}"));
        HttpControlPlane client = client(
                List.of(hung.address(), healthy.address()),
                HttpControlPlane.Config.DEFAULT_MAX_ATTEMPTS,
                Duration.ofMillis(500));
        try {
            assertThatThrownBy(() -> client.heartbeat(1, Uuid.randomUuid()))
                    .as("a heartbeat is a write: one that timed out may have arrived")
                    .isInstanceOfSatisfying(
                            ControlPlaneException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.NOT_COMMITTED));

            assertThat(client.heartbeat(1, Uuid.randomUuid())).isEqualTo(2);
            assertThat(hung.received()).hasSize(1);
            assertThat(client.preferredCoordinator().getPort()).isEqualTo(portOf(healthy));
        } finally {
            release.countDown();
        }
    }

    @Test
    void whenNoCoordinatorAnswersTheCallFailsUnavailableAfterItsAttempts() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.problem(503, "no-leader", "election").withHeader("Retry-After", "1"));
        HttpControlPlane client = client(List.of(coordinator.address()), 4);

        assertThatThrownBy(() -> client.heartbeat(1, Uuid.randomUuid()))
                .isInstanceOfSatisfying(
                        ControlPlaneException.class, e -> assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE))
                .hasMessageContaining("4 attempt(s)")
                .hasMessageContaining("no-leader");
        assertThat(coordinator.received()).hasSize(4);
    }

    @Test
    void aWriteThatMayHaveBeenAppliedIsNotRepeated() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(
                r -> Answer.problem(503, "not-committed", "leadership moved").withHeader("Retry-After", "1"));

        assertThatThrownBy(() -> client(coordinator).deleteTopic("orders"))
                .isInstanceOfSatisfying(
                        ControlPlaneException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NOT_COMMITTED))
                .hasMessageContaining("leadership moved");
        assertThat(coordinator.received()).hasSize(1);
    }

    @ParameterizedTest
    @CsvSource({
        "409, topic-exists, TOPIC_EXISTS",
        "404, unknown-topic, UNKNOWN_TOPIC",
        "404, unknown-broker, UNKNOWN_BROKER",
        "400, invalid-config, INVALID_CONFIG",
        "400, invalid-replication-factor, INVALID_REPLICATION_FACTOR",
        "400, invalid-partitions, INVALID_PARTITIONS",
        "400, invalid-request, INVALID_REQUEST",
        "400, malformed-json, INVALID_REQUEST",
        "400, invalid-parameter, INVALID_REQUEST",
        "404, not-found, INVALID_REQUEST",
        "413, body-too-large, INVALID_REQUEST",
        "409, stale-epoch, STALE_EPOCH",
        "500, internal-error, UNAVAILABLE"
    })
    void problemTypesMapToKinds(int status, String slug, Kind kind) throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.problem(status, slug, "the detail"));

        assertThatThrownBy(() -> client(coordinator).createPartitions("orders", 4))
                .isInstanceOfSatisfying(
                        ControlPlaneException.class, e -> assertThat(e.kind()).isEqualTo(kind))
                .hasMessageContaining(slug)
                .hasMessageContaining("the detail");
        assertThat(coordinator.received()).hasSize(1);
    }

    @Test
    void aRefusalTellsClientsOnlyTheCoordinatorsDetailAndLogsTheCall() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(
                r -> Answer.problem(400, "invalid-replication-factor", "replication factor 9 is too large"));

        assertThatThrownBy(() -> client(coordinator).createPartitions("orders", 4))
                .isInstanceOfSatisfying(ControlPlaneException.class, e -> {
                    assertThat(e.clientMessage()).isEqualTo("replication factor 9 is too large");
                    assertThat(e.getMessage()).contains("invalid-replication-factor", "replication factor 9");
                });
    }

    @Test
    void anErrorWithoutProblemJsonMapsByItsStatus() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> new Answer(400, Map.of("Content-Type", "text/html"), "<html>".getBytes(), false));

        assertThatThrownBy(() -> client(coordinator).deleteTopic("orders"))
                .isInstanceOfSatisfying(
                        ControlPlaneException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_REQUEST));
    }

    @Test
    void anAnswerAboveTheSizeLimitIsRefusedWhetherDeclaredOrChunked() throws Exception {
        StubCoordinator coordinator = stub();
        byte[] big = ("{\"version\":1,\"pad\":\"" + "x".repeat(4096) + "\"}").getBytes();
        HttpControlPlane client = client(List.of(coordinator.address()), 1);

        for (boolean chunked : new boolean[] {false, true}) {
            coordinator.respond(r -> new Answer(200, Map.of("Content-Type", "application/json"), big, chunked));
            assertThatThrownBy(() -> client.fetchMetadata(OptionalLong.empty(), Duration.ZERO))
                    .as("chunked=" + chunked)
                    .isInstanceOfSatisfying(
                            ControlPlaneException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE))
                    .hasMessageContaining("2048");
        }
    }

    @Test
    void anAnswerThatIsNotTheExpectedJsonIsUnavailable() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.json(200, "{\"version\":"));

        assertThatThrownBy(() -> client(coordinator).heartbeat(1, Uuid.randomUuid()))
                .isInstanceOfSatisfying(
                        ControlPlaneException.class, e -> assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE))
                .hasMessageContaining("not the expected JSON");
    }

    @Test
    void theMetadataLongPollAsksAfterTheVersionAndReadsTheDelta() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.json(200, """
                {"version":45,"full":false,
                 "brokers":[{"id":1,"incarnationId":"2f0c1d7e-0000-4000-8000-000000000002",
                             "endpoints":[{"listener":"PLAINTEXT","host":"h1","port":9092}],
                             "rack":null,"fenced":true,"registeredAtMs":1764450000000}],
                 "topics":[%s],"deletedTopics":["old"]}""".formatted(TOPIC_JSON)));

        MetadataDelta delta = client(coordinator).fetchMetadata(OptionalLong.of(44), Duration.ofSeconds(10));

        assertThat(coordinator.received().getFirst().rawPathAndQuery())
                .isEqualTo("/internal/v1/metadata?after=44&max_wait_ms=10000");
        assertThat(delta.version()).isEqualTo(45);
        assertThat(delta.full()).isFalse();
        BrokerInfo broker = delta.brokers().getFirst();
        assertThat(broker.fenced()).isTrue();
        assertThat(broker.rack()).isNull();
        assertThat(broker.endpoint("PLAINTEXT")).contains(new BrokerEndpoint("PLAINTEXT", "h1", 9092));
        TopicInfo topic = delta.topics().getFirst();
        assertThat(topic.configs()).containsEntry("retention.ms", "1000");
        assertThat(topic.partition(0).orElseThrow().isr()).containsExactly(1, 2);
        assertThat(delta.deletedTopics()).containsExactly("old");
    }

    @Test
    void withoutAVersionTheFullImageIsAskedFor() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.json(200, """
                {"version":0,"full":true,"brokers":[],"topics":[],"deletedTopics":[]}"""));

        MetadataDelta delta = client(coordinator).fetchMetadata(OptionalLong.empty(), Duration.ofSeconds(10));

        assertThat(coordinator.received().getFirst().rawPathAndQuery())
                .isEqualTo("/internal/v1/metadata?max_wait_ms=0");
        assertThat(delta.full()).isTrue();
        assertThat(delta.version()).isZero();
    }

    @Test
    void topicNamesArePercentEncodedInPaths() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.json(200, "{\"version\":2}"));

        client(coordinator).deleteTopic("a b/ü?%");

        assertThat(coordinator.received().getFirst().rawPathAndQuery())
                .isEqualTo("/internal/v1/topics/a%20b%2F%C3%BC%3F%25");
        assertThatThrownBy(() -> client.deleteTopic(".."))
                .isInstanceOfSatisfying(
                        ControlPlaneException.class, e -> assertThat(e.kind()).isEqualTo(Kind.UNKNOWN_TOPIC));
    }

    @Test
    void createPartitionsAndProducerIdsUseTheirEndpoints() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> r.rawPathAndQuery().endsWith("/producer-ids")
                ? Answer.json(200, "{\"version\":12,\"firstProducerId\":5000,\"count\":1000}")
                : Answer.json(200, "{\"version\":11,\"topic\":" + TOPIC_JSON + "}"));
        HttpControlPlane client = client(coordinator);

        ControlPlane.TopicWrite grown = client.createPartitions("orders", 6);
        ControlPlane.ProducerIdBlock block = client.allocateProducerIds(2, 1000);

        assertThat(grown.version()).isEqualTo(11);
        assertThat(block).isEqualTo(new ControlPlane.ProducerIdBlock(12, 5000, 1000));
        var partitions = coordinator.received().get(0);
        assertThat(partitions.rawPathAndQuery()).isEqualTo("/internal/v1/topics/orders/partitions");
        assertThat(JSON.readTree(partitions.body()).get("count").asInt()).isEqualTo(6);
        var ids = coordinator.received().get(1);
        assertThat(ids.rawPathAndQuery()).isEqualTo("/internal/v1/producer-ids");
        assertThat(JSON.readTree(ids.body()).get("brokerId").asInt()).isEqualTo(2);
        assertThat(JSON.readTree(ids.body()).get("count").asInt()).isEqualTo(1000);
    }

    @Test
    void theMetadataLongPollReadsScramCredentialsWhenTheyComeAndKeepsThemAbsentOtherwise() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(
                r -> r.rawPathAndQuery().contains("after=1&") ? Answer.json(200, """
                        {"version":2,"full":false,"brokers":[],"topics":[],"deletedTopics":[],
                         "scramCredentials":[{"user":"alice","credentials":[
                           {"mechanism":2,"salt":"AQI=","storedKey":"AwQ=","serverKey":"BQY=","iterations":8192}]}]}""") : Answer.json(200, """
                        {"version":3,"full":false,"brokers":[],"topics":[],"deletedTopics":[]}"""));
        HttpControlPlane client = client(coordinator);

        MetadataDelta withCredentials = client.fetchMetadata(OptionalLong.of(1), Duration.ZERO);
        MetadataDelta without = client.fetchMetadata(OptionalLong.of(2), Duration.ZERO);

        var alice = withCredentials
                .scramCredentials()
                .orElseThrow()
                .get("SCRAM-SHA-512", "alice")
                .orElseThrow();
        assertThat(alice)
                .isEqualTo(new io.tributary.common.security.sasl.ScramCredentialData(
                        new byte[] {1, 2}, new byte[] {3, 4}, new byte[] {5, 6}, 8192));
        assertThat(withCredentials.isEmpty()).isFalse();
        assertThat(without.scramCredentials()).isEmpty();
        assertThat(without.isEmpty()).isTrue();
    }

    @Test
    void aclsTravelByEnumNamesInTheLongPollAndInCreateAndDeleteCalls() throws Exception {
        StubCoordinator coordinator = stub();
        String acl = """
                {"resourceType":"TOPIC","resourceName":"orders","patternType":"PREFIXED","principal":"User:bob",\
                "host":"*","operation":"READ","permission":"ALLOW"}""";
        coordinator.respond(r -> switch (r.rawPathAndQuery().replaceAll("\\?.*", "")) {
            case "/internal/v1/acls" -> Answer.json(200, """
                    {"version":5,"results":[{"error":"NONE","message":null},
                      {"error":"INVALID_REQUEST","message":"Invalid empty resource name"}]}""");
            case "/internal/v1/acls/delete" -> Answer.json(200, """
                    {"version":6,"results":[{"error":"NONE","message":null,"matched":[%s]}]}""".formatted(acl));
            default -> Answer.json(200, """
                    {"version":4,"full":false,"brokers":[],"topics":[],"deletedTopics":[],"acls":[%s]}""".formatted(acl));
        });
        HttpControlPlane client = client(coordinator);
        AclBinding expected = new AclBinding(
                AclResourceType.TOPIC,
                "orders",
                AclPatternType.PREFIXED,
                "User:bob",
                "*",
                AclOperation.READ,
                AclPermission.ALLOW);

        MetadataDelta delta = client.fetchMetadata(OptionalLong.of(3), Duration.ZERO);
        ControlPlane.AclCreation created = client.createAcls(List.of(expected));
        ControlPlane.AclDeletion deleted = client.deleteAcls(List.of(AclBindingFilter.ANY));

        assertThat(delta.acls()).contains(new ClusterAcls(List.of(expected)));
        assertThat(created)
                .isEqualTo(new ControlPlane.AclCreation(
                        5,
                        List.of(
                                new ControlPlane.AclOutcome("NONE", null),
                                new ControlPlane.AclOutcome("INVALID_REQUEST", "Invalid empty resource name"))));
        assertThat(deleted.version()).isEqualTo(6);
        assertThat(deleted.results().getFirst().matched()).containsExactly(expected);
        var sentCreate = JSON.readTree(coordinator.received().get(1).body());
        assertThat(sentCreate.get("creations").get(0).get("patternType").asString())
                .isEqualTo("PREFIXED");
        var sentFilter = JSON.readTree(coordinator.received().get(2).body())
                .get("filters")
                .get(0);
        assertThat(sentFilter.get("resourceType").asString()).isEqualTo("ANY");
        assertThat(sentFilter.get("resourceName").isNull()).isTrue();
    }

    @Test
    void alterScramCredentialsSendsKeysNeverASaltedPasswordAndReadsTheResults() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> Answer.json(200, """
                {"version":9,"results":[{"user":"alice","error":"NONE","message":null},
                  {"user":"bob","error":"RESOURCE_NOT_FOUND","message":"Attempt to delete a user credential that does not exist"}]}"""));

        ControlPlane.ScramWrite write = client(coordinator)
                .alterScramCredentials(
                        List.of(new ControlPlane.ScramDeletion("bob", 1)),
                        List.of(new ControlPlane.ScramUpsertion(
                                "alice", 2, 4096, new byte[] {1}, new byte[] {2}, new byte[] {3})));

        assertThat(write.version()).isEqualTo(9);
        assertThat(write.results())
                .containsExactly(
                        new ControlPlane.ScramResult("alice", "NONE", null),
                        new ControlPlane.ScramResult(
                                "bob",
                                "RESOURCE_NOT_FOUND",
                                "Attempt to delete a user credential that does not exist"));
        var sent = coordinator.received().getFirst();
        assertThat(sent.rawPathAndQuery()).isEqualTo("/internal/v1/scram-credentials");
        var body = JSON.readTree(sent.body());
        assertThat(body.get("deletions").get(0).get("user").asString()).isEqualTo("bob");
        var upsertion = body.get("upsertions").get(0);
        assertThat(upsertion.get("mechanism").asInt()).isEqualTo(2);
        assertThat(upsertion.get("storedKey").asString()).isEqualTo("Ag==");
        assertThat(upsertion.get("serverKey").asString()).isEqualTo("Aw==");
        assertThat(upsertion.has("saltedPassword")).isFalse();
    }

    @Test
    void alterPartitionAndAlterConfigsSendTheDocumentedBodies() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r -> r.rawPathAndQuery().endsWith("/alter")
                ? Answer.json(200, """
                        {"version":13,"topic":"orders","partition":
                         {"partition":0,"replicas":[1,2],"leader":1,"leaderEpoch":3,"isr":[1],"partitionEpoch":8}}""")
                : Answer.json(200, "{\"version\":14,\"topic\":" + TOPIC_JSON + "}"));
        HttpControlPlane client = client(coordinator);

        ControlPlane.PartitionWrite shrunk = client.alterPartition("orders", 0, 1, 3, 7, List.of(1));
        client.alterConfigs("orders", Map.of("segment.bytes", "1048576"), List.of("retention.ms"));

        assertThat(shrunk.partition().partitionEpoch()).isEqualTo(8);
        assertThat(shrunk.partition().isr()).containsExactly(1);
        var alter = coordinator.received().get(0);
        assertThat(alter.rawPathAndQuery()).isEqualTo("/internal/v1/topics/orders/partitions/0/alter");
        JsonNode alterBody = JSON.readTree(alter.body());
        assertThat(alterBody.get("leaderId").asInt()).isEqualTo(1);
        assertThat(alterBody.get("leaderEpoch").asInt()).isEqualTo(3);
        assertThat(alterBody.get("partitionEpoch").asInt()).isEqualTo(7);
        assertThat(alterBody.get("isr").get(0).asInt()).isEqualTo(1);
        var configs = coordinator.received().get(1);
        assertThat(configs.rawPathAndQuery()).isEqualTo("/internal/v1/topics/orders/configs");
        JsonNode configsBody = JSON.readTree(configs.body());
        assertThat(configsBody.at("/set/segment.bytes").asString()).isEqualTo("1048576");
        assertThat(configsBody.at("/remove/0").asString()).isEqualTo("retention.ms");
    }

    @Test
    void redirectsInALoopEndInUnavailable() throws Exception {
        StubCoordinator coordinator = stub();
        coordinator.respond(r ->
                new Answer(307, Map.of("Location", coordinator.baseUrl() + r.rawPathAndQuery()), new byte[0], false));

        assertThatThrownBy(() -> client(List.of(coordinator.address()), 1).heartbeat(1, Uuid.randomUuid()))
                .isInstanceOfSatisfying(
                        ControlPlaneException.class, e -> assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE))
                .hasMessageContaining("redirects");
        assertThat(coordinator.received()).hasSize(1 + HttpControlPlane.Config.DEFAULT_MAX_REDIRECTS);
    }

    // ---- helpers

    private StubCoordinator stub() throws IOException {
        StubCoordinator stub = new StubCoordinator();
        stubs.add(stub);
        return stub;
    }

    private HttpControlPlane signingClient(BrokerKey key, StubCoordinator... coordinators) {
        return configuredClient(key, null, HttpControlPlane.Config.DEFAULT_MAX_ATTEMPTS, coordinators);
    }

    private HttpControlPlane tlsClient(SSLContext tls, StubCoordinator coordinator) {
        return configuredClient(null, tls, 1, coordinator);
    }

    /** A client with the default bounds but {@code maxAttempts}, signing with {@code key}, over {@code tls}. */
    private HttpControlPlane configuredClient(
            BrokerKey key, SSLContext tls, int maxAttempts, StubCoordinator... coordinators) {
        var defaults = HttpControlPlane.Config.of(
                List.of(coordinators).stream().map(StubCoordinator::address).toList());
        if (client != null) {
            client.close();
        }
        client = new HttpControlPlane(
                new HttpControlPlane.Config(
                        defaults.coordinators(),
                        defaults.connectTimeout(),
                        defaults.requestTimeout(),
                        defaults.retryBackoff(),
                        maxAttempts,
                        defaults.maxRedirects(),
                        defaults.maxResponseSize(),
                        key,
                        tls),
                InstantSource.system(),
                pauses::add);
        return client;
    }

    private HttpControlPlane client(StubCoordinator... coordinators) {
        return client(
                List.of(coordinators).stream().map(StubCoordinator::address).toList());
    }

    private HttpControlPlane client(List<String> addresses) {
        return client(addresses, HttpControlPlane.Config.DEFAULT_MAX_ATTEMPTS);
    }

    private HttpControlPlane client(List<String> addresses, int maxAttempts) {
        return client(addresses, maxAttempts, Duration.ofSeconds(30));
    }

    private HttpControlPlane client(List<String> addresses, int maxAttempts, Duration requestTimeout) {
        if (client != null) {
            client.close();
        }
        var config = new HttpControlPlane.Config(
                addresses,
                Duration.ofSeconds(2),
                requestTimeout,
                Duration.ofMillis(100),
                maxAttempts,
                HttpControlPlane.Config.DEFAULT_MAX_REDIRECTS,
                2048,
                null,
                null);
        client = new HttpControlPlane(config, InstantSource.system(), pauses::add);
        return client;
    }

    private static int portOf(StubCoordinator stub) {
        return Integer.parseInt(stub.address().substring(stub.address().indexOf(':') + 1));
    }

    /** A loopback port nothing listens on (bound, then released). */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
