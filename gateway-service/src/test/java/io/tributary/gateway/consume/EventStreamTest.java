package io.tributary.gateway.consume;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.common.testing.BackgroundFailures;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.sse.CursorCodec;
import io.tributary.gateway.sse.StreamCursor;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import io.tributary.gateway.testing.SseClient;
import io.tributary.gateway.testing.SseClient.Event;
import io.tributary.gateway.testing.TestTopics;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;

/** SSE streams against a real Kafka broker: order, ids, exact resume, gaps and the bounds. */
class EventStreamTest extends GatewayIntegrationTest {

    /** The producer writing while streams are cut and resumed: checked at each cut and after each test. */
    @RegisterExtension
    final BackgroundFailures background = new BackgroundFailures();

    @Autowired
    GatewayMetrics metrics;

    @Autowired
    MeterRegistry registry;

    @Autowired
    SseProperties sse;

    @Autowired
    EventStreamController streams;

    /** A delivered record: where it is and its value. */
    record Delivered(int partition, long offset, String value) {}

    private void produce(String topic, int partition, int first, int count) {
        StringBuilder body = new StringBuilder("{\"records\":[");
        for (int i = 0; i < count; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"partition\":")
                    .append(partition)
                    .append(",\"value\":")
                    .append(first + i)
                    .append('}');
        }
        body.append("]}");
        HttpResponse<String> r = http.post("/v1/topics/" + topic + "/records", "application/json", body.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private static Delivered delivered(Event e) {
        assertThat(e.name()).isEqualTo("record");
        int partition = JsonPath.read(e.data(), "$.partition");
        long offset = ((Number) JsonPath.read(e.data(), "$.offset")).longValue();
        return new Delivered(
                partition, offset, JsonPath.read(e.data(), "$.value").toString());
    }

    private static Event next(SseClient client) {
        return client.next().orElseThrow(() -> new AssertionError("the stream ended"));
    }

    private String topicId(String topic) throws Exception {
        return TestTopics.topicId(admin, topic);
    }

    @Test
    void eventsArriveInOrderEachWithTheCursorAfterIt() throws Exception {
        String topic = createTopic("sse-order", 3);
        for (int p = 0; p < 3; p++) {
            produce(topic, p, p * 100, 10);
        }
        try (SseClient client = SseClient.open(httpPort, "/v1/topics/" + topic + "/events?from=earliest")) {
            assertThat(client.status()).isEqualTo(200);
            assertThat(client.header("Content-Type")).startsWith("text/event-stream");
            assertThat(client.header("Cache-Control")).isEqualTo("no-cache");
            assertThat(client.header("X-Accel-Buffering")).isEqualTo("no");
            TreeMap<Integer, Long> expectedNext = new TreeMap<>(Map.of(0, 0L, 1, 0L, 2, 0L));
            for (int i = 0; i < 30; i++) {
                Event e = next(client);
                Delivered d = delivered(e);
                assertThat(d.offset())
                        .as("partition %d in order", d.partition())
                        .isEqualTo(expectedNext.get(d.partition()));
                assertThat(d.value()).isEqualTo(Long.toString(d.partition() * 100 + d.offset()));
                expectedNext.put(d.partition(), d.offset() + 1);
                assertThat(e.id()).isPresent();
                assertThat(e.id().get()).matches("[A-Za-z0-9._-]+");
                assertThat(CursorCodec.decode(e.id().get())).isEqualTo(new StreamCursor(topicId(topic), expectedNext));
            }
            assertThat(client.retry()).contains(Long.toString(sse.retry().toMillis()));
            client.expectNoEventFor(2); // heartbeats come while nothing is produced
        }
    }

    /**
     * A tombstone (a record produced with {@code "value": null}) is an {@code event: delete} with the
     * record's key, partition, offset, timestamp and headers and no value, its id the cursor after
     * it: read by a stream's own reader (behind the end) and by the shared tail reader (a stream at
     * the end) alike.
     */
    @Test
    void aTombstoneIsADeleteEventWithoutAValueFromTheOwnAndTheSharedReader() throws Exception {
        String topic = createTopic("sse-deleted", 1, Map.of("cleanup.policy", "compact"));
        String records = "/v1/topics/" + topic + "/records";
        HttpResponse<String> written = http.post(
                records,
                "application/json",
                "{\"records\":[{\"key\":\"k\",\"value\":1,\"timestamp\":1700000001000},"
                        + "{\"key\":\"k\",\"value\":null,\"headers\":{\"why\":\"gone\"},\"timestamp\":1700000002000}]}");
        assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
        String path = "/v1/topics/" + topic + "/events";
        try (SseClient behind = SseClient.open(httpPort, path + "?from=earliest");
                SseClient atEnd = SseClient.open(httpPort, path + "?from=latest")) {
            assertThat(behind.status()).isEqualTo(200);
            assertThat(atEnd.status()).isEqualTo(200);
            assertThat(delivered(next(behind))).isEqualTo(new Delivered(0, 0, "1"));
            Event deleted = next(behind);
            assertThat(deleted.name()).isEqualTo("delete");
            assertThat(deleted.data())
                    .isEqualTo("{\"topic\":\"" + topic + "\",\"partition\":0,\"offset\":1,"
                            + "\"timestamp\":\"2023-11-14T22:13:22Z\",\"key\":\"k\",\"headers\":{\"why\":\"gone\"}}");
            assertThat(CursorCodec.decode(deleted.id().orElseThrow()).nextOffsets())
                    .containsExactlyEntriesOf(Map.of(0, 2L));

            written = http.post(records, "application/json", "{\"key\":\"k\",\"value\":null}");
            assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
            for (SseClient client : List.of(behind, atEnd)) {
                Event e = next(client);
                assertThat(e.name()).isEqualTo("delete");
                assertThat(JsonPath.<String>read(e.data(), "$.key")).isEqualTo("k");
                assertThat(JsonPath.<Integer>read(e.data(), "$.offset")).isEqualTo(2);
                assertThat(e.data()).doesNotContain("\"value", "\"tombstone\"");
                assertThat(CursorCodec.decode(e.id().orElseThrow()).nextOffsets())
                        .containsExactlyEntriesOf(Map.of(0, 3L));
            }
        }
    }

    @Test
    void partitionsAndATimeChooseWhereANewStreamStarts() {
        String topic = createTopic("sse-from-time", 2);
        for (int p = 0; p < 2; p++) {
            StringBuilder body = new StringBuilder("{\"records\":[");
            for (int i = 0; i < 10; i++) {
                body.append(i == 0 ? "" : ",")
                        .append("{\"partition\":")
                        .append(p)
                        .append(",\"timestamp\":")
                        .append(1_700_000_000_000L + i * 1000)
                        .append(",\"value\":")
                        .append(i)
                        .append('}');
            }
            body.append("]}");
            HttpResponse<String> r = http.post("/v1/topics/" + topic + "/records", "application/json", body.toString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        String from = "2023-11-14T22:13:25Z"; // 1_700_000_005_000: the record at offset 5
        try (SseClient client = SseClient.open(httpPort, "/v1/topics/" + topic + "/events?partitions=1&from=" + from)) {
            assertThat(client.status()).isEqualTo(200);
            for (long offset = 5; offset < 10; offset++) {
                Event e = next(client);
                assertThat(delivered(e)).isEqualTo(new Delivered(1, offset, Long.toString(offset)));
                assertThat(CursorCodec.decode(e.id().orElseThrow()).nextOffsets())
                        .containsExactlyEntriesOf(Map.of(1, offset + 1));
            }
            client.expectNoEventFor(2);
        }
    }

    @Test
    void lastEventIdAndCursorResumeWithExactlyTheRest() {
        String topic = createTopic("sse-resume", 2);
        produce(topic, 0, 0, 15);
        produce(topic, 1, 100, 15);
        String path = "/v1/topics/" + topic + "/events";
        List<Delivered> all = new ArrayList<>();
        String id;
        try (SseClient client = SseClient.open(httpPort, path + "?from=earliest")) {
            Event e = null;
            for (int i = 0; i < 10; i++) {
                e = next(client);
                all.add(delivered(e));
            }
            id = e.id().orElseThrow();
        }
        for (String how : List.of("header", "cursor")) {
            List<Delivered> got = new ArrayList<>(all);
            try (SseClient client = how.equals("header")
                    // Last-Event-ID wins over cursor and from
                    ? SseClient.open(httpPort, path + "?from=latest&cursor=garbage-is-ignored", "Last-Event-ID: " + id)
                    // cursor wins over from
                    : SseClient.open(httpPort, path + "?from=latest&cursor=" + id)) {
                assertThat(client.status()).as(how).isEqualTo(200);
                for (int i = 0; i < 20; i++) {
                    got.add(delivered(next(client)));
                }
                client.expectNoEventFor(2);
            }
            assertThat(got).as(how).doesNotHaveDuplicates().hasSize(30);
            Set<String> values = new HashSet<>();
            got.forEach(d -> values.add(d.value()));
            for (int i = 0; i < 15; i++) {
                assertThat(values).as(how).contains(Integer.toString(i), Integer.toString(100 + i));
            }
        }
    }

    /**
     * The resume property: a stream cut after a random number of events and resumed from its last
     * event id, over and over while a producer writes, delivers the log exactly: no gap, no duplicate.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 23, 42, 1009})
    void aStreamCutAtRandomPointsAndResumedDeliversTheLogExactly(long seed) throws Exception {
        RandomGenerator random = new SplittableRandom(seed);
        String topic = createTopic("sse-cuts", 3);
        int batches = 40;
        int perBatch = 5;
        BackgroundFailures.Task producer = background.start("producer", task -> {
            for (int b = 0; b < batches; b++) {
                produce(topic, b % 3, b * perBatch, perBatch);
            }
        });
        String path = "/v1/topics/" + topic + "/events";
        List<Delivered> delivered = new ArrayList<>();
        Optional<String> lastId = Optional.empty();
        int cuts = 0;
        while (delivered.size() < batches * perBatch) {
            background.check(); // a producer that died fails here, not as a stream with nothing more
            int take = random.nextInt(25);
            try (SseClient client = lastId.isPresent()
                    ? SseClient.open(httpPort, path, "Last-Event-ID: " + lastId.get())
                    : SseClient.open(httpPort, path + "?from=earliest")) {
                assertThat(client.status()).as("seed %d", seed).isEqualTo(200);
                for (int i = 0; i < take && delivered.size() < batches * perBatch; i++) {
                    Event e = next(client);
                    delivered.add(delivered(e));
                    lastId = e.id();
                }
            }
            cuts++;
        }
        producer.join(Duration.ofSeconds(60));
        background.check();
        assertThat(delivered).as("seed %d, %d cuts: no duplicate", seed, cuts).doesNotHaveDuplicates();
        Set<String> values = new HashSet<>();
        TreeMap<Integer, Long> count = new TreeMap<>();
        for (Delivered d : delivered) {
            values.add(d.value());
            count.merge(d.partition(), 1L, Long::sum);
        }
        assertThat(values).as("seed %d: every record", seed).hasSize(batches * perBatch);
        // no gap: each partition delivered offsets 0..n-1
        for (Delivered d : delivered) {
            assertThat(d.offset()).as("seed %d", seed).isLessThan(count.get(d.partition()));
        }
        // and a stream resumed after the last event has nothing more
        try (SseClient client = SseClient.open(httpPort, path, "Last-Event-ID: " + lastId.orElseThrow())) {
            client.expectNoEventFor(2);
        }
    }

    @Test
    void retentionRemovingTheCursorsPositionIsAGapEventWithoutId() throws Exception {
        String topic = createTopic("sse-gap", 1);
        produce(topic, 0, 0, 10);
        String path = "/v1/topics/" + topic + "/events";
        String id;
        try (SseClient client = SseClient.open(httpPort, path + "?from=earliest")) {
            next(client);
            next(client);
            id = next(client).id().orElseThrow(); // next offset 3
        }
        admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(7)))
                .all()
                .get(30, TimeUnit.SECONDS);
        try (SseClient client = SseClient.open(httpPort, path, "Last-Event-ID: " + id)) {
            Event gap = next(client);
            assertThat(gap.name()).isEqualTo("gap");
            assertThat(gap.id()).isEmpty();
            assertThat((String) JsonPath.read(gap.data(), "$.type"))
                    .isEqualTo("urn:tributary:problem:offset-below-log-start");
            assertThat((Integer) JsonPath.read(gap.data(), "$.partition")).isZero();
            assertThat((Integer) JsonPath.read(gap.data(), "$.offset")).isEqualTo(3);
            assertThat((Integer) JsonPath.read(gap.data(), "$.log_start_offset"))
                    .isEqualTo(7);
            for (long offset = 7; offset < 10; offset++) {
                assertThat(delivered(next(client)).offset()).isEqualTo(offset);
            }
        }
    }

    @Test
    void aCursorOfATopicDeletedAndCreatedAgainIs409() throws Exception {
        String topic = createTopic("sse-recreated", 1);
        produce(topic, 0, 0, 1);
        String id;
        try (SseClient client = SseClient.open(httpPort, "/v1/topics/" + topic + "/events?from=earliest")) {
            id = next(client).id().orElseThrow();
        }
        String oldTopicId = topicId(topic);
        admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        Awaitility.await("topic re-created")
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> {
                    admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 1, (short) 1)))
                            .all()
                            .get(30, TimeUnit.SECONDS);
                    return true;
                });
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> !topicId(topic).equals(oldTopicId));
        try (SseClient client = SseClient.open(httpPort, "/v1/topics/" + topic + "/events", "Last-Event-ID: " + id)) {
            assertThat(client.status()).isEqualTo(409);
            String body = client.body();
            assertThat((String) JsonPath.read(body, "$.type")).isEqualTo("urn:tributary:problem:cursor-topic-changed");
        }
    }

    @Test
    void malformedPositionsAre400NamingTheParameter() {
        String topic = createTopic("sse-bad", 1);
        String path = "/v1/topics/" + topic + "/events";
        Map<String, String[]> cases = Map.of(
                "cursor", new String[] {path + "?cursor=v1.nope.AQAA"},
                "Last-Event-ID", new String[] {path, "Last-Event-ID: v9.wE3gVQ8uQ4yq1mY3cS3h0A.AQAA"},
                "from", new String[] {path + "?from=yesterday"},
                "partitions", new String[] {path + "?partitions=0,x"});
        cases.forEach((parameter, request) -> {
            String[] headers = request.length > 1 ? new String[] {request[1]} : new String[0];
            try (SseClient client = SseClient.open(httpPort, request[0], headers)) {
                assertThat(client.status()).as(parameter).isEqualTo(400);
                assertThat(client.header("Content-Type")).startsWith("application/problem+json");
                String body = client.body();
                assertThat((String) JsonPath.read(body, "$.type")).isEqualTo("urn:tributary:problem:invalid-parameter");
                assertThat((String) JsonPath.read(body, "$.parameter")).isEqualTo(parameter);
            }
        });
        try (SseClient client = SseClient.open(httpPort, path + "?partitions=5")) {
            assertThat(client.status()).isEqualTo(404);
        }
        try (SseClient client = SseClient.open(httpPort, "/v1/topics/no-such-topic-sse/events")) {
            assertThat(client.status()).isEqualTo(404);
        }
    }

    @Test
    void oneStreamMoreThanTheLimitIs429() {
        String topic = createTopic("sse-cap", 1);
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> metrics.activeStreams() == 0);
        List<SseClient> open = new ArrayList<>();
        try {
            for (int i = 0; i < sse.maxStreams(); i++) {
                SseClient c = SseClient.open(httpPort, "/v1/topics/" + topic + "/events");
                open.add(c);
                assertThat(c.status()).isEqualTo(200);
            }
            assertThat(metrics.activeStreams()).isEqualTo(sse.maxStreams());
            try (SseClient one = SseClient.open(httpPort, "/v1/topics/" + topic + "/events")) {
                assertThat(one.status()).isEqualTo(429);
                assertThat(one.header("Retry-After")).isNotBlank();
                assertThat(one.body()).contains("urn:tributary:problem:too-many-streams");
            }
        } finally {
            open.forEach(SseClient::close);
        }
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> metrics.activeStreams() == 0);
    }

    @Test
    void aClientThatDoesNotReadIsClosedAndCountedWithoutHoldingUpOthers() {
        String topic = createTopic("sse-slow", 1);
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> metrics.activeStreams() == 0);
        String big = "\"" + "x".repeat(100_000) + "\"";
        for (int b = 0; b < 24; b++) {
            StringBuilder body = new StringBuilder("{\"records\":[");
            for (int i = 0; i < 5; i++) {
                body.append(i == 0 ? "" : ",").append("{\"value\":").append(big).append('}');
            }
            body.append("]}");
            HttpResponse<String> r = http.post("/v1/topics/" + topic + "/records", "application/json", body.toString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        double before = closed(topic, "slow_client");
        try (SseClient stuck = SseClient.open(httpPort, 4096, "/v1/topics/" + topic + "/events?from=earliest");
                SseClient reading = SseClient.open(httpPort, "/v1/topics/" + topic + "/events?from=earliest")) {
            assertThat(stuck.status()).isEqualTo(200);
            // the other stream gets all 120 records while the first reads nothing
            for (int i = 0; i < 120; i++) {
                assertThat(delivered(next(reading)).offset()).isEqualTo(i);
            }
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> closed(topic, "slow_client") > before);
            // the writer blocked on the stuck socket gives up at write-timeout: the slot is free
            // while the stuck client still holds its socket open
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> metrics.activeStreams() == 1);
            assertThat(closed(topic, "slow_client")).isEqualTo(before + 1);
        }
    }

    @Test
    void aStreamItsClientLeftIsCountedOnceAsClientClosed() {
        String topic = createTopic("sse-left", 1);
        double before = closed(topic, "client_closed");
        try (SseClient client = SseClient.open(httpPort, "/v1/topics/" + topic + "/events")) {
            assertThat(client.status()).isEqualTo(200);
            client.expectNoEventFor(1);
        }
        // the next heartbeat finds the connection gone
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> closed(topic, "client_closed") == before + 1);
        assertThat(closed(topic, "client_closed")).isEqualTo(before + 1);
    }

    private double closed(String topic, String reason) {
        return registry
                .find("tributary.sse.streams.closed")
                .tag("reason", reason)
                .tag("topic", topic)
                .counters()
                .stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    @Test
    void streamsOpenWhenTheGatewayStopsEndAndAreCountedAsShutdown() {
        String topic = createTopic("sse-stop", 1);
        produce(topic, 0, 0, 3);
        double before =
                registry
                        .find("tributary.sse.streams.closed")
                        .tag("reason", "shutdown")
                        .tag("topic", topic)
                        .counters()
                        .stream()
                        .mapToDouble(Counter::count)
                        .sum();
        try (SseClient client = SseClient.open(httpPort, "/v1/topics/" + topic + "/events?from=earliest")) {
            for (int i = 0; i < 3; i++) {
                assertThat(delivered(next(client)).offset()).isEqualTo(i);
            }
            streams.closeAllStreams();
            assertThat(client.next()).as("the stream ends").isEmpty();
        }
        assertThat(
                        registry
                                .find("tributary.sse.streams.closed")
                                .tag("reason", "shutdown")
                                .tag("topic", topic)
                                .counters()
                                .stream()
                                .mapToDouble(Counter::count)
                                .sum())
                .isEqualTo(before + 1);
    }
}
