package io.tributary.gateway.consume;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.tributary.common.testing.BackgroundFailures;
import io.tributary.gateway.sse.CursorCodec;
import io.tributary.gateway.sse.StreamCursor;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import io.tributary.gateway.testing.SseClient;
import io.tributary.gateway.testing.SseClient.Event;
import io.tributary.gateway.testing.TestConsumers;
import io.tributary.gateway.testing.TestTopics;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/topics/{topic}/events?from=earliest&snapshot=true} against the real broker: the
 * table as id-less {@code record} events, {@code snapshot-end} with the vector as its id and data,
 * then the live records from exactly that vector, while a producer writes all along.
 */
class SnapshotStreamTest extends GatewayIntegrationTest {

    private static final int PARTITIONS = 3;
    private static final int KEYS = 60;

    @RegisterExtension
    final BackgroundFailures background = new BackgroundFailures();

    /** Writes {@code count} records to {@code partition}: random keys, one in five a tombstone. */
    private void produce(String topic, int partition, SplittableRandom random, int count) {
        StringBuilder body = new StringBuilder("{\"records\":[");
        for (int i = 0; i < count; i++) {
            int key = random.nextInt(KEYS);
            String value = random.nextInt(5) == 0 ? "null" : Integer.toString(random.nextInt(1_000_000));
            body.append(i == 0 ? "" : ",")
                    .append("{\"partition\":")
                    .append(partition)
                    .append(",\"key\":\"k")
                    .append(key)
                    .append("\",\"value\":")
                    .append(value)
                    .append('}');
        }
        body.append("]}");
        HttpResponse<String> r = http.post("/v1/topics/" + topic + "/records", "application/json", body.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    /** The table of {@code topic} read from the log with a consumer of the test's own: partition/key to value. */
    private static Map<String, String> tableFromTheLog(String topic, Map<Integer, Long> ends) {
        Map<String, String> table = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = TestConsumers.bytes(Map.of())) {
            List<TopicPartition> tps = new ArrayList<>();
            ends.keySet().forEach(p -> tps.add(new TopicPartition(topic, p)));
            c.assign(tps);
            c.seekToBeginning(tps);
            while (tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp.partition()))) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() >= ends.get(r.partition())) {
                        continue;
                    }
                    String key = r.partition() + "/" + new String(r.key(), StandardCharsets.UTF_8);
                    if (r.value() == null) {
                        table.remove(key);
                    } else {
                        table.put(key, new String(r.value(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return table;
    }

    private static String key(Event e) {
        return JsonPath.<Integer>read(e.data(), "$.partition") + "/" + JsonPath.<String>read(e.data(), "$.key");
    }

    private static long offset(Event e) {
        return ((Number) JsonPath.read(e.data(), "$.offset")).longValue();
    }

    private static Event next(SseClient client) {
        return client.next().orElseThrow(() -> new AssertionError("the stream ended"));
    }

    /**
     * A producer writes before, during and after the snapshot (and the test writes a batch of its own
     * after the first snapshot event, so some records surely come after the vector and before
     * {@code snapshot-end}): the snapshot is the table below the vector, the live events start at the
     * vector with no offset missing or repeated, and snapshot plus live events is the topic's table.
     */
    @Test
    void theSnapshotThenTheLiveRecordsFromExactlyItsVector() throws Exception {
        String topic = createTopic("sse-snapshot", PARTITIONS, Map.of("cleanup.policy", "compact"));
        SplittableRandom random = new SplittableRandom(7);
        for (int p = 0; p < PARTITIONS; p++) {
            produce(topic, p, random.split(), 150);
        }
        AtomicInteger batches = new AtomicInteger();
        BackgroundFailures.Task producer = background.start("producer", task -> {
            SplittableRandom r = new SplittableRandom(8);
            while (!task.stopRequested()) {
                produce(topic, batches.getAndIncrement() % PARTITIONS, r, 5);
            }
        });

        Map<String, String> state = new HashMap<>();
        TreeMap<Integer, Long> next = new TreeMap<>();
        try (SseClient client =
                SseClient.open(httpPort, "/v1/topics/" + topic + "/events?from=earliest&snapshot=true")) {
            assertThat(client.status()).isEqualTo(200);
            Event e = next(client);
            produce(topic, 0, random, 20); // after the vector: it was taken before the first event
            int snapshotRecords = 0;
            List<Event> snapshot = new ArrayList<>();
            while (!e.name().equals("snapshot-end")) {
                assertThat(e.name()).isEqualTo("record");
                assertThat(e.id()).as("a snapshot record has no id").isEmpty();
                snapshot.add(e);
                e = next(client);
            }
            String cursor = JsonPath.read(e.data(), "$.cursor");
            assertThat(e.id()).contains(cursor);
            StreamCursor vector = CursorCodec.decode(cursor);
            assertThat(vector.topicId()).isEqualTo(TestTopics.topicId(admin, topic));
            assertThat(vector.nextOffsets().keySet()).containsExactly(0, 1, 2);
            vector.nextOffsets()
                    .forEach((p, o) -> assertThat(o)
                            .as("the vector is the end when the stream opened")
                            .isGreaterThanOrEqualTo(150));
            Map<String, Integer> nextOffsets = JsonPath.read(e.data(), "$.next_offsets");
            vector.nextOffsets()
                    .forEach((p, o) ->
                            assertThat(nextOffsets.get(Integer.toString(p))).isEqualTo(o.intValue()));
            for (Event s : snapshot) {
                int p = JsonPath.read(s.data(), "$.partition");
                assertThat(offset(s)).isLessThan(vector.nextOffsets().get(p));
                assertThat(state.put(key(s), JsonPath.read(s.data(), "$.value").toString()))
                        .as("%s once in the snapshot", key(s))
                        .isNull();
                snapshotRecords++;
            }
            assertThat(JsonPath.<Integer>read(e.data(), "$.records")).isEqualTo(snapshotRecords);
            assertThat(state)
                    .as("the snapshot is the table below the vector")
                    .isEqualTo(tableFromTheLog(topic, vector.nextOffsets()));
            next.putAll(vector.nextOffsets());

            producer.stop(Duration.ofSeconds(30));
            background.check();
            Map<Integer, Long> ends = new TreeMap<>();
            try (KafkaConsumer<byte[], byte[]> c = TestConsumers.bytes(Map.of())) {
                List<TopicPartition> tps = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    tps.add(new TopicPartition(topic, p));
                }
                c.endOffsets(tps).forEach((tp, o) -> ends.put(tp.partition(), o));
            }
            assertThat(ends.get(0) - vector.nextOffsets().get(0))
                    .as("records written after the vector")
                    .isGreaterThanOrEqualTo(20);
            while (!next.equals(ends)) {
                Event live = next(client);
                assertThat(live.name()).isIn("record", "delete");
                assertThat(live.id()).isPresent();
                int p = JsonPath.read(live.data(), "$.partition");
                assertThat(offset(live))
                        .as("partition %d: the next offset, none missing or repeated", p)
                        .isEqualTo(next.get(p));
                next.put(p, offset(live) + 1);
                assertThat(CursorCodec.decode(live.id().get()).nextOffsets()).isEqualTo(next);
                if (live.name().equals("delete")) {
                    state.remove(key(live));
                } else {
                    state.put(key(live), JsonPath.read(live.data(), "$.value").toString());
                }
            }
            assertThat(state).isEqualTo(tableFromTheLog(topic, ends));
        }
        assertThat(batches.get()).as("the producer wrote while the stream ran").isGreaterThan(1);
    }

    /**
     * A partition past the table bounds (1,000 live keys; 80 scans of 16 keys in these tests) ends
     * the stream with an {@code error} event {@code table-too-large} after part of the snapshot.
     */
    @Test
    void aSnapshotPastTheTableBoundsEndsWithAnErrorEvent() {
        String topic = createTopic("sse-snapshot-large", 1, Map.of("cleanup.policy", "compact"));
        StringBuilder body = new StringBuilder("{\"records\":[");
        for (int i = 0; i < 1_000; i++) {
            body.append(i == 0 ? "" : ",").append("{\"key\":\"k").append(i).append("\",\"value\":1}");
        }
        HttpResponse<String> written = http.post(
                "/v1/topics/" + topic + "/records",
                "application/json",
                body.append("]}").toString());
        assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
        try (SseClient client =
                SseClient.open(httpPort, "/v1/topics/" + topic + "/events?from=earliest&snapshot=true")) {
            Event e = next(client);
            int records = 0;
            while (e.name().equals("record")) {
                assertThat(e.id()).isEmpty();
                records++;
                e = next(client);
            }
            assertThat(records).isLessThan(1_000);
            assertThat(e.name()).isEqualTo("error");
            assertThat(JsonPath.<String>read(e.data(), "$.type")).isEqualTo("urn:tributary:problem:table-too-large");
            assertThat(client.next()).as("the stream ends").isEmpty();
        }
    }

    @Test
    void aSnapshotNeedsFromEarliestAndTrueOrFalse() {
        String topic = createTopic("sse-snapshot-bad", 1, Map.of("cleanup.policy", "compact"));
        String path = "/v1/topics/" + topic + "/events?";
        for (String query : List.of("snapshot=true", "snapshot=true&from=latest", "snapshot=yes&from=earliest")) {
            HttpResponse<String> r = http.get(path + query);
            assertThat(r.statusCode()).as(query).isEqualTo(400);
            assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:invalid-parameter");
            assertThat(JsonPath.<String>read(r.body(), "$.parameter")).isEqualTo("snapshot");
        }
    }

    /** Resuming from an id (here snapshot-end's) skips the snapshot: the client had it. */
    @Test
    void resumingFromAnIdSkipsTheSnapshot() {
        String topic = createTopic("sse-snapshot-resume", 1, Map.of("cleanup.policy", "compact"));
        produce(topic, 0, new SplittableRandom(1), 10);
        String path = "/v1/topics/" + topic + "/events?from=earliest&snapshot=true";
        String endId;
        try (SseClient client = SseClient.open(httpPort, path)) {
            Event e = next(client);
            while (!e.name().equals("snapshot-end")) {
                e = next(client);
            }
            endId = e.id().orElseThrow();
        }
        produce(topic, 0, new SplittableRandom(2), 1);
        try (SseClient client = SseClient.open(httpPort, path, "Last-Event-ID: " + endId)) {
            Event e = next(client);
            assertThat(e.id()).isPresent();
            assertThat(offset(e)).isEqualTo(10);
        }
    }
}
