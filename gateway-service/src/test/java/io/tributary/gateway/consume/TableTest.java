package io.tributary.gateway.consume;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.tributary.gateway.sse.CursorCodec;
import io.tributary.gateway.sse.StreamCursor;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import io.tributary.gateway.testing.SseClient;
import io.tributary.gateway.testing.TestTopics;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * {@code GET /v1/topics/{topic}/table} against the real broker, with a digest map of 16 keys
 * ({@code GatewayIntegrationTest}): tables many times larger still come whole, a partition past
 * {@code max-scans} is a problem, and the end line's cursor continues exactly after the table.
 */
class TableTest extends GatewayIntegrationTest {

    @Autowired
    TableProperties table;

    /** Writes {@code "key":value} pairs (a null value is a tombstone) to {@code partition}, in order. */
    private void produce(String topic, int partition, List<Map.Entry<String, String>> records) {
        StringBuilder body = new StringBuilder("{\"records\":[");
        for (int i = 0; i < records.size(); i++) {
            Map.Entry<String, String> r = records.get(i);
            body.append(i == 0 ? "" : ",")
                    .append("{\"partition\":")
                    .append(partition)
                    .append(",\"key\":\"")
                    .append(r.getKey())
                    .append("\",\"value\":")
                    .append(r.getValue())
                    .append('}');
        }
        body.append("]}");
        HttpResponse<String> r = http.post("/v1/topics/" + topic + "/records", "application/json", body.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private static List<Map.Entry<String, String>> keys(String prefix, int from, int to, String value) {
        List<Map.Entry<String, String>> records = new java.util.ArrayList<>();
        for (int i = from; i < to; i++) {
            records.add(new java.util.AbstractMap.SimpleEntry<>(
                    prefix + i, value == null ? "\"" + prefix + i + "\"" : value));
        }
        return records;
    }

    private static List<String> lines(HttpResponse<String> r) {
        assertThat(r.body()).endsWith("\n");
        return List.of(r.body().split("\n"));
    }

    @Test
    void theTableIsTheLatestValueOfEveryLiveKeyThenTheCursor() throws Exception {
        assertThat(table.maxKeys()).isEqualTo(16);
        String topic = createTopic("table", 3, Map.of("cleanup.policy", "compact"));
        Map<String, String> expected = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            produce(topic, p, keys("p" + p + "-k", 0, 120, null));
            produce(topic, p, keys("p" + p + "-k", 0, 40, "\"new\""));
            produce(topic, p, keys("p" + p + "-k", 40, 55, "null"));
            for (int i = 0; i < 120; i++) {
                if (i >= 40 && i < 55) {
                    continue;
                }
                expected.put("p" + p + "-k" + i, i < 40 ? "new" : "p" + p + "-k" + i);
            }
        }

        HttpResponse<String> r = http.get("/v1/topics/" + topic + "/table");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/x-ndjson"));
        List<String> lines = lines(r);
        Map<String, String> got = new HashMap<>();
        for (String line : lines.subList(0, lines.size() - 1)) {
            Map<String, Object> record = JsonPath.read(line, "$");
            assertThat(record).containsKeys("topic", "partition", "offset", "timestamp", "key", "value", "headers");
            assertThat(record).doesNotContainKey("tombstone");
            String key = (String) record.get("key");
            assertThat(key).startsWith("p" + record.get("partition") + "-");
            assertThat(got.put(key, record.get("value").toString()))
                    .as("key %s once", key)
                    .isNull();
        }
        assertThat(got).isEqualTo(expected);

        String end = lines.getLast();
        String cursor = JsonPath.read(end, "$.cursor");
        assertThat(r.headers().firstValue(TableController.CURSOR_HEADER)).contains(cursor);
        assertThat(JsonPath.<Integer>read(end, "$.records")).isEqualTo(expected.size());
        TreeMap<Integer, Long> vector = new TreeMap<>(Map.of(0, 175L, 1, 175L, 2, 175L));
        assertThat(CursorCodec.decode(cursor)).isEqualTo(new StreamCursor(TestTopics.topicId(admin, topic), vector));
        assertThat(JsonPath.<Map<String, Integer>>read(end, "$.next_offsets"))
                .isEqualTo(Map.of("0", 175, "1", 175, "2", 175));

        // the cursor continues exactly after the table
        produce(topic, 1, keys("after-", 0, 1, "7"));
        try (SseClient events = SseClient.open(httpPort, "/v1/topics/" + topic + "/events?cursor=" + cursor)) {
            SseClient.Event first = events.next().orElseThrow();
            assertThat(JsonPath.<Integer>read(first.data(), "$.offset")).isEqualTo(175);
            assertThat(JsonPath.<String>read(first.data(), "$.key")).isEqualTo("after-0");
        }
    }

    @Test
    void onlyThePartitionsAskedForAndAnEmptyTableIsOnlyItsEnd() {
        String topic = createTopic("table-partitions", 2, Map.of("cleanup.policy", "compact"));
        produce(topic, 0, keys("a", 0, 3, null));
        produce(topic, 1, keys("b", 0, 2, null));
        produce(topic, 1, keys("b", 0, 2, "null"));

        List<String> zero = lines(http.get("/v1/topics/" + topic + "/table?partitions=0"));
        assertThat(zero).hasSize(4);
        assertThat(JsonPath.<Map<String, Integer>>read(zero.getLast(), "$.next_offsets"))
                .isEqualTo(Map.of("0", 3));

        List<String> one = lines(http.get("/v1/topics/" + topic + "/table?partitions=1"));
        assertThat(one).hasSize(1);
        assertThat(JsonPath.<Integer>read(one.getFirst(), "$.records")).isZero();
        assertThat(JsonPath.<Map<String, Integer>>read(one.getFirst(), "$.next_offsets"))
                .isEqualTo(Map.of("1", 4));
    }

    @Test
    void badTopicsAndPartitionsAreProblems() {
        String topic = createTopic("table-bad", 1);
        assertProblem(http.get("/v1/topics/no-such-topic-table/table"), 404, "topic-not-found");
        assertProblem(http.get("/v1/topics/" + topic + "/table?partitions=3"), 404, "partition-not-found");
        HttpResponse<String> bad = http.get("/v1/topics/" + topic + "/table?partitions=x");
        assertProblem(bad, 400, "invalid-parameter");
        assertThat(JsonPath.<String>read(bad.body(), "$.parameter")).isEqualTo("partitions");
    }

    /**
     * 1,000 live keys need more than the 80 scans of 16 keys this gateway allows. The answer is
     * already 200 with the cursor (sent before reading): after partition 0's table and part of
     * partition 1's, the last line is the problem, and there is no end line.
     */
    @Test
    void aPartitionPastMaxScansEndsTheTableWithATableTooLargeLine() {
        String topic = createTopic("table-large", 2, Map.of("cleanup.policy", "compact"));
        produce(topic, 0, keys("small", 0, 3, null));
        produce(topic, 1, keys("k", 0, 1_000, null));

        HttpResponse<String> r = http.get("/v1/topics/" + topic + "/table");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue(TableController.CURSOR_HEADER)).isPresent();
        List<String> lines = lines(r);
        for (int i = 0; i < lines.size() - 1; i++) {
            assertThat(JsonPath.<Integer>read(lines.get(i), "$.partition"))
                    .as("line %d", i)
                    .isEqualTo(i < 3 ? 0 : 1);
        }
        assertThat(lines.size()).as("part of partition 1").isBetween(4, 1_003);
        assertThat(JsonPath.<String>read(lines.getLast(), "$.problem.type"))
                .isEqualTo("urn:tributary:problem:table-too-large");
        assertThat(JsonPath.<String>read(lines.getLast(), "$.problem.detail"))
                .contains("Partition 1", "max-scans", "max-keys");
        assertThat(r.body()).doesNotContain("\"cursor\"");
    }

    private static void assertProblem(HttpResponse<String> r, int status, String type) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:" + type);
    }
}
