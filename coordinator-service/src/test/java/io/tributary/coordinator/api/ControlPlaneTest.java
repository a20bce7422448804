package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.coordinator.app.CoordinatorApplication;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.placement.ReplicaPlacer;
import io.tributary.coordinator.testing.TestCoordinators;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Every control-plane endpoint and every error it answers, against a one-voter coordinator (real
 * Raft in a temp dir) on a random port. Tests share the voter, so each uses its own broker ids and
 * topic names.
 */
@SpringBootTest(
        classes = CoordinatorApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "tributary.coordinator.control.history-length=4",
            "tributary.coordinator.control.max-wait=5s",
            "tributary.coordinator.control.max-body-size=4KB",
            // No broker is fenced behind a test's back: the live brokers change only when a test says so.
            "tributary.coordinator.metadata.session-timeout=10m"
        })
class ControlPlaneTest {

    private static final AtomicInteger NEXT_BROKER = new AtomicInteger(10);
    private static final AtomicInteger NEXT_TOPIC = new AtomicInteger();
    private static Path dataDir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws IOException {
        dataDir = TestCoordinators.oneVoter(registry, "control-plane-test");
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

    record Answer(int status, String contentType, JsonNode body, HttpResponse<String> raw) {}

    @BeforeEach
    void leader() {
        TestCoordinators.awaitReadyLeader(node);
    }

    private Answer send(String method, String path, String body, String contentType) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path));
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.method(method, HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", contentType);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        String type = response.headers().firstValue("Content-Type").orElse("");
        JsonNode parsed = response.body().isEmpty() ? null : json.readTree(response.body());
        return new Answer(response.statusCode(), type, parsed, response);
    }

    private Answer post(String path, String body) throws Exception {
        return send("POST", path, body, "application/json");
    }

    private Answer get(String path) throws Exception {
        return send("GET", path, null, null);
    }

    private static void assertProblem(Answer answer, int status, String slug) {
        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(status);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.body().get("type").asString()).isEqualTo("urn:tributary:problem:coordinator:" + slug);
        assertThat(answer.body().get("status").asInt()).isEqualTo(status);
        assertThat(answer.body().get("detail").asString()).isNotBlank();
        assertThat(answer.raw().body()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    /** A registered and heartbeating (so unfenced) broker; returns its id. */
    private int liveBroker(String rack) throws Exception {
        int id = NEXT_BROKER.getAndIncrement();
        UUID incarnation = UUID.randomUUID();
        Answer registered = post("/internal/v1/brokers", registerBody(id, incarnation, rack));
        assertThat(registered.status()).as(registered.raw().body()).isEqualTo(200);
        Answer beat = post("/internal/v1/brokers/" + id + "/heartbeat", "{\"incarnationId\":\"" + incarnation + "\"}");
        assertThat(beat.status()).as(beat.raw().body()).isEqualTo(200);
        return id;
    }

    private static String registerBody(int id, UUID incarnation, String rack) {
        return """
                {"brokerId":%d,"incarnationId":"%s","rack":"%s",
                 "endpoints":[{"listener":"PLAINTEXT","host":"127.0.0.1","port":%d}]}""".formatted(id, incarnation, rack, 9000 + id);
    }

    private static String topicName() {
        return "t" + NEXT_TOPIC.getAndIncrement();
    }

    private Answer createTopic(String name, int partitions, int rf, String configs) throws Exception {
        return post(
                "/internal/v1/topics",
                "{\"name\":\"%s\",\"partitions\":%d,\"replicationFactor\":%d,\"configs\":%s}"
                        .formatted(name, partitions, rf, configs));
    }

    private JsonNode broker(int id) throws Exception {
        for (JsonNode b : get("/internal/v1/cluster").body().get("brokers")) {
            if (b.get("id").asInt() == id) {
                return b;
            }
        }
        throw new AssertionError("no broker " + id);
    }

    // ---- brokers

    @Test
    void registerAddsAFencedBrokerAndAHeartbeatUnfencesIt() throws Exception {
        int id = NEXT_BROKER.getAndIncrement();
        UUID incarnation = UUID.randomUUID();

        Answer registered = post("/internal/v1/brokers", registerBody(id, incarnation, "r1"));

        assertThat(registered.status()).isEqualTo(200);
        assertThat(registered.body().get("version").asLong()).isPositive();
        JsonNode b = broker(id);
        assertThat(b.get("fenced").asBoolean()).isTrue();
        assertThat(b.get("rack").asString()).isEqualTo("r1");
        assertThat(b.get("incarnationId").asString()).isEqualTo(incarnation.toString());
        assertThat(b.get("endpoints").get(0).get("port").asInt()).isEqualTo(9000 + id);

        Answer beat = post("/internal/v1/brokers/" + id + "/heartbeat", "{\"incarnationId\":\"" + incarnation + "\"}");

        assertThat(beat.status()).isEqualTo(200);
        assertThat(broker(id).get("fenced").asBoolean()).isFalse();
    }

    @Test
    void aHeartbeatOfAnUnfencedBrokerWritesNothingToRaft() throws Exception {
        int id = liveBroker("r1");
        UUID incarnation = UUID.fromString(broker(id).get("incarnationId").asString());
        long before = node.stateMachine().image().version();

        Answer beat = post("/internal/v1/brokers/" + id + "/heartbeat", "{\"incarnationId\":\"" + incarnation + "\"}");

        assertThat(beat.status()).isEqualTo(200);
        assertThat(node.stateMachine().image().version()).isEqualTo(before);
    }

    @Test
    void registerWithoutAnIncarnationIsAnInvalidRequest() throws Exception {
        assertProblem(post("/internal/v1/brokers", "{\"brokerId\":1,\"endpoints\":[]}"), 400, "invalid-request");
    }

    @Test
    void registerWithoutEndpointsIsAnInvalidRequest() throws Exception {
        assertProblem(
                post(
                        "/internal/v1/brokers",
                        "{\"brokerId\":1,\"incarnationId\":\"" + UUID.randomUUID() + "\",\"endpoints\":[]}"),
                400,
                "invalid-request");
    }

    @Test
    void registerWithMalformedJsonIsMalformedJson() throws Exception {
        assertProblem(post("/internal/v1/brokers", "{\"brokerId\":"), 400, "malformed-json");
        assertProblem(
                post("/internal/v1/brokers", "{\"brokerId\":1,\"incarnationId\":\"not-a-uuid\"}"),
                400,
                "malformed-json");
    }

    @Test
    void aHeartbeatOfAnUnknownBrokerIsUnknownBroker() throws Exception {
        assertProblem(
                post("/internal/v1/brokers/9999/heartbeat", "{\"incarnationId\":\"" + UUID.randomUUID() + "\"}"),
                404,
                "unknown-broker");
    }

    @Test
    void aHeartbeatOfAnOldIncarnationIsStaleEpoch() throws Exception {
        int id = liveBroker("r1");
        assertProblem(
                post("/internal/v1/brokers/" + id + "/heartbeat", "{\"incarnationId\":\"" + UUID.randomUUID() + "\"}"),
                409,
                "stale-epoch");
    }

    @Test
    void aHeartbeatWithANonNumericIdIsAnInvalidParameter() throws Exception {
        assertProblem(
                post("/internal/v1/brokers/x/heartbeat", "{\"incarnationId\":\"" + UUID.randomUUID() + "\"}"),
                400,
                "invalid-parameter");
    }

    @Test
    void aControlledShutdownFencesTheBrokerAndMovesItsLeadershipsAtOnce() throws Exception {
        liveBroker("ra");
        liveBroker("rb");
        String name = topicName();
        JsonNode p = createTopic(name, 1, 2, "{}")
                .body()
                .get("topic")
                .get("partitions")
                .get(0);
        int leader = p.get("leader").asInt();
        int other = p.get("replicas").get(0).asInt() == leader
                ? p.get("replicas").get(1).asInt()
                : p.get("replicas").get(0).asInt();
        String incarnation = broker(leader).get("incarnationId").asString();

        Answer shutdown =
                post("/internal/v1/brokers/" + leader + "/shutdown", "{\"incarnationId\":\"" + incarnation + "\"}");

        assertThat(shutdown.status()).as(shutdown.raw().body()).isEqualTo(200);
        long version = shutdown.body().get("version").asLong();
        assertThat(node.stateMachine().image().version()).isGreaterThanOrEqualTo(version);
        assertThat(broker(leader).get("fenced").asBoolean()).isTrue();
        JsonNode after =
                get("/internal/v1/topics/" + name).body().get("partitions").get(0);
        assertThat(after.get("leader").asInt()).isEqualTo(other);
        assertThat(after.get("leaderEpoch").asInt())
                .isGreaterThan(p.get("leaderEpoch").asInt());
        assertThat(after.get("isr").size()).isEqualTo(1);
        assertThat(after.get("isr").get(0).asInt()).isEqualTo(other);

        Answer beat =
                post("/internal/v1/brokers/" + leader + "/heartbeat", "{\"incarnationId\":\"" + incarnation + "\"}");
        assertThat(beat.status()).isEqualTo(200);
        assertThat(broker(leader).get("fenced").asBoolean())
                .as("a heartbeat of the incarnation that shut down does not unfence it")
                .isTrue();

        Answer again =
                post("/internal/v1/brokers/" + leader + "/shutdown", "{\"incarnationId\":\"" + incarnation + "\"}");
        assertThat(again.status()).as("asked again (a retry)").isEqualTo(200);
        assertThat(again.body().get("version").asLong()).isGreaterThanOrEqualTo(version);
    }

    @Test
    void aControlledShutdownOfAnOldIncarnationIsStaleEpoch() throws Exception {
        int id = liveBroker("r1");
        assertProblem(
                post("/internal/v1/brokers/" + id + "/shutdown", "{\"incarnationId\":\"" + UUID.randomUUID() + "\"}"),
                409,
                "stale-epoch");
        assertThat(broker(id).get("fenced").asBoolean()).isFalse();
    }

    @Test
    void aControlledShutdownOfAnUnknownBrokerIsUnknownBrokerAndWithoutAnIncarnationInvalid() throws Exception {
        assertProblem(
                post("/internal/v1/brokers/9998/shutdown", "{\"incarnationId\":\"" + UUID.randomUUID() + "\"}"),
                404,
                "unknown-broker");
        assertProblem(post("/internal/v1/brokers/9998/shutdown", "{}"), 400, "invalid-request");
    }

    // ---- alter partition

    @Test
    void alterPartitionAtTheCurrentEpochsShrinksTheIsrAndBumpsThePartitionEpoch() throws Exception {
        liveBroker("ra");
        liveBroker("rb");
        String name = topicName();
        JsonNode p = createTopic(name, 1, 2, "{}")
                .body()
                .get("topic")
                .get("partitions")
                .get(0);
        int leader = p.get("leader").asInt();

        Answer altered = post(
                "/internal/v1/topics/" + name + "/partitions/0/alter",
                "{\"leaderId\":%d,\"leaderEpoch\":%d,\"partitionEpoch\":%d,\"isr\":[%d]}"
                        .formatted(
                                leader,
                                p.get("leaderEpoch").asInt(),
                                p.get("partitionEpoch").asInt(),
                                leader));

        assertThat(altered.status()).as(altered.raw().body()).isEqualTo(200);
        JsonNode after = altered.body().get("partition");
        assertThat(after.get("isr").size()).isEqualTo(1);
        assertThat(after.get("isr").get(0).asInt()).isEqualTo(leader);
        assertThat(after.get("partitionEpoch").asInt())
                .isGreaterThan(p.get("partitionEpoch").asInt());
    }

    @Test
    void alterPartitionAtAnOldPartitionEpochIsStaleEpoch() throws Exception {
        liveBroker("ra");
        liveBroker("rb");
        String name = topicName();
        JsonNode p = createTopic(name, 1, 2, "{}")
                .body()
                .get("topic")
                .get("partitions")
                .get(0);
        int leader = p.get("leader").asInt();
        String shrink = "{\"leaderId\":%d,\"leaderEpoch\":%d,\"partitionEpoch\":%d,\"isr\":[%d]}"
                .formatted(
                        leader,
                        p.get("leaderEpoch").asInt(),
                        p.get("partitionEpoch").asInt(),
                        leader);
        assertThat(post("/internal/v1/topics/" + name + "/partitions/0/alter", shrink)
                        .status())
                .isEqualTo(200);

        assertProblem(post("/internal/v1/topics/" + name + "/partitions/0/alter", shrink), 409, "stale-epoch");
    }

    @Test
    void alterPartitionOfAnUnknownTopicIsUnknownTopic() throws Exception {
        assertProblem(
                post(
                        "/internal/v1/topics/nosuch/partitions/0/alter",
                        "{\"leaderId\":1,\"leaderEpoch\":0,\"partitionEpoch\":0,\"isr\":[1]}"),
                404,
                "unknown-topic");
    }

    @Test
    void alterPartitionWithoutTheIsrIsAnInvalidRequest() throws Exception {
        assertProblem(
                post(
                        "/internal/v1/topics/nosuch/partitions/0/alter",
                        "{\"leaderId\":1,\"leaderEpoch\":0,\"partitionEpoch\":0}"),
                400,
                "invalid-request");
    }

    // ---- topics

    @Test
    void createPlacesTheReplicasOnLiveBrokersAndDescribeShowsTheTopic() throws Exception {
        liveBroker("ra");
        liveBroker("rb");
        String name = topicName();

        Answer created = createTopic(name, 3, 2, "{\"retention.ms\":\"1000\"}");

        assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
        assertThat(created.raw().headers().firstValue("Location")).hasValue("/internal/v1/topics/" + name);
        JsonNode topic = get("/internal/v1/topics/" + name).body();
        assertThat(topic.get("partitions").size()).isEqualTo(3);
        for (JsonNode p : topic.get("partitions")) {
            assertThat(p.get("replicas").size()).isEqualTo(2);
            assertThat(p.get("replicas").get(0).asInt())
                    .isNotEqualTo(p.get("replicas").get(1).asInt());
            assertThat(p.get("leader").asInt())
                    .isEqualTo(p.get("replicas").get(0).asInt());
        }
        assertThat(topic.get("configs").get("retention.ms").asString()).isEqualTo("1000");
        assertThat(get("/internal/v1/topics").body().get("topics").findValuesAsString("name"))
                .contains(name);
    }

    @Test
    void createAnExistingTopicIsTopicExists() throws Exception {
        liveBroker("ra");
        String name = topicName();
        assertThat(createTopic(name, 1, 1, "{}").status()).isEqualTo(201);
        assertProblem(createTopic(name, 1, 1, "{}"), 409, "topic-exists");
    }

    @Test
    void createWithMoreReplicasThanLiveBrokersIsInvalidReplicationFactor() throws Exception {
        assertProblem(createTopic(topicName(), 1, 1000, "{}"), 400, "invalid-replication-factor");
    }

    @Test
    void createWithAnIllegalNameOrPartitionCountIsAnInvalidRequest() throws Exception {
        assertProblem(createTopic("bad/name", 1, 1, "{}"), 400, "invalid-request");
        assertProblem(createTopic(topicName(), 0, 1, "{}"), 400, "invalid-request");
        assertProblem(createTopic(topicName(), 10_001, 1, "{}"), 400, "invalid-request");
        assertProblem(
                post("/internal/v1/topics", "{\"partitions\":1,\"replicationFactor\":1}"), 400, "invalid-request");
    }

    @Test
    void createWithABadConfigIsInvalidConfig() throws Exception {
        liveBroker("ra");
        assertProblem(createTopic(topicName(), 1, 1, "{\"retention.ms\":\"soon\"}"), 400, "invalid-config");
    }

    @Test
    void describeAnUnknownTopicIsUnknownTopic() throws Exception {
        assertProblem(get("/internal/v1/topics/nosuch"), 404, "unknown-topic");
    }

    @Test
    void deleteRemovesTheTopicAndASecondDeleteIsUnknownTopic() throws Exception {
        liveBroker("ra");
        String name = topicName();
        createTopic(name, 1, 1, "{}");

        Answer deleted = send("DELETE", "/internal/v1/topics/" + name, null, null);

        assertThat(deleted.status()).isEqualTo(200);
        assertProblem(get("/internal/v1/topics/" + name), 404, "unknown-topic");
        assertProblem(send("DELETE", "/internal/v1/topics/" + name, null, null), 404, "unknown-topic");
    }

    @Test
    void alterConfigsSetsAndRemovesKeys() throws Exception {
        liveBroker("ra");
        String name = topicName();
        createTopic(name, 1, 1, "{\"retention.ms\":\"1000\"}");

        Answer altered = post(
                "/internal/v1/topics/" + name + "/configs",
                "{\"set\":{\"segment.bytes\":\"1048576\"},\"remove\":[\"retention.ms\"]}");

        assertThat(altered.status()).as(altered.raw().body()).isEqualTo(200);
        JsonNode configs = get("/internal/v1/topics/" + name).body().get("configs");
        assertThat(configs.get("segment.bytes").asString()).isEqualTo("1048576");
        assertThat(configs.has("retention.ms")).isFalse();
    }

    @Test
    void alterConfigsWithABadValueIsInvalidConfigAndOfAnUnknownTopicIsUnknownTopic() throws Exception {
        liveBroker("ra");
        String name = topicName();
        createTopic(name, 1, 1, "{}");
        assertProblem(
                post("/internal/v1/topics/" + name + "/configs", "{\"set\":{\"retention.ms\":\"x\"}}"),
                400,
                "invalid-config");
        assertProblem(post("/internal/v1/topics/nosuch/configs", "{\"set\":{}}"), 404, "unknown-topic");
    }

    // ---- create partitions

    private Answer createPartitions(String topic, String body) throws Exception {
        return post("/internal/v1/topics/" + topic + "/partitions", body);
    }

    @Test
    void createPartitionsAddsPartitionsPlacedOnTheLiveBrokersWithTheTopicsReplicationFactor() throws Exception {
        liveBroker("ra");
        liveBroker("rb");
        liveBroker("rc");
        String name = topicName();
        JsonNode before = createTopic(name, 2, 2, "{}").body().get("topic");
        MetadataImage image = node.stateMachine().image();
        List<List<Integer>> expected = ReplicaPlacer.place(image, 3, 2);

        Answer grown = createPartitions(name, "{\"count\":5}");

        assertThat(grown.status()).as(grown.raw().body()).isEqualTo(200);
        assertThat(grown.body().get("version").asLong()).isEqualTo(image.version() + 1);
        JsonNode topic = grown.body().get("topic");
        assertThat(topic.get("name").asString()).isEqualTo(name);
        assertThat(topic.get("id").asString()).isEqualTo(before.get("id").asString());
        JsonNode partitions = topic.get("partitions");
        assertThat(partitions.size()).isEqualTo(5);
        assertThat(partitions.get(0)).isEqualTo(before.get("partitions").get(0));
        assertThat(partitions.get(1)).isEqualTo(before.get("partitions").get(1));
        for (int i = 2; i < 5; i++) {
            JsonNode p = partitions.get(i);
            assertThat(p.get("partition").asInt()).isEqualTo(i);
            List<Integer> replicas = ints(p.get("replicas"));
            assertThat(replicas)
                    .as("partition %d is placed by ReplicaPlacer", i)
                    .isEqualTo(expected.get(i - 2));
            assertThat(replicas).allSatisfy(r -> assertThat(image.isLive(r)).isTrue());
            assertThat(p.get("leader").asInt()).isEqualTo(replicas.getFirst());
            assertThat(ints(p.get("isr"))).isEqualTo(replicas);
            assertThat(p.get("leaderEpoch").asInt()).isZero();
        }
        assertThat(get("/internal/v1/topics/" + name).body().get("partitions").size())
                .isEqualTo(5);
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> list = new ArrayList<>();
        array.forEach(n -> list.add(n.asInt()));
        return list;
    }

    @Test
    void createPartitionsToNoMoreThanTheTopicHasOrPastTheLimitIsInvalidPartitions() throws Exception {
        liveBroker("ra");
        String name = topicName();
        createTopic(name, 3, 1, "{}");
        long version = node.stateMachine().image().version();

        assertProblem(createPartitions(name, "{\"count\":3}"), 400, "invalid-partitions");
        assertProblem(createPartitions(name, "{\"count\":1}"), 400, "invalid-partitions");
        assertProblem(createPartitions(name, "{\"count\":10001}"), 400, "invalid-partitions");

        assertThat(node.stateMachine().image().version()).isEqualTo(version);
        assertThat(node.stateMachine().image().topic(name).partitions()).hasSize(3);
        assertThat(createPartitions(name, "{\"count\":4}").status()).isEqualTo(200);
        assertProblem(createPartitions(name, "{\"count\":4}"), 400, "invalid-partitions");
    }

    @Test
    void createPartitionsOfAnUnknownTopicIsUnknownTopicAndABadBodyIsRefused() throws Exception {
        assertProblem(createPartitions("nosuch", "{\"count\":3}"), 404, "unknown-topic");
        liveBroker("ra");
        String name = topicName();
        createTopic(name, 1, 1, "{}");
        assertProblem(createPartitions(name, "{}"), 400, "invalid-request");
        assertProblem(createPartitions(name, "{\"count\":"), 400, "malformed-json");
        assertProblem(createPartitions(name, "{\"count\":\"many\"}"), 400, "malformed-json");
    }

    /**
     * Kafka's KRaft placement: while a broker is down (registered, fenced), a replication factor up
     * to the registered brokers still places, the fenced broker outside the ISR and never leading;
     * it catches up when it returns. Before, both answered INVALID_REPLICATION_FACTOR.
     */
    @Test
    void createTopicsAndPartitionsWithABrokerDownPutTheFencedBrokerOutsideTheIsr() throws Exception {
        int fencedLater = liveBroker("ra");
        liveBroker("rb");
        int live = node.stateMachine().image().liveBrokers().size();
        String name = topicName();
        assertThat(createTopic(name, 1, live, "{}").status()).isEqualTo(201);
        Answer reregistered = post("/internal/v1/brokers", registerBody(fencedLater, UUID.randomUUID(), "ra"));
        assertThat(reregistered.status())
                .as("a new incarnation fences the old one")
                .isEqualTo(200);
        assertThat(broker(fencedLater).get("fenced").asBoolean()).isTrue();
        MetadataImage image = node.stateMachine().image();
        assertThat(image.liveBrokers()).hasSize(live - 1);

        Answer grown = createPartitions(name, "{\"count\":2}");
        assertThat(grown.status()).as(grown.raw().body()).isEqualTo(200);
        String another = topicName();
        Answer created = createTopic(another, 2, live, "{}");
        assertThat(created.status()).as(created.raw().body()).isEqualTo(201);

        List<JsonNode> placed = new ArrayList<>();
        placed.add(grown.body().get("topic").get("partitions").get(1));
        created.body().get("topic").get("partitions").forEach(placed::add);
        for (JsonNode p : placed) {
            List<Integer> replicas = ints(p.get("replicas"));
            List<Integer> fenced =
                    replicas.stream().filter(r -> !image.isLive(r)).toList();
            assertThat(replicas).as(p.toString()).hasSize(live).doesNotHaveDuplicates();
            assertThat(fenced)
                    .as("%s: exactly one fenced replica, placed last", p)
                    .hasSize(1);
            assertThat(replicas.getLast()).as(p.toString()).isEqualTo(fenced.getFirst());
            assertThat(p.get("leader").asInt()).as(p.toString()).isEqualTo(replicas.getFirst());
            assertThat(ints(p.get("isr"))).as(p.toString()).containsExactlyElementsOf(replicas.subList(0, live - 1));
        }
        assertProblem(createTopic(topicName(), 1, image.brokers().size() + 1, "{}"), 400, "invalid-replication-factor");
    }

    // ---- producer ids

    private Answer allocateProducerIds(String body) throws Exception {
        return post("/internal/v1/producer-ids", body);
    }

    @Test
    void producerIdBlocksFollowEachOtherAndAreNeverHandedOutTwice() throws Exception {
        int a = liveBroker("ra");
        int b = liveBroker("rb");
        long next = node.stateMachine().image().nextProducerId();

        Answer first = allocateProducerIds("{\"brokerId\":%d,\"count\":1000}".formatted(a));
        Answer second = allocateProducerIds("{\"brokerId\":%d,\"count\":1}".formatted(b));

        assertThat(first.status()).as(first.raw().body()).isEqualTo(200);
        assertThat(first.body().get("firstProducerId").asLong()).isEqualTo(next);
        assertThat(first.body().get("count").asInt()).isEqualTo(1000);
        assertThat(second.status()).as(second.raw().body()).isEqualTo(200);
        assertThat(second.body().get("firstProducerId").asLong()).isEqualTo(next + 1000);
        assertThat(second.body().get("count").asInt()).isEqualTo(1);
        assertThat(second.body().get("version").asLong())
                .isEqualTo(first.body().get("version").asLong() + 1);
        assertThat(node.stateMachine().image().nextProducerId()).isEqualTo(next + 1001);
    }

    @Test
    void aFencedButRegisteredBrokerMayTakeProducerIds() throws Exception {
        int id = NEXT_BROKER.getAndIncrement();
        assertThat(post("/internal/v1/brokers", registerBody(id, UUID.randomUUID(), "ra"))
                        .status())
                .isEqualTo(200);
        assertThat(broker(id).get("fenced").asBoolean()).isTrue();

        assertThat(allocateProducerIds("{\"brokerId\":%d,\"count\":10}".formatted(id))
                        .status())
                .isEqualTo(200);
    }

    @Test
    void producerIdsForAnUnknownBrokerAreUnknownBroker() throws Exception {
        assertProblem(allocateProducerIds("{\"brokerId\":9999,\"count\":10}"), 404, "unknown-broker");
    }

    @Test
    void aProducerIdCountOutsideOneToTheLimitOrABadBodyIsRefused() throws Exception {
        int id = liveBroker("ra");
        long next = node.stateMachine().image().nextProducerId();

        assertProblem(allocateProducerIds("{\"brokerId\":%d,\"count\":0}".formatted(id)), 400, "invalid-request");
        assertProblem(allocateProducerIds("{\"brokerId\":%d,\"count\":-1}".formatted(id)), 400, "invalid-request");
        assertProblem(allocateProducerIds("{\"brokerId\":%d,\"count\":10001}".formatted(id)), 400, "invalid-request");
        assertProblem(allocateProducerIds("{\"count\":10}"), 400, "invalid-request");
        assertProblem(allocateProducerIds("{\"brokerId\":%d}".formatted(id)), 400, "invalid-request");
        assertProblem(allocateProducerIds("{\"brokerId\":\"x\",\"count\":10}"), 400, "malformed-json");
        assertProblem(allocateProducerIds("[1,2]"), 400, "malformed-json");

        assertThat(node.stateMachine().image().nextProducerId()).isEqualTo(next);
        assertThat(allocateProducerIds("{\"brokerId\":%d,\"count\":10000}".formatted(id))
                        .status())
                .as("up to the limit")
                .isEqualTo(200);
    }

    // ---- cluster

    @Test
    void describeClusterNamesTheCoordinatorsAndTheLeader() throws Exception {
        JsonNode cluster = get("/internal/v1/cluster").body();
        assertThat(cluster.get("leaderId").asInt()).isZero();
        assertThat(cluster.get("coordinators").size()).isEqualTo(1);
        assertThat(cluster.get("coordinators").get(0).get("leader").asBoolean()).isTrue();
        assertThat(cluster.get("coordinators").get(0).get("httpAddress").asString())
                .isEqualTo("127.0.0.1:8091");
        assertThat(cluster.get("coordinators").get(0).get("kafkaAddress").asString())
                .as("the default tributary.coordinator.kafka-peers")
                .isEqualTo("127.0.0.1:9191");
        assertThat(cluster.get("version").asLong())
                .isEqualTo(node.stateMachine().image().version());
    }

    // ---- metadata long poll

    @Test
    void metadataWithoutAfterIsTheFullImage() throws Exception {
        liveBroker("ra");
        JsonNode full = get("/internal/v1/metadata").body();
        assertThat(full.get("full").asBoolean()).isTrue();
        assertThat(full.get("version").asLong())
                .isEqualTo(node.stateMachine().image().version());
        assertThat(full.get("brokers").size())
                .isEqualTo(node.stateMachine().image().brokers().size());
    }

    @Test
    void aWaitingMetadataPollReturnsWhenATopicIsCreated() throws Exception {
        liveBroker("ra");
        long version = node.stateMachine().image().version();
        String name = topicName();

        CompletableFuture<Answer> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return get("/internal/v1/metadata?after=" + version + "&max_wait_ms=5000");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waiting).isNotDone();
        assertThat(createTopic(name, 1, 1, "{}").status()).isEqualTo(201);

        await().atMost(Duration.ofSeconds(5)).until(waiting::isDone);
        JsonNode changes = waiting.get().body();
        assertThat(changes.get("full").asBoolean()).isFalse();
        assertThat(changes.get("version").asLong()).isGreaterThan(version);
        assertThat(changes.get("topics").findValuesAsString("name")).containsExactly(name);
    }

    @Test
    void aMetadataPollWithNothingNewTimesOutEmpty() throws Exception {
        long version = node.stateMachine().image().version();

        Answer answer = get("/internal/v1/metadata?after=" + (version + 1000) + "&max_wait_ms=100");

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body().get("full").asBoolean()).isFalse();
        assertThat(answer.body().get("brokers").size()).isZero();
        assertThat(answer.body().get("topics").size()).isZero();
        assertThat(answer.body().get("deletedTopics").size()).isZero();
    }

    @Test
    void aPollerBehindTheHistoryGetsTheFullImage() throws Exception {
        for (int i = 0; i < 5; i++) {
            liveBroker("ra");
        }
        JsonNode answer = get("/internal/v1/metadata?after=0&max_wait_ms=0").body();
        assertThat(answer.get("full").asBoolean()).isTrue();
        assertThat(answer.get("brokers").size())
                .isEqualTo(node.stateMachine().image().brokers().size());
    }

    @Test
    void aDeletedTopicIsNamedInTheDelta() throws Exception {
        liveBroker("ra");
        String name = topicName();
        createTopic(name, 1, 1, "{}");
        long version = node.stateMachine().image().version();
        send("DELETE", "/internal/v1/topics/" + name, null, null);

        JsonNode changes = get("/internal/v1/metadata?after=" + version).body();

        assertThat(changes.get("full").asBoolean()).isFalse();
        assertThat(changes.get("deletedTopics").get(0).asString()).isEqualTo(name);
    }

    @Test
    void metadataPollBoundsAreInvalidParameters() throws Exception {
        assertProblem(get("/internal/v1/metadata?after=0&max_wait_ms=5001"), 400, "invalid-parameter");
        assertProblem(get("/internal/v1/metadata?after=0&max_wait_ms=-1"), 400, "invalid-parameter");
        assertProblem(get("/internal/v1/metadata?after=-1"), 400, "invalid-parameter");
        assertProblem(get("/internal/v1/metadata?after=abc"), 400, "invalid-parameter");
    }

    // ---- HTTP-level errors

    @Test
    void aBodyOverTheBoundIsBodyTooLarge() throws Exception {
        String big = "{\"name\":\"" + "x".repeat(5000) + "\"}";
        assertProblem(post("/internal/v1/topics", big), 413, "body-too-large");
    }

    @Test
    void aChunkedBodyIsLengthRequired() throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/internal/v1/topics"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(
                                "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8))))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertProblem(
                new Answer(
                        response.statusCode(),
                        response.headers().firstValue("Content-Type").orElse(""),
                        json.readTree(response.body()),
                        response),
                411,
                "length-required");
    }

    @Test
    void aBodyThatIsNotJsonIsUnsupportedMediaType() throws Exception {
        assertProblem(send("POST", "/internal/v1/topics", "name=x", "text/plain"), 415, "unsupported-media-type");
    }

    @Test
    void aWrongMethodIsMethodNotAllowed() throws Exception {
        Answer answer = send("PUT", "/internal/v1/topics", "{}", "application/json");
        assertProblem(answer, 405, "method-not-allowed");
        assertThat(answer.raw().headers().firstValue("Allow")).isPresent();
    }

    @Test
    void anUnknownPathIsNotFound() throws Exception {
        assertProblem(get("/internal/v1/nothing-here"), 404, "not-found");
    }

    @Test
    void anAnswerOtherThanJsonIsNotAcceptable() throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/internal/v1/cluster"))
                        .header("Accept", "text/csv")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(406);
    }
}
