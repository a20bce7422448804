package io.tributary.gateway.consume;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.sse.CursorCodec;
import io.tributary.gateway.sse.SharedTailReaders;
import io.tributary.gateway.sse.StreamCursor;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import io.tributary.gateway.testing.SseClient;
import io.tributary.gateway.testing.SseClient.Event;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** SSE streams at a partition's end share one upstream reader; joining, leaving and slow streams. */
class SharedTailTest extends GatewayIntegrationTest {

    @Autowired
    SharedTailReaders shared;

    @Autowired
    GatewayMetrics metrics;

    @Autowired
    MeterRegistry registry;

    @BeforeEach
    void noStreamsLeftOver() {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> metrics.activeStreams() == 0);
    }

    private void produce(String topic, int first, int count, String padding) {
        StringBuilder body = new StringBuilder("{\"records\":[");
        for (int i = 0; i < count; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"value\":{\"n\":")
                    .append(first + i)
                    .append(",\"pad\":\"")
                    .append(padding)
                    .append("\"}}");
        }
        body.append("]}");
        HttpResponse<String> r = http.post("/v1/topics/" + topic + "/records", "application/json", body.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private void produce(String topic, int first, int count) {
        produce(topic, first, count, "");
    }

    /** Reads {@code count} record events and checks they are offsets {@code first..} with values n. */
    private static List<Event> expectRecords(SseClient client, long first, int count) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Event e = client.next().orElseThrow(() -> new AssertionError("the stream ended"));
            assertThat(e.name()).isEqualTo("record");
            long offset = ((Number) JsonPath.read(e.data(), "$.offset")).longValue();
            assertThat(offset).as("record %d of %d", i, count).isEqualTo(first + i);
            assertThat(((Number) JsonPath.read(e.data(), "$.value.n")).longValue())
                    .isEqualTo(first + i);
            events.add(e);
        }
        return events;
    }

    private double fetches(String mode) {
        return registry.find("tributary.sse.upstream.fetches").tag("mode", mode).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    private double closes(String reason) {
        return registry.find("tributary.sse.streams.closed").tag("reason", reason).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    private SseClient open(String topic, String query, String... headers) {
        SseClient c = SseClient.open(httpPort, "/v1/topics/" + topic + "/events" + query, headers);
        assertThat(c.status()).isEqualTo(200);
        return c;
    }

    @Test
    void manyStreamsAtTheEndShareOneUpstreamReaderAndEachGetsEveryRecordOnceInOrder() {
        String topic = createTopic("sse-shared", 1);
        int streams = 10;
        List<SseClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < streams; i++) {
                clients.add(open(topic, "?from=latest"));
            }
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shared.attachedStreams(topic) == streams);
            assertThat(shared.readers(topic)).isEqualTo(1);
            double ownBefore = fetches("own");
            double sharedBefore = fetches("shared");

            produce(topic, 0, 40);
            for (SseClient c : clients) {
                expectRecords(c, 0, 40);
            }
            produce(topic, 40, 10);
            for (SseClient c : clients) {
                expectRecords(c, 40, 10);
            }

            // every record came through the one shared reader: no stream polled the cluster itself
            assertThat(fetches("own")).isEqualTo(ownBefore);
            assertThat(fetches("shared")).isGreaterThan(sharedBefore);
            assertThat(shared.readers(topic)).isEqualTo(1);
            assertThat(shared.attachedStreams(topic)).isEqualTo(streams);
        } finally {
            clients.forEach(SseClient::close);
        }
        // the reader ends with its last stream
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shared.readers(topic) == 0);
        assertThat(shared.attachedStreams(topic)).isZero();
    }

    @Test
    void aStreamOfSeveralPartitionsFedByTheirSharedReadersCarriesTheWholePositionInEachId() throws Exception {
        String topic = createTopic("sse-shared-multi", 3);
        String topicId = admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic)
                .topicId()
                .toString();
        try (SseClient c = open(topic, "?from=latest")) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shared.attachedStreams(topic) == 3);
            assertThat(shared.readers(topic)).isEqualTo(3);
            for (int p = 0; p < 3; p++) {
                HttpResponse<String> r = http.post(
                        "/v1/topics/" + topic + "/partitions/" + p + "/records",
                        "application/json",
                        "{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3}]}");
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }
            TreeMap<Integer, Long> expected = new TreeMap<>(Map.of(0, 0L, 1, 0L, 2, 0L));
            for (int i = 0; i < 9; i++) {
                Event e = c.next().orElseThrow();
                int partition = JsonPath.read(e.data(), "$.partition");
                long offset = ((Number) JsonPath.read(e.data(), "$.offset")).longValue();
                assertThat(offset).isEqualTo(expected.get(partition));
                expected.put(partition, offset + 1);
                assertThat(CursorCodec.decode(e.id().orElseThrow())).isEqualTo(new StreamCursor(topicId, expected));
            }
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shared.readers(topic) == 0);
    }

    @Test
    void streamsJoinAndLeaveMidwayAndAStreamBehindCatchesUpThenJoins() {
        String topic = createTopic("sse-join", 1);
        try (SseClient a = open(topic, "?from=latest")) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shared.attachedStreams(topic) == 1);
            produce(topic, 0, 10);
            List<Event> first = expectRecords(a, 0, 10);

            try (SseClient b = open(topic, "?from=latest")) {
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shared.attachedStreams(topic) == 2);
                produce(topic, 10, 10);
                expectRecords(a, 10, 10);
                expectRecords(b, 10, 10);

                // a stream resuming behind the end reads on its own, then joins the same reader
                String fifth = first.get(4).id().orElseThrow();
                try (SseClient c = open(topic, "", "Last-Event-ID: " + fifth)) {
                    expectRecords(c, 5, 15);
                    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shared.attachedStreams(topic) == 3);
                    assertThat(shared.readers(topic)).isEqualTo(1);

                    a.close(); // leaves mid-way
                    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shared.attachedStreams(topic) == 2);
                    produce(topic, 20, 10);
                    expectRecords(b, 20, 10);
                    expectRecords(c, 20, 10);
                }
            }
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shared.readers(topic) == 0);
    }

    @Test
    void aSlowStreamIsDetachedAndClosedWithoutStallingTheOthersAndResumesFromItsCursor() {
        String topic = createTopic("sse-shared-slow", 1);
        String big = "x".repeat(100_000);
        double before = closes(GatewayMetrics.SLOW_CLIENT);
        try (SseClient fast = open(topic, "?from=latest");
                SseClient slow = SseClient.open(httpPort, 4096, "/v1/topics/" + topic + "/events?from=latest")) {
            assertThat(slow.status()).isEqualTo(200);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shared.attachedStreams(topic) == 2);
            produce(topic, 0, 1);
            expectRecords(fast, 0, 1);
            String slowLast = expectRecords(slow, 0, 1).get(0).id().orElseThrow();

            // the slow client stops reading; the fast one gets everything meanwhile
            int total = 0;
            for (int batch = 0; batch < 24; batch++) {
                produce(topic, 1 + total, 5, big);
                total += 5;
            }
            expectRecords(fast, 1, total);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> closes(GatewayMetrics.SLOW_CLIENT) > before);

            // the closed client resumes from its last event id: exactly the rest
            slow.close();
            try (SseClient again = open(topic, "", "Last-Event-ID: " + slowLast)) {
                expectRecords(again, 1, total);
            }
        }
    }
}
