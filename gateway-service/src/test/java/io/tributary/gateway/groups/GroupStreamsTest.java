package io.tributary.gateway.groups;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.common.testing.BackgroundFailures;
import io.tributary.gateway.app.GatewayApplication;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.sse.GroupCursor;
import io.tributary.gateway.sse.GroupCursorCodec;
import io.tributary.gateway.testing.GatewayHttp;
import io.tributary.gateway.testing.GroupStreamReader;
import io.tributary.gateway.testing.SharedKafka;
import io.tributary.gateway.testing.TestTopics;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Consumer-group SSE streams on two gateway replicas (two Spring contexts on their own ports) in
 * front of one real Apache Kafka broker, with KIP-848 consumers: partitions shared exactly, handed
 * over exactly on close and join, resumed exactly on the other replica, manual commits (forwarded
 * between replicas), and the group resources.
 */
@ExtendWith(SharedKafka.class)
class GroupStreamsTest {

    /** The stream readers' and the writer's failures: checked in every await and after each test. */
    @RegisterExtension
    final BackgroundFailures background = new BackgroundFailures();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger names = new AtomicInteger();

    private static ConfigurableApplicationContext gatewayA;
    private static ConfigurableApplicationContext gatewayB;
    private static int portA;
    private static int portB;
    private static Admin admin;
    private static KafkaProducer<String, String> producer;

    @BeforeAll
    static void startTwoGateways() throws IOException {
        portA = freePort();
        portB = freePort();
        gatewayA = gateway("gateway-a", portA);
        gatewayB = gateway("gateway-b", portB);
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers()));
        producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                SharedKafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.LINGER_MS_CONFIG,
                2));
    }

    @AfterAll
    static void stopGateways() {
        if (producer != null) {
            producer.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (gatewayA != null) {
            gatewayA.close();
        }
        if (gatewayB != null) {
            gatewayB.close();
        }
    }

    private static ConfigurableApplicationContext gateway(String instance, int port) {
        // as arguments: they win over application.yaml (default properties would not)
        return new SpringApplicationBuilder(GatewayApplication.class)
                .run(
                        "--server.port=" + port,
                        "--tributary.instance=" + instance,
                        "--tributary.gateway.bootstrap-servers=" + SharedKafka.bootstrapServers(),
                        "--tributary.gateway.sse.heartbeat-interval=300ms",
                        "--tributary.gateway.sse.slow-client-timeout=5s",
                        "--tributary.gateway.groups.session-timeout=4s",
                        "--tributary.gateway.groups.heartbeat-interval=300ms",
                        "--tributary.gateway.groups.max-streams=4",
                        "--tributary.gateway.groups.advertised-url=http://127.0.0.1:" + port,
                        "--springdoc.api-docs.enabled=false",
                        "--springdoc.swagger-ui.enabled=false");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** An await that also ends, with the cause, as soon as a stream reader or writer failed. */
    private ConditionFactory await(String what) {
        return Awaitility.await(what)
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(100))
                .failFast("a stream reader or writer failed", background::check);
    }

    private static String unique(String prefix) {
        return prefix + "-" + names.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xffffff);
    }

    private static String topic(int partitions) {
        String name = unique("groups");
        TestTopics.create(admin, name, partitions, Map.of());
        return name;
    }

    /** Values {@code from} to {@code to - 1}, value i to partition i % partitions. */
    private static void produce(String topic, int partitions, int from, int to) {
        try {
            for (int i = from; i < to; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, Integer.toString(i)));
            }
            producer.flush();
        } catch (RuntimeException e) {
            throw new AssertionError("produce failed", e);
        }
    }

    private static Set<String> union(List<GroupStreamReader> readers) {
        Set<String> all = new HashSet<>();
        readers.forEach(r -> all.addAll(r.assignment()));
        return all;
    }

    private static boolean disjointAndComplete(List<GroupStreamReader> readers, String topic, int partitions) {
        int sum = 0;
        for (GroupStreamReader r : readers) {
            sum += r.assignment().size();
        }
        Set<String> expected = new HashSet<>();
        for (int p = 0; p < partitions; p++) {
            expected.add(topic + "-" + p);
        }
        return sum == partitions && union(readers).equals(expected);
    }

    private static List<String> values(List<GroupStreamReader> readers) {
        List<String> all = new ArrayList<>();
        readers.forEach(r -> r.records().forEach(rec -> all.add(rec.value())));
        return all;
    }

    private static Set<String> expectedValues(int to) {
        Set<String> s = new HashSet<>();
        for (int i = 0; i < to; i++) {
            s.add(Integer.toString(i));
        }
        return s;
    }

    /** In the order received, a partition is assigned to a stream only while no other stream holds it. */
    private static void assertOneOwnerAtATime(GroupStreamReader.Log log) {
        Map<String, String> owner = new HashMap<>();
        for (GroupStreamReader.Entry e : log.entries()) {
            if (e.event().equals("closed")) {
                owner.values().removeIf(e.stream()::equals);
                continue;
            }
            if (!e.event().equals("assigned") && !e.event().equals("revoked")) {
                continue;
            }
            for (JsonNode p : e.data().path("partitions")) {
                String tp = p.path("topic").asText() + "-" + p.path("partition").asInt();
                if (e.event().equals("assigned")) {
                    assertThat(owner.get(tp))
                            .as("%s assigned to %s (event %d) while held by another stream", tp, e.stream(), e.seq())
                            .isNull();
                    owner.put(tp, e.stream());
                } else {
                    assertThat(owner.get(tp))
                            .as("%s revoked from %s (event %d)", tp, e.stream(), e.seq())
                            .isEqualTo(e.stream());
                    owner.remove(tp);
                }
            }
        }
    }

    private static void assertOffsetsIncreasePerStream(List<GroupStreamReader> readers) {
        for (GroupStreamReader r : readers) {
            r.offsetsByPartition().forEach((p, offsets) -> {
                for (int i = 1; i < offsets.size(); i++) {
                    assertThat(offsets.get(i))
                            .as("%s partition %d offsets in order", r.name(), p)
                            .isGreaterThan(offsets.get(i - 1));
                }
            });
        }
    }

    @Test
    void streamsOnTwoGatewaysSharePartitionsExactlyThroughCloseAndJoin() throws Exception {
        int partitions = 12;
        String topic = topic(partitions);
        String group = unique("g");
        String path = "/v1/groups/" + group + "/events?topics=" + topic + "&from=earliest";
        GroupStreamReader.Log log = new GroupStreamReader.Log();
        GroupStreamReader s1 = GroupStreamReader.open(background, "s1", portA, path, log);
        GroupStreamReader s2 = GroupStreamReader.open(background, "s2", portB, path, log);
        GroupStreamReader s3 = GroupStreamReader.open(background, "s3", portA, path, log);
        List<GroupStreamReader> all = List.of(s1, s2, s3);
        try {
            await("three streams hold the 12 partitions between them")
                    .until(() -> disjointAndComplete(all, topic, partitions)
                            && all.stream().allMatch(r -> !r.assignment().isEmpty()));

            produce(topic, partitions, 0, 240);
            await("every record of the first 240 delivered")
                    .until(() -> new HashSet<>(values(all)).equals(expectedValues(240)));

            // a client goes away: its partitions go to the others, which start where it stopped
            s2.close();
            List<GroupStreamReader> left = List.of(s1, s3);
            await("the two left hold all 12").until(() -> disjointAndComplete(left, topic, partitions));
            produce(topic, partitions, 240, 480);
            await("every record of the first 480 delivered")
                    .until(() -> new HashSet<>(values(all)).equals(expectedValues(480)));

            // a stream joins on gateway B while records flow: partitions move mid-stream
            BackgroundFailures.Task writer = background.start("writer", t -> {
                for (int from = 480; from < 960; from += 40) {
                    produce(topic, partitions, from, from + 40);
                }
            });
            GroupStreamReader s4 = GroupStreamReader.open(background, "s4", portB, path, log);
            List<GroupStreamReader> now = List.of(s1, s3, s4);
            List<GroupStreamReader> everyone = List.of(s1, s2, s3, s4);
            try {
                await("three streams hold the 12 partitions again")
                        .until(() -> disjointAndComplete(now, topic, partitions)
                                && !s4.assignment().isEmpty());
                writer.join(Duration.ofSeconds(90));
                background.check();
                await("every record of 960 delivered")
                        .until(() -> new HashSet<>(values(everyone)).equals(expectedValues(960)));

                List<String> delivered = values(everyone);
                assertThat(delivered)
                        .as("each record delivered once to the group (commit=auto hands over exactly)")
                        .hasSize(960)
                        .doesNotHaveDuplicates();
                assertOneOwnerAtATime(log);
                assertOffsetsIncreasePerStream(everyone);

                // the group as the gateway describes it: three members, every partition owned, no lag
                JsonNode d = await("the group stable, its committed offsets at the log end")
                        .until(
                                () -> JSON.readTree(new GatewayHttp(portA)
                                        .get("/v1/groups/" + group)
                                        .body()),
                                n -> n.path("state").asText().equals("stable")
                                        && n.path("members").size() == 3
                                        && n.path("partitions").size() == partitions
                                        && allLagZero(n.path("partitions")));
                Set<String> owners = new TreeSet<>();
                d.path("partitions").forEach(p -> owners.add(p.path("member_id").asText()));
                assertThat(owners).hasSize(3);
                assertThat(d.path("partitions").get(0).path("log_end_offset").asLong())
                        .isEqualTo(80);
            } finally {
                s4.close();
            }
        } finally {
            all.forEach(GroupStreamReader::close);
        }
    }

    @Test
    void aGatewayStoppingEndsItsGroupStreamsAndTheirPartitionsMoveOnExactly() throws Exception {
        int partitions = 6;
        String topic = topic(partitions);
        String group = unique("g");
        String path = "/v1/groups/" + group + "/events?topics=" + topic + "&from=earliest";
        GroupStreamReader.Log log = new GroupStreamReader.Log();
        int portC = freePort();
        ConfigurableApplicationContext gatewayC = gateway("gateway-c", portC);
        GroupStreamReader onA = GroupStreamReader.open(background, "on-a", portA, path, log);
        GroupStreamReader onC = GroupStreamReader.open(background, "on-c", portC, path, log);
        List<GroupStreamReader> both = List.of(onA, onC);
        try {
            await("the two streams share the partitions")
                    .until(() -> disjointAndComplete(both, topic, partitions)
                            && !onC.assignment().isEmpty());
            produce(topic, partitions, 0, 120);
            await("all 120").until(() -> new HashSet<>(values(both)).equals(expectedValues(120)));

            gatewayC.close(); // its streams end, commit what they wrote, and their members leave
            await("the stream on the stopped gateway ended").until(onC::ended);
            await("the stream on A holds every partition")
                    .until(() -> onA.assignment().size() == partitions);
            produce(topic, partitions, 120, 240);
            await("all 240").until(() -> new HashSet<>(values(both)).equals(expectedValues(240)));
            assertThat(values(both)).as("each record once").hasSize(240).doesNotHaveDuplicates();
            assertOffsetsIncreasePerStream(both);
        } finally {
            both.forEach(GroupStreamReader::close);
            gatewayC.close();
        }
    }

    /** A tombstone on a group stream is an {@code event: delete}, as on a topic stream: key, no value, an id. */
    @Test
    void aTombstoneIsADeleteEventOnAGroupStream() throws Exception {
        String topic = topic(1);
        String path = "/v1/groups/" + unique("g") + "/events?topics=" + topic + "&from=earliest";
        producer.send(new ProducerRecord<>(topic, 0, "k", "1"));
        producer.send(new ProducerRecord<>(topic, 0, "k", null));
        producer.flush();
        GroupStreamReader.Log log = new GroupStreamReader.Log();
        GroupStreamReader stream = GroupStreamReader.open(background, "s", portA, path, log);
        try {
            await("the record and the tombstone").until(() -> stream.records().size() >= 2);
            assertThat(stream.records())
                    .extracting(GroupStreamReader.Record::event, GroupStreamReader.Record::offset)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("record", 0L),
                            org.assertj.core.groups.Tuple.tuple("delete", 1L));
            JsonNode deleted = log.entries().stream()
                    .filter(e -> e.event().equals("delete"))
                    .findFirst()
                    .orElseThrow()
                    .data();
            assertThat(deleted.path("key").asText()).isEqualTo("k");
            assertThat(deleted.has("value")).isFalse();
            assertThat(GroupCursorCodec.decode(stream.lastId()).nextOffset(TestTopics.topicId(admin, topic), 0))
                    .isEqualTo(2);
        } finally {
            stream.close();
        }
    }

    private static boolean allLagZero(JsonNode partitions) {
        for (JsonNode p : partitions) {
            if (p.path("lag").asLong(-1) != 0) {
                return false;
            }
        }
        return true;
    }

    @Test
    void aStaticMemberResumesExactlyOnTheOtherGatewayFromItsLastEventId() throws Exception {
        int partitions = 4;
        String topic = topic(partitions);
        String group = unique("g");
        String path = "/v1/groups/" + group + "/events?topics=" + topic + "&member=browser-1&from=earliest";
        GroupStreamReader.Log log = new GroupStreamReader.Log();
        produce(topic, partitions, 0, 400);
        List<GroupStreamReader.Record> received = new ArrayList<>();
        String lastId;
        GroupStreamReader first = GroupStreamReader.open(background, "first", portA, path, log);
        try {
            await("some records").until(() -> first.records().size() >= 50);
        } finally {
            first.close();
        }
        // what the client read before it went away; the gateway may have written (and committed) more
        received.addAll(first.records());
        lastId = first.lastId();
        assertThat(first.assignedEvents().getFirst().path("member").asText()).isEqualTo("browser-1");

        GroupStreamReader second =
                GroupStreamReader.open(background, "second", portB, path, log, "Last-Event-ID: " + lastId);
        try {
            await("the rest").until(() -> received.size() + second.records().size() >= 400);
            received.addAll(second.records());
            List<String> values =
                    received.stream().map(GroupStreamReader.Record::value).toList();
            assertThat(values)
                    .as("exactly once across the reconnect")
                    .hasSize(400)
                    .doesNotHaveDuplicates();
            assertThat(new HashSet<>(values)).isEqualTo(expectedValues(400));
        } finally {
            second.close();
        }
    }

    @Test
    void manualCommitsAreMadeByTheMembersStreamWhicheverGatewayTheyReach() throws Exception {
        int partitions = 2;
        String topic = topic(partitions);
        String group = unique("g");
        GroupStreamReader.Log log = new GroupStreamReader.Log();
        produce(topic, partitions, 0, 20);
        GroupStreamReader s = GroupStreamReader.open(
                background,
                "manual",
                portA,
                "/v1/groups/" + group + "/events?topics=" + topic + "&commit=manual&member=m1&from=earliest",
                log);
        long[] next = new long[partitions];
        try {
            await("all 20").until(() -> s.records().size() == 20);
            GatewayHttp onA = new GatewayHttp(portA);
            GatewayHttp onB = new GatewayHttp(portB);

            // explicit offsets, sent to the replica that holds the stream
            HttpResponse<String> r = onA.post(
                    "/v1/groups/" + group + "/commits",
                    "application/json",
                    "{\"member\":\"m1\",\"offsets\":[{\"topic\":\"" + topic + "\",\"partition\":0,\"offset\":4}]}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(JSON.readTree(r.body())
                            .path("committed")
                            .get(0)
                            .path("offset")
                            .asLong())
                    .isEqualTo(4);
            assertThat(committed(group, topic, 0)).isEqualTo(4);

            // a cursor (the id of the 8th event), sent to the other replica: forwarded to the stream's
            List<GroupStreamReader.Record> got = s.records();
            for (GroupStreamReader.Record rec : got.subList(0, 8)) {
                next[rec.partition()] = rec.offset() + 1;
            }
            HttpResponse<String> viaB = onB.post(
                    "/v1/groups/" + group + "/commits",
                    "application/json",
                    "{\"member\":\"m1\",\"cursor\":\"" + got.get(7).id() + "\"}");
            assertThat(viaB.statusCode()).as(viaB.body()).isEqualTo(200);
            assertThat(committed(group, topic, 0)).isEqualTo(next[0]);
            assertThat(committed(group, topic, 1)).isEqualTo(next[1]);

            // past what the stream delivered, a partition it does not hold, an unknown member
            assertProblem(
                    onA.post(
                            "/v1/groups/" + group + "/commits",
                            "application/json",
                            "{\"member\":\"m1\",\"offsets\":[{\"topic\":\"" + topic
                                    + "\",\"partition\":0,\"offset\":11}]}"),
                    400,
                    "invalid-commit");
            assertProblem(
                    onA.post(
                            "/v1/groups/" + group + "/commits",
                            "application/json",
                            "{\"member\":\"m1\",\"offsets\":[{\"topic\":\"" + topic
                                    + "\",\"partition\":5,\"offset\":1}]}"),
                    409,
                    "partition-not-assigned");
            assertProblem(
                    onB.post(
                            "/v1/groups/" + group + "/commits",
                            "application/json",
                            "{\"member\":\"nobody\",\"offsets\":[{\"topic\":\"" + topic
                                    + "\",\"partition\":0,\"offset\":1}]}"),
                    409,
                    "member-not-connected");
        } finally {
            s.close();
        }
        // manual: nothing but what the client committed; a new member starts exactly there
        GroupStreamReader later = GroupStreamReader.open(
                background, "later", portB, "/v1/groups/" + group + "/events?topics=" + topic + "&commit=manual", log);
        try {
            long expected = 20 - next[0] - next[1];
            await("the records after the committed offsets")
                    .until(() -> later.records().size() >= expected);
            for (GroupStreamReader.Record rec : later.records()) {
                assertThat(rec.offset()).isGreaterThanOrEqualTo(next[rec.partition()]);
            }
            assertThat(later.records()).hasSize((int) expected);
        } finally {
            later.close();
        }
    }

    private static long committed(String group, String topic, int partition) throws Exception {
        var offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        var o = offsets.get(new org.apache.kafka.common.TopicPartition(topic, partition));
        return o == null ? -1 : o.offset();
    }

    private static void assertProblem(HttpResponse<String> r, int status, String type) throws IOException {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(JSON.readTree(r.body()).path("type").asText()).isEqualTo("urn:tributary:problem:" + type);
    }

    @Test
    void listAndDescribeGroupsAndUnknownGroupIs404() throws Exception {
        String topic = topic(3);
        String group = unique("g");
        GroupStreamReader s = GroupStreamReader.open(
                background,
                "listed",
                portA,
                "/v1/groups/" + group + "/events?topics=" + topic + "&member=lister",
                new GroupStreamReader.Log());
        try {
            await("assigned").until(() -> s.assignment().size() == 3);
            GatewayHttp http = new GatewayHttp(portB);
            JsonNode list = JSON.readTree(http.get("/v1/groups").body());
            List<String> names = list.path("groups").findValuesAsText("group");
            assertThat(names).contains(group);
            JsonNode d = JSON.readTree(http.get("/v1/groups/" + group).body());
            assertThat(d.path("type").asText()).isEqualTo("consumer");
            assertThat(d.path("members")).hasSize(1);
            JsonNode m = d.path("members").get(0);
            assertThat(m.path("member").asText()).isEqualTo("lister");
            assertThat(m.path("client_id").asText())
                    .isEqualTo(GroupsController.CLIENT_ID + "@http://127.0.0.1:" + portA);
            assertThat(m.path("assignment")).hasSize(3);
        } finally {
            s.close();
        }
        assertProblem(new GatewayHttp(portA).get("/v1/groups/" + unique("never")), 404, "group-not-found");
    }

    @Test
    void badRequestsAreProblemsNeverServerErrors() throws Exception {
        String topic = topic(1);
        GatewayHttp http = new GatewayHttp(portA);
        String g = "/v1/groups/" + unique("g");
        assertProblem(http.get(g + "/events"), 400, "invalid-parameter");
        assertProblem(http.get(g + "/events?topics=a,,b"), 400, "invalid-parameter");
        assertProblem(http.get(g + "/events?topics=bad%20name"), 400, "invalid-parameter");
        assertProblem(http.get(g + "/events?topics=" + unique("missing")), 404, "topic-not-found");
        assertProblem(http.get(g + "/events?topics=" + topic + "&commit=sometimes"), 400, "invalid-parameter");
        assertProblem(http.get(g + "/events?topics=" + topic + "&from=yesterday"), 400, "invalid-parameter");
        assertProblem(http.get(g + "/events?topics=" + topic + "&cursor=v1.nonsense"), 400, "invalid-parameter");
        assertProblem(http.post(g + "/commits", "application/json", "{\"offsets\":[]}"), 400, "invalid-commit");
        assertProblem(http.post(g + "/commits", "application/json", "{\"member\":\"m\"}"), 400, "invalid-commit");
        assertProblem(
                http.post(
                        g + "/commits",
                        "application/json",
                        "{\"member\":\"m\",\"cursor\":\"x\",\"offsets\":[{\"topic\":\"t\",\"partition\":0,\"offset\":1}]}"),
                400,
                "invalid-commit");
        assertProblem(
                http.post(g + "/commits", "application/json", "{\"member\":\"m\",\"cursor\":\"g1.@@\"}"),
                400,
                "invalid-commit");
        assertProblem(
                http.post(
                        g + "/commits",
                        "application/json",
                        "{\"member\":\"m\",\"offsets\":[{\"topic\":\"t\",\"partition\":-1,\"offset\":1}]}"),
                400,
                "invalid-commit");
        assertProblem(http.post(g + "/commits", "application/json", "{not json"), 400, "malformed-json");

        // a cursor of another topic (or of this name before it was re-created)
        TreeMap<String, SortedMap<Integer, Long>> other = new TreeMap<>();
        other.put(Uuid.randomUuid().toString(), new TreeMap<>(Map.of(0, 5L)));
        String foreign = GroupCursorCodec.encode(new GroupCursor(1, other));
        assertProblem(http.get(g + "/events?topics=" + topic + "&cursor=" + foreign), 409, "cursor-topic-changed");

        // one stream per member on a gateway: the newer one takes over (a reconnecting EventSource
        // must not get a 409, on which a browser gives up for good)
        GroupStreamReader.Log soloLog = new GroupStreamReader.Log();
        try (GroupStreamReader first = GroupStreamReader.open(
                background, "first", portA, g + "/events?topics=" + topic + "&member=solo", soloLog)) {
            await("joined").until(() -> !first.assignedEvents().isEmpty());
            try (GroupStreamReader second = GroupStreamReader.open(
                    background, "second", portA, g + "/events?topics=" + topic + "&member=solo", soloLog)) {
                await("the older stream ended with member-in-use")
                        .until(() ->
                                first.ended() && first.errors().stream().anyMatch(e -> e.contains("member-in-use")));
                await("the newer stream holds the partition")
                        .until(() -> !second.assignedEvents().isEmpty());
                assertThat(second.errors()).isEmpty();
                assertThat(gatewayA.getBean(MeterRegistry.class)
                                .get("tributary.gateway.group.streams.closed")
                                .tag("reason", GatewayMetrics.REPLACED)
                                .counter()
                                .count())
                        .isEqualTo(1.0);
            }
        }
    }

    @Test
    void aGatewayOpensAtMostMaxStreamsGroupStreams() throws Exception {
        String topic = topic(1);
        String group = unique("g");
        String path = "/v1/groups/" + group + "/events?topics=" + topic;
        GatewayMetrics metrics = gatewayB.getBean(GatewayMetrics.class);
        await("streams of earlier tests ended on gateway B").until(() -> metrics.groupStreams() == 0);
        List<GroupStreamReader> open = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                open.add(GroupStreamReader.open(background, "slot" + i, portB, path, new GroupStreamReader.Log()));
            }
            HttpResponse<String> fifth = new GatewayHttp(portB).get(path);
            assertProblem(fifth, 503, "too-many-group-streams");
            assertThat(fifth.headers().firstValue("Retry-After")).isPresent();
        } finally {
            open.forEach(GroupStreamReader::close);
        }
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
