package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.gateway.testing.SseClient.Event;
import io.tributary.systemtests.kafka.GatewayTranscript.Answer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Differential: the gateway's HTTP API in front of every enabled target (a real Apache Kafka
 * broker with a gateway process of its own, and a Tributary cluster with its own gateway). Each
 * scenario runs the same requests against each target's gateway, asserts the expected behaviour
 * against each, and writes down every answer (a {@link GatewayTranscript}); the transcripts of all
 * targets must then be equal line for line, after normalising what legitimately differs (topic
 * names and ids, broker ids, timestamps the cluster chose). Problem bodies are compared whole,
 * {@code detail} included: an error the gateway maps from the broker must read the same.
 */
@OnSharedTargets
class GatewayConformanceIT {

    private static final String JSON = "application/json";
    private static final String NDJSON = "application/x-ndjson";

    /** One scenario against one target's gateway; it asserts what it expects and writes down the rest. */
    @FunctionalInterface
    interface Scenario {
        void run(GatewayTranscript gateway) throws Exception;
    }

    @Test
    void topicsAreCreatedDescribedListedAndDeleted() {
        assertTargetsAgree(g -> {
            String topic = g.topic("admin");
            Answer created = createTopic(
                    g,
                    "{\"name\":\"" + topic
                            + "\",\"partitions\":3,\"replication_factor\":1,\"configs\":{\"retention.ms\":\"86400000\"}}");
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            assertThat(created.headers()).containsEntry("location", "/v1/topics/" + topic);
            assertThat(createTopic(g, "{\"name\":\"" + topic + "\"}").problem()).isEqualTo("topic-exists");

            Answer described = g.get("/v1/topics/" + topic);
            assertThat(described.status()).isEqualTo(200);
            assertThat(described.json().path("partitions").size()).isEqualTo(3);

            // other scenarios' topics are in the list too: only whether this one is is written down
            List<String> listed = new ArrayList<>();
            g.quiet().get("/v1/topics").json().path("topics").forEach(n -> listed.add(n.asString()));
            g.note("listed: " + listed.contains(topic));
            assertThat(listed).contains(topic);

            assertThat(g.delete("/v1/topics/" + topic).status()).isEqualTo(204);
            assertThat(g.get("/v1/topics/" + topic).problem()).isEqualTo("topic-not-found");
            assertThat(g.delete("/v1/topics/" + topic).problem()).isEqualTo("topic-not-found");
        });
    }

    @Test
    void topicRequestsThatCannotBeMetAreProblemsNamingWhy() {
        assertTargetsAgree(g -> {
            String topic = g.topic("bad-admin");
            Map<String, String> expected = new LinkedHashMap<>();
            expected.put("{\"name\":\"no spaces allowed\"}", "invalid-topic-name");
            expected.put("{\"name\":\"" + "x".repeat(250) + "\"}", "invalid-topic-name");
            expected.put("{\"name\":\"..\"}", "invalid-topic-name");
            expected.put("{\"partitions\":1}", "invalid-topic-name");
            expected.put("{\"name\":\"" + topic + "\",\"partitions\":0}", "invalid-topic-request");
            expected.put("{\"name\":\"" + topic + "\",\"partitions\":-3}", "invalid-topic-request");
            expected.put("{\"name\":", "malformed-json");
            for (var request : expected.entrySet()) {
                Answer answer = createTopic(g, request.getKey());
                assertThat(answer.problem())
                        .as(request.getKey() + " -> " + answer.body())
                        .isEqualTo(request.getValue());
            }
            // refused by the cluster: the detail is the cluster's own message (Kafka's and
            // Tributary's wording differ, and so does the broker count), so it is checked to name
            // what is wrong, and not to leak how the cluster works inside, rather than compared
            Map<String, String> refused = new LinkedHashMap<>();
            refused.put("{\"name\":\"" + topic + "\",\"replication_factor\":100}", "100");
            refused.put("{\"name\":\"" + topic + "\",\"configs\":{\"no.such.config\":\"1\"}}", "no.such.config");
            refused.put("{\"name\":\"" + topic + "\",\"configs\":{\"retention.ms\":\"soon\"}}", "retention.ms");
            for (var request : refused.entrySet()) {
                Answer answer = g.withClusterDetail().post("/v1/topics", JSON, request.getKey());
                assertThat(answer.problem())
                        .as(request.getKey() + " -> " + answer.body())
                        .isEqualTo("invalid-topic-request");
                assertThat(answer.json().path("detail").asString())
                        .as("the detail names what is wrong")
                        .contains(request.getValue())
                        .doesNotContain("answered", "127.0.0.1", "POST ");
            }
            assertThat(g.post("/v1/topics", "text/plain", "name=" + topic).problem())
                    .isEqualTo("unsupported-media-type");
            assertThat(g.get("/v1/topics/bad:name").problem()).isEqualTo("invalid-topic-name");
            assertThat(g.get("/v1/topics/" + topic).problem())
                    .as("nothing was created")
                    .isEqualTo("topic-not-found");
        });
    }

    @Test
    void everyShapeOfProduceIsStoredAndFetchedBackUnchanged() {
        assertTargetsAgree(g -> {
            String topic = g.topic("shapes");
            createTopic(g, topic, 2);
            String records = "/v1/topics/" + topic + "/records";

            Answer single = g.post(
                    "/v1/topics/" + topic + "/partitions/0/records",
                    JSON,
                    "{\"key\":\"k1\",\"value\":{\"total\":12.5,\"items\":[1,2]},"
                            + "\"headers\":{\"source\":\"test\",\"trace\":\"t-1\"},\"timestamp\":1700000000000}");
            assertThat(single.status()).as(single.body()).isEqualTo(200);
            assertThat(single.json().at("/results/0/offset").asLong()).isZero();

            Answer batch = g.post(
                    records,
                    JSON,
                    "{\"records\":[{\"key_b64\":\"AAEC\",\"value_b64\":\"3q2+7w==\",\"partition\":1,"
                            + "\"timestamp\":\"2024-05-01T10:00:00Z\"},"
                            + "{\"value\":\"text\",\"partition\":1,\"timestamp\":1714557600001},"
                            + "{\"key\":\"k2\",\"value\":null,\"partition\":0,\"timestamp\":1714557600002}]}");
            assertThat(batch.status()).as(batch.body()).isEqualTo(200);
            assertThat(batch.json().path("results").size()).isEqualTo(3);

            Answer ndjson = g.post(
                    records,
                    NDJSON,
                    "{\"key\":\"n1\",\"value\":1,\"partition\":0,\"timestamp\":1714557600003}\n"
                            + "{not json\n"
                            + "{\"key\":\"n3\",\"value\":[3],\"partition\":1,\"timestamp\":1714557600004}\n");
            assertThat(ndjson.status()).as(ndjson.body()).isEqualTo(200);
            assertThat(ndjson.body().strip().split("\n")).hasSize(3);

            Answer raw = g.post(
                    "/v1/topics/" + topic + "/partitions/1/records",
                    "text/plain",
                    "a raw webhook body, not JSON",
                    "Record-Key",
                    "hook-1");
            assertThat(raw.status()).as(raw.body()).isEqualTo(200);
            Answer binary =
                    g.post("/v1/topics/" + topic + "/partitions/0/records", "application/octet-stream", new byte[] {
                        (byte) 0xff, 0, (byte) 0xfe, 10
                    });
            assertThat(binary.status()).as(binary.body()).isEqualTo(200);

            JsonNode partition0 = fetchAll(g, topic, 0, 4);
            JsonNode partition1 = fetchAll(g, topic, 1, 4);
            JsonNode first = partition0.at("/records/0");
            assertThat(first.path("key").asString()).isEqualTo("k1");
            assertThat(first.at("/value/total").asDouble()).isEqualTo(12.5);
            assertThat(first.at("/headers/trace").asString()).isEqualTo("t-1");
            assertThat(partition1.at("/records/0/value_b64").asString()).isEqualTo("3q2+7w==");
            assertThat(partition1.at("/records/3/value_b64").asString())
                    .isEqualTo(Base64.getEncoder()
                            .encodeToString("a raw webhook body, not JSON".getBytes(StandardCharsets.UTF_8)));
            assertThat(partition0.at("/records/3/value_b64").asString()).isEqualTo("/wD+Cg==");
        });
    }

    /**
     * Tombstones in a compacted topic: {@code "value": null} is written as Kafka's null value and read
     * back as {@code "tombstone": true} by a fetch and as an {@code event: delete} (no value) by an SSE
     * stream; a record without a key is refused (the broker's {@code INVALID_RECORD}) as 400 {@code
     * invalid-record} in the gateway's own words, alone and in a request whose record of another
     * partition is written (207).
     */
    @Test
    void tombstonesAreWrittenAsNullValuesAndReadAsDeletesAndRecordsWithoutAKeyAreRefused() {
        assertTargetsAgree(g -> {
            String topic = g.topic("tombstones");
            createTopic(g, topic, 2, Map.of("cleanup.policy", "compact"));
            String records = "/v1/topics/" + topic + "/records";
            Answer written = g.post(
                    records,
                    JSON,
                    "{\"records\":[{\"key\":\"k\",\"value\":1,\"partition\":0,\"timestamp\":1000},"
                            + "{\"key\":\"k\",\"value\":null,\"headers\":{\"why\":\"gone\"},\"partition\":0,"
                            + "\"timestamp\":2000},{\"key\":\"e\",\"value_b64\":\"\",\"partition\":0,\"timestamp\":3000}]}");
            assertThat(written.status()).as(written.body()).isEqualTo(200);

            for (String keyless : List.of(
                    "{\"value\":null,\"partition\":0,\"timestamp\":4000}",
                    "{\"value\":1,\"partition\":0,\"timestamp\":4000}")) {
                Answer refused = g.post(records, JSON, keyless);
                assertThat(refused.problem())
                        .as(keyless + " -> " + refused.body())
                        .isEqualTo("invalid-record");
                assertThat(refused.json().path("detail").asString()).contains("no key", "cleanup.policy=compact");
            }
            Answer batch = g.post(
                    records,
                    JSON,
                    "{\"records\":[{\"value\":2,\"partition\":1,\"timestamp\":5000},"
                            + "{\"key\":\"b\",\"value\":3,\"partition\":0,\"timestamp\":5000}]}");
            assertThat(batch.status()).as(batch.body()).isEqualTo(207);
            assertThat(batch.json().at("/results/0/problem/type").asString())
                    .isEqualTo("urn:tributary:problem:invalid-record");
            assertThat(batch.json().at("/results/0/problem/detail").asString()).contains("no key");
            assertThat(batch.json().at("/results/1/offset").asLong()).isEqualTo(3);

            JsonNode fetched = fetchAll(g, topic, 0, 4);
            assertThat(fetched.at("/records/1/value").isNull()).isTrue();
            assertThat(fetched.at("/records/1/tombstone").asBoolean()).isTrue();
            assertThat(fetched.at("/records/2/value_b64").asString()).isEmpty();
            assertThat(fetched.at("/records/2").has("tombstone")).isFalse();

            try (var stream = g.stream("/v1/topics/" + topic + "/events?from=earliest&partitions=0")) {
                assertThat(stream.status()).isEqualTo(200);
                List<Event> events = stream.take(4);
                assertThat(events).extracting(Event::name).containsExactly("record", "delete", "record", "record");
                JsonNode deleted = json(events.get(1));
                assertThat(deleted.path("key").asString()).isEqualTo("k");
                assertThat(deleted.path("offset").asLong()).isEqualTo(1);
                assertThat(deleted.at("/headers/why").asString()).isEqualTo("gone");
                assertThat(deleted.has("value") || deleted.has("value_b64") || deleted.has("tombstone"))
                        .isFalse();
                assertThat(events.get(1).id()).isPresent();
            }
        });
    }

    /**
     * A compacted topic through the gateway: a record without a key is refused by the gateway
     * itself, so the keyed records of its request and partition are written; the table is the latest
     * record of each live key with the offset vector at the end; a snapshot stream sends that table
     * without ids, {@code snapshot-end} with the vector, then exactly the records after it.
     */
    @Test
    void compactedTopicsAreReadAsTablesAndSnapshotsAndKeylessRecordsAreRefusedByTheGateway() {
        assertTargetsAgree(g -> {
            String topic = g.topic("table");
            createTopic(g, topic, 2, Map.of("cleanup.policy", "compact"));
            g.get("/v1/topics/" + topic); // its topic id, for the cursors
            String records = "/v1/topics/" + topic + "/records";
            Answer written = g.post(
                    records,
                    JSON,
                    "{\"records\":[{\"key\":\"a\",\"value\":1,\"partition\":0,\"timestamp\":1000},"
                            + "{\"value\":9,\"partition\":0,\"timestamp\":1000},"
                            + "{\"key\":\"b\",\"value\":2,\"partition\":0,\"timestamp\":1000},"
                            + "{\"key\":\"a\",\"value\":3,\"partition\":0,\"timestamp\":2000},"
                            + "{\"key\":\"b\",\"value\":null,\"partition\":0,\"timestamp\":2000},"
                            + "{\"key\":\"c\",\"value\":4,\"partition\":1,\"timestamp\":3000}]}");
            assertThat(written.status()).as(written.body()).isEqualTo(207);
            assertThat(written.json().at("/results/1/problem/type").asString())
                    .isEqualTo("urn:tributary:problem:invalid-record");
            assertThat(written.json().at("/results/3/offset").asLong()).isEqualTo(2);
            assertThat(written.json().at("/results/4/offset").asLong()).isEqualTo(3);

            Answer table = g.get("/v1/topics/" + topic + "/table");
            assertThat(table.status()).isEqualTo(200);
            assertThat(table.mediaType()).isEqualTo(NDJSON);
            List<String> lines = List.of(table.body().split("\n"));
            assertThat(lines).hasSize(3);
            JsonNode a = GatewayTranscript.JSON.readTree(lines.get(0));
            assertThat(a.path("key").asString()).isEqualTo("a");
            assertThat(a.path("value").asInt()).isEqualTo(3);
            assertThat(GatewayTranscript.JSON.readTree(lines.get(1)).path("key").asString())
                    .isEqualTo("c");
            JsonNode end = GatewayTranscript.JSON.readTree(lines.get(2));
            assertThat(end.at("/next_offsets/0").asLong()).isEqualTo(4);
            assertThat(end.at("/next_offsets/1").asLong()).isEqualTo(1);
            assertThat(end.path("records").asInt()).isEqualTo(2);

            try (var stream = g.stream("/v1/topics/" + topic + "/events?from=earliest&snapshot=true")) {
                assertThat(stream.status()).isEqualTo(200);
                List<Event> snapshot = stream.take(3);
                assertThat(snapshot).extracting(Event::name).containsExactly("record", "record", "snapshot-end");
                assertThat(snapshot.get(0).id()).isEmpty();
                assertThat(snapshot.get(2).id()).contains(end.path("cursor").asString());
                g.post(records, JSON, "{\"key\":\"c\",\"value\":5,\"partition\":1,\"timestamp\":4000}");
                Event live = stream.take(1).getFirst();
                assertThat(json(live).path("offset").asLong()).isEqualTo(1);
                assertThat(live.id()).isPresent();
            }
        });
    }

    @Test
    void keysLandOnThePartitionKafkasDefaultPartitionerPicks() {
        assertTargetsAgree(g -> {
            String topic = g.topic("keys");
            int partitions = 6;
            createTopic(g, topic, partitions);
            StringBuilder body = new StringBuilder("{\"records\":[");
            for (int i = 0; i < 60; i++) {
                body.append(i == 0 ? "" : ",")
                        .append("{\"key\":\"customer-")
                        .append(i)
                        .append("\",\"value\":")
                        .append(i)
                        .append(",\"timestamp\":")
                        .append(1_700_000_000_000L + i)
                        .append('}');
            }
            Answer answer = g.post(
                    "/v1/topics/" + topic + "/records", JSON, body.append("]}").toString());
            assertThat(answer.status()).as(answer.body()).isEqualTo(200);
            JsonNode results = answer.json().path("results");
            for (int i = 0; i < 60; i++) {
                byte[] key = ("customer-" + i).getBytes(StandardCharsets.UTF_8);
                assertThat(results.get(i).path("partition").asInt())
                        .as("partition of key customer-%d", i)
                        .isEqualTo(Utils.toPositive(Utils.murmur2(key)) % partitions);
            }
        });
    }

    @Test
    void everyAcksLevelWritesAndNoneReportsNoOffset() {
        assertTargetsAgree(g -> {
            String topic = g.topic("acks");
            createTopic(g, topic, 1);
            String records = "/v1/topics/" + topic + "/records";
            for (String acks : List.of("all", "leader", "none")) {
                Answer answer = g.post(records + "?acks=" + acks, JSON, "{\"value\":\"" + acks + "\",\"timestamp\":1}");
                assertThat(answer.status()).as(answer.body()).isEqualTo(200);
                assertThat(answer.json().at("/results/0").has("offset")).isEqualTo(!acks.equals("none"));
            }
            Answer bad = g.post(records + "?acks=most", JSON, "{\"value\":1}");
            assertThat(bad.problem()).isEqualTo("invalid-parameter");
            assertThat(bad.json().path("parameter").asString()).isEqualTo("acks");
            Answer fetched = fetch(g, topic, 0, 0, "&max_wait_ms=5000");
            assertThat(fetched.json().path("records").size()).isEqualTo(3);
        });
    }

    @Test
    void recordsTheClusterRefusesAre207WithAProblemEachWhileTheOthersAreWritten() {
        assertTargetsAgree(g -> {
            // the topic takes batches of at most 1,000 bytes; the good and the bad record are in
            // different partitions, so in different batches, and the cluster answers each on its own
            String topic = g.topic("partial");
            createTopic(g, topic, 2, Map.of("max.message.bytes", "1000"));
            Answer answer = g.post(
                    "/v1/topics/" + topic + "/records",
                    JSON,
                    "{\"records\":[{\"value\":1,\"partition\":0,\"timestamp\":1}," + "{\"value\":\"" + "x".repeat(5000)
                            + "\",\"partition\":1,\"timestamp\":2}]}");
            assertThat(answer.status()).as(answer.body()).isEqualTo(207);
            assertThat(answer.json().at("/results/0/offset").asLong()).isZero();
            assertThat(answer.json().at("/results/1/problem/type").asString())
                    .isEqualTo("urn:tributary:problem:record-too-large");
            assertThat(fetch(g, topic, 1, 0, "&max_wait_ms=200")
                            .json()
                            .path("records")
                            .size())
                    .isZero();
        });
    }

    @Test
    void minInsyncReplicasAboveTheReplicationFactorIsCappedSoAcksAllWrites() {
        assertTargetsAgree(g -> {
            // one replica and min.insync.replicas=2: Kafka 4 caps the minimum at the replica count
            // (its Partition.effectiveMinIsr), so acks=all writes; a cluster that does not would
            // refuse every acks=all write (NOT_ENOUGH_REPLICAS, then 503 at the cluster-timeout)
            String topic = g.topic("isr");
            createTopic(g, topic, 1, Map.of("min.insync.replicas", "2"));
            String records = "/v1/topics/" + topic + "/records";
            Answer all = g.post(records + "?acks=all", JSON, "{\"value\":1,\"timestamp\":1}");
            assertThat(all.status()).as(all.body()).isEqualTo(200);
            assertThat(all.json().at("/results/0/offset").asLong()).isZero();
            Answer leader = g.post(records + "?acks=leader", JSON, "{\"value\":2,\"timestamp\":2}");
            assertThat(leader.status()).as(leader.body()).isEqualTo(200);
        });
    }

    @Test
    void longPollFetchHonoursOffsetsLimitsAndTheLogBounds() {
        assertTargetsAgree(g -> {
            String topic = g.topic("fetch");
            createTopic(g, topic, 1);
            StringBuilder body = new StringBuilder("{\"records\":[");
            for (int i = 0; i < 10; i++) {
                body.append(i == 0 ? "" : ",")
                        .append("{\"value\":")
                        .append(i)
                        .append(",\"timestamp\":")
                        .append(1_000L * (i + 1))
                        .append('}');
            }
            assertThat(g.post(
                                    "/v1/topics/" + topic + "/records",
                                    JSON,
                                    body.append("]}").toString())
                            .status())
                    .isEqualTo(200);

            JsonNode firstFour = fetch(g, topic, 0, 0, "&max_records=4").json();
            assertThat(firstFour.path("records").size()).isEqualTo(4);
            assertThat(firstFour.path("next_offset").asLong()).isEqualTo(4);
            JsonNode oneByBytes = fetch(g, topic, 0, 4, "&max_bytes=1").json();
            assertThat(oneByBytes.path("records").size())
                    .as("at least one record, whatever max_bytes")
                    .isOne();
            JsonNode rest = fetch(g, topic, 0, 5, "").json();
            assertThat(rest.path("records").size()).isEqualTo(5);
            assertThat(rest.path("next_offset").asLong()).isEqualTo(10);

            JsonNode atEnd = fetch(g, topic, 0, 10, "&max_wait_ms=300").json();
            assertThat(atEnd.path("records").size()).isZero();
            assertThat(atEnd.path("next_offset").asLong()).isEqualTo(10);

            // a fetch at the end waits for the next record (started first, so it is waiting when it comes)
            var waiting = CompletableFuture.supplyAsync(() -> fetchQuietly(g, topic, 10));
            g.post("/v1/topics/" + topic + "/records", JSON, "{\"value\":\"late\",\"timestamp\":11000}");
            Answer late = waiting.get(90, TimeUnit.SECONDS);
            g.note("waiting fetch -> " + late.status() + " " + g.normaliseBody(late.body()));
            assertThat(late.json().at("/records/0/value").asString()).isEqualTo("late");

            assertThat(fetch(g, topic, 0, 12, "").problem()).isEqualTo("offset-beyond-log-end");
            for (String query : List.of(
                    "offset=-1",
                    "offset=abc",
                    "offset=0&max_records=0",
                    "offset=0&max_records=x",
                    "offset=0&max_bytes=-5",
                    "offset=0&max_wait_ms=-1",
                    "offset=0&max_wait_ms=99999999")) {
                Answer answer = g.get("/v1/topics/" + topic + "/partitions/0/records?" + query);
                assertThat(answer.problem()).as(query).isEqualTo("invalid-parameter");
            }
            assertThat(g.get("/v1/topics/" + topic + "/partitions/0/records").problem())
                    .isEqualTo("invalid-parameter");
            assertThat(fetch(g, topic, 7, 0, "").problem()).isEqualTo("partition-not-found");
            assertThat(g.get("/v1/topics/" + topic + "/partitions/x/records?offset=0")
                            .problem())
                    .isEqualTo("invalid-parameter");
            assertThat(fetch(g, g.topic("never"), 0, 0, "").problem()).isEqualTo("topic-not-found");

            deleteRecordsBefore(g.target(), topic, 0, 5);
            Answer gone = fetch(g, topic, 0, 2, "");
            assertThat(gone.status()).isEqualTo(410);
            assertThat(gone.json().path("log_start_offset").asLong()).isEqualTo(5);
            assertThat(fetch(g, topic, 0, 5, "&max_records=1")
                            .json()
                            .at("/records/0/offset")
                            .asLong())
                    .isEqualTo(5);
            assertThat(g.get("/v1/topics/" + topic)
                            .json()
                            .at("/partitions/0/log_start_offset")
                            .asLong())
                    .isEqualTo(5);
        });
    }

    @Test
    void offsetsAreAnsweredByTimestamp() {
        assertTargetsAgree(g -> {
            String topic = g.topic("offsets");
            createTopic(g, topic, 2);
            g.post(
                    "/v1/topics/" + topic + "/partitions/0/records",
                    JSON,
                    "{\"records\":[{\"value\":1,\"timestamp\":1000},{\"value\":2,\"timestamp\":2000},"
                            + "{\"value\":3,\"timestamp\":3000}]}");
            String offsets = "/v1/topics/" + topic + "/offsets";
            assertThat(g.get(offsets + "?timestamp=earliest")
                            .json()
                            .at("/partitions/0/offset")
                            .asLong())
                    .isZero();
            assertThat(g.get(offsets).json().at("/partitions/0/offset").asLong())
                    .isEqualTo(3);
            JsonNode byTime =
                    g.get(offsets + "?timestamp=1970-01-01T00:00:01.500Z").json();
            assertThat(byTime.at("/partitions/0/offset").asLong()).isEqualTo(1);
            assertThat(byTime.at("/partitions/0/timestamp").asString()).isEqualTo("1970-01-01T00:00:02Z");
            assertThat(g.get(offsets + "?timestamp=2000")
                            .json()
                            .at("/partitions/0/offset")
                            .asLong())
                    .isEqualTo(1);
            assertThat(g.get(offsets + "?timestamp=9000")
                            .json()
                            .at("/partitions/0/offset")
                            .isNull())
                    .isTrue();
            assertThat(g.get(offsets + "?timestamp=tomorrow").problem()).isEqualTo("invalid-parameter");
            assertThat(g.get("/v1/topics/" + g.topic("never") + "/offsets").problem())
                    .isEqualTo("topic-not-found");
        });
    }

    @Test
    void eventStreamsStartWhereAskedAndResumeExactlyFromTheirIds() {
        assertTargetsAgree(g -> {
            String topic = g.topic("sse");
            createTopic(g, topic, 2);
            for (int p = 0; p < 2; p++) {
                StringBuilder body = new StringBuilder("{\"records\":[");
                for (int i = 0; i < 4; i++) {
                    body.append(i == 0 ? "" : ",")
                            .append("{\"key\":\"p")
                            .append(p)
                            .append("-")
                            .append(i)
                            .append("\",\"value\":")
                            .append(10 * p + i)
                            .append(",\"timestamp\":")
                            .append(1_000L * (i + 1))
                            .append('}');
                }
                g.post(
                        "/v1/topics/" + topic + "/partitions/" + p + "/records",
                        JSON,
                        body.append("]}").toString());
            }
            String events = "/v1/topics/" + topic + "/events";

            // one partition: the order and every id are the same everywhere
            List<Event> partition0;
            try (var stream = g.stream(events + "?from=earliest&partitions=0")) {
                assertThat(stream.status()).isEqualTo(200);
                partition0 = stream.take(4);
                assertThat(stream.retry()).isPresent();
            }
            assertThat(partition0).extracting(Event::name).containsOnly("record");
            assertThat(partition0)
                    .extracting(e -> json(e).path("offset").asLong())
                    .containsExactly(0L, 1L, 2L, 3L);

            // both partitions: their interleaving (and so the ids on the way) is the gateway's to
            // choose; the records, each partition's order and the last id are not
            try (var stream = g.quiet().stream(events + "?from=earliest")) {
                List<Event> both = stream.take(8);
                assertThat(both)
                        .extracting(e -> json(e).path("value").asInt())
                        .containsExactlyInAnyOrder(0, 1, 2, 3, 10, 11, 12, 13);
                for (int p = 0; p < 2; p++) {
                    int partition = p;
                    List<Long> offsets = both.stream()
                            .filter(e -> json(e).path("partition").asInt() == partition)
                            .map(e -> json(e).path("offset").asLong())
                            .toList();
                    assertThat(offsets).as("partition %d in order", p).containsExactly(0L, 1L, 2L, 3L);
                }
                both.stream()
                        .map(Event::data)
                        .sorted()
                        .forEach(data -> g.note("both partitions: " + g.normaliseBody(data)));
                g.note("last id of both partitions: "
                        + g.normalise(both.getLast().id().orElseThrow()));
            }

            // resume: Last-Event-ID, and the cursor parameter, give exactly the rest
            String afterSecond = partition0.get(1).id().orElseThrow();
            try (var stream = g.stream(events, "Last-Event-ID: " + afterSecond)) {
                assertThat(stream.take(2))
                        .extracting(e -> json(e).path("offset").asLong())
                        .containsExactly(2L, 3L);
            }
            try (var stream =
                    g.stream(events + "?cursor=" + partition0.get(2).id().orElseThrow())) {
                assertThat(stream.take(1))
                        .extracting(e -> json(e).path("offset").asLong())
                        .containsExactly(3L);
            }
            // Last-Event-ID wins over cursor
            try (var stream = g.stream(
                    events + "?cursor=" + partition0.get(2).id().orElseThrow(), "Last-Event-ID: " + afterSecond)) {
                assertThat(stream.take(1))
                        .extracting(e -> json(e).path("offset").asLong())
                        .containsExactly(2L);
            }

            // from a time: the first record at or after it in each partition
            try (var stream = g.stream(events + "?from=1970-01-01T00:00:02.500Z&partitions=1")) {
                assertThat(stream.take(2))
                        .extracting(e -> json(e).path("offset").asLong())
                        .containsExactly(2L, 3L);
            }
            try (var stream = g.stream(events + "?from=4000&partitions=0")) {
                assertThat(stream.take(1))
                        .extracting(e -> json(e).path("offset").asLong())
                        .containsExactly(3L);
            }

            // from=latest: only what is written after the stream opened
            try (var stream = g.stream(events + "?from=latest&partitions=1")) {
                assertThat(stream.status()).isEqualTo(200);
                g.post("/v1/topics/" + topic + "/partitions/1/records", JSON, "{\"value\":\"new\",\"timestamp\":5000}");
                Event next = stream.take(1).getFirst();
                assertThat(json(next).path("value").asString()).isEqualTo("new");
                assertThat(json(next).path("offset").asLong()).isEqualTo(4);
            }

            // records deleted under a cursor: a gap event without id, then the rest from the log start
            deleteRecordsBefore(g.target(), topic, 0, 3);
            try (var stream = g.stream(
                    events, "Last-Event-ID: " + partition0.getFirst().id().orElseThrow())) {
                List<Event> gapThenRest = stream.take(2);
                assertThat(gapThenRest.getFirst().name()).isEqualTo("gap");
                assertThat(gapThenRest.getFirst().id()).isEmpty();
                assertThat(json(gapThenRest.getFirst()).path("log_start_offset").asLong())
                        .isEqualTo(3);
                assertThat(json(gapThenRest.get(1)).path("offset").asLong()).isEqualTo(3);
            }
        });
    }

    @Test
    void eventStreamRequestsThatCannotBeServedAreProblems() {
        assertTargetsAgree(g -> {
            String topic = g.topic("sse-bad");
            createTopic(g, topic, 1);
            g.post("/v1/topics/" + topic + "/records", JSON, "{\"value\":1,\"timestamp\":1}");
            String events = "/v1/topics/" + topic + "/events";
            String id;
            try (var stream = g.stream(events + "?from=earliest")) {
                id = stream.take(1).getFirst().id().orElseThrow();
            }
            Map<String, String> expected = new LinkedHashMap<>();
            expected.put(events + "?cursor=v1.nonsense", "invalid-parameter");
            expected.put(events + "?cursor=" + id + "x", "invalid-parameter");
            expected.put(events + "?from=yesterday", "invalid-parameter");
            expected.put(events + "?partitions=0,x", "invalid-parameter");
            expected.put(events + "?partitions=5", "partition-not-found");
            expected.put("/v1/topics/" + g.topic("never") + "/events", "topic-not-found");
            for (var request : expected.entrySet()) {
                try (var stream = g.stream(request.getKey())) {
                    assertThat(stream.errorAnswer().problem())
                            .as(request.getKey())
                            .isEqualTo(request.getValue());
                }
            }
            try (var stream = g.stream(events, "Last-Event-ID: garbage")) {
                Answer answer = stream.errorAnswer();
                assertThat(answer.problem()).isEqualTo("invalid-parameter");
                assertThat(answer.json().path("parameter").asString()).isEqualTo("Last-Event-ID");
            }
            // a cursor of the topic as it was before it was deleted and created again
            assertThat(g.delete("/v1/topics/" + topic).status()).isEqualTo(204);
            awaitCreated(g, topic, 1);
            assertThat(g.get("/v1/topics/" + topic).status())
                    .as("the new topic's id noted")
                    .isEqualTo(200);
            try (var stream = g.stream(events, "Last-Event-ID: " + id)) {
                assertThat(stream.errorAnswer().problem()).isEqualTo("cursor-topic-changed");
            }
        });
    }

    @Test
    void badInputToProduceIsAProblemNamingWhatIsWrong() {
        assertTargetsAgree(g -> {
            String topic = g.topic("bad-produce");
            createTopic(g, topic, 2);
            String records = "/v1/topics/" + topic + "/records";
            Map<String, String> expected = new LinkedHashMap<>();
            expected.put("{\"value\":", "malformed-json");
            expected.put("[1,2]", "invalid-record");
            expected.put("{\"value\":1,\"value_b64\":\"AA==\"}", "invalid-record");
            expected.put("{\"value_b64\":\"not base64!\"}", "invalid-record");
            expected.put("{\"value\":1,\"timestamp\":\"noon\"}", "invalid-record");
            expected.put("{\"value\":1,\"partition\":\"first\"}", "invalid-record");
            expected.put("{\"value\":1,\"headers\":{\"h\":1}}", "invalid-record");
            expected.put("{\"records\":{}}", "invalid-record");
            for (var request : expected.entrySet()) {
                Answer answer = g.post(records, JSON, request.getKey());
                assertThat(answer.problem())
                        .as(request.getKey() + " -> " + answer.body())
                        .isEqualTo(request.getValue());
            }
            assertThat(g.post(records, JSON, "{\"value\":1,\"partition\":9}").status())
                    .as("a record pinned to a partition the topic lacks")
                    .isIn(207, 404);
            assertThat(g.post("/v1/topics/" + topic + "/partitions/9/records", JSON, "{\"value\":1}")
                            .problem())
                    .isEqualTo("partition-not-found");
            assertThat(g.post("/v1/topics/" + topic + "/partitions/x/records", JSON, "{\"value\":1}")
                            .problem())
                    .isEqualTo("invalid-parameter");
            assertThat(g.post("/v1/topics/" + g.topic("never") + "/records", JSON, "{\"value\":1}")
                            .problem())
                    .isEqualTo("topic-not-found");
            assertThat(g.post("/v1/topics/bad:name/records", JSON, "{\"value\":1}")
                            .problem())
                    .isEqualTo("invalid-topic-name");

            StringBuilder tooMany = new StringBuilder("{\"records\":[");
            for (int i = 0; i < 1001; i++) {
                tooMany.append(i == 0 ? "" : ",")
                        .append("{\"value\":")
                        .append(i)
                        .append('}');
            }
            assertThat(g.post(records, JSON, tooMany.append("]}").toString()).problem())
                    .isEqualTo("too-many-records");
            assertThat(g.post(records, "application/octet-stream", new byte[1024 * 1024 + 1])
                            .problem())
                    .isEqualTo("record-too-large");
            assertThat(g.post(records, "application/octet-stream", new byte[8 * 1024 * 1024 + 1])
                            .problem())
                    .isEqualTo("body-too-large");
            assertThat(g.get(records + "?offset=0").problem())
                    .as("GET on the produce path")
                    .isEqualTo("method-not-allowed");
            assertThat(g.send(
                                    "PUT /v1/topics",
                                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                                                    g.target().gatewayUrl() + "/v1/topics"))
                                            .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
                                            .header("Content-Type", JSON))
                            .problem())
                    .isEqualTo("method-not-allowed");
            assertThat(g.get("/v1/nothing-here").problem()).isEqualTo("not-found");
            assertThat(g.get("/v1/topics/" + topic, "Accept", "text/csv").status())
                    .isEqualTo(406);
            assertThat(fetch(g, topic, 0, 0, "&max_wait_ms=200")
                            .json()
                            .path("records")
                            .size())
                    .as("nothing was written")
                    .isZero();
        });
    }

    // ---- helpers --------------------------------------------------------------------------------

    /** An SSE event's data as JSON. */
    private static JsonNode json(Event event) {
        return GatewayTranscript.JSON.readTree(event.data());
    }

    private static Answer createTopic(GatewayTranscript g, String json) {
        return g.post("/v1/topics", JSON, json);
    }

    /** Creates {@code topic} through the gateway (replication factor 1) and checks it was. */
    private static void createTopic(GatewayTranscript g, String topic, int partitions) {
        createTopic(g, topic, partitions, Map.of());
    }

    /** As {@link #createTopic(GatewayTranscript, String, int)}, with topic configs. */
    private static void createTopic(GatewayTranscript g, String topic, int partitions, Map<String, String> configs) {
        StringBuilder json = new StringBuilder(
                "{\"name\":\"" + topic + "\",\"partitions\":" + partitions + ",\"replication_factor\":1,\"configs\":{");
        configs.forEach((key, value) -> json.append(json.charAt(json.length() - 1) == '{' ? "" : ",")
                .append('"')
                .append(key)
                .append("\":\"")
                .append(value)
                .append('"'));
        Answer created = createTopic(g, json.append("}}").toString());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        awaitLeaders(g.target(), topic, partitions);
    }

    private static void awaitLeaders(KafkaTarget target, String topic, int partitions) {
        try (Admin admin = target.admin()) {
            Clients.awaitLeaders(admin, topic, partitions);
        }
    }

    /**
     * Every record of a partition from offset 0 to {@code count}, fetched as often as it takes (how
     * many records one fetch returns is the cluster's batching), written down as one line.
     */
    private static JsonNode fetchAll(GatewayTranscript g, String topic, int partition, int count) {
        var records = GatewayTranscript.JSON.createArrayNode();
        long offset = 0;
        long deadline = System.nanoTime() + Clients.PATIENCE.toNanos();
        while (records.size() < count && System.nanoTime() < deadline) {
            JsonNode answer = fetch(g.quiet(), topic, partition, offset, "&max_wait_ms=1000")
                    .json();
            answer.path("records").forEach(records::add);
            offset = answer.path("next_offset").asLong();
        }
        var all = GatewayTranscript.JSON.createObjectNode().set("records", records);
        g.note("all of partition " + partition + ": " + g.normaliseBody(all.toString()));
        assertThat(records.size()).as("records of partition %d", partition).isEqualTo(count);
        return all;
    }

    /** Creates {@code topic} again after a delete: Kafka deletes asynchronously, so it may take a few tries. */
    private static void awaitCreated(GatewayTranscript g, String topic, int partitions) throws InterruptedException {
        long deadline = System.nanoTime() + Clients.PATIENCE.toNanos();
        String body = "{\"name\":\"" + topic + "\",\"partitions\":" + partitions + ",\"replication_factor\":1}";
        GatewayTranscript quiet = g.quiet();
        while (System.nanoTime() < deadline) {
            Answer created = quiet.post("/v1/topics", JSON, body);
            if (created.status() == 201) {
                g.note("created again: 201");
                awaitLeaders(g.target(), topic, partitions);
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError(topic + " could not be created again within " + Clients.PATIENCE);
    }

    private static Answer fetch(GatewayTranscript g, String topic, int partition, long offset, String more) {
        return g.get("/v1/topics/" + topic + "/partitions/" + partition + "/records?offset=" + offset + more);
    }

    /** A long fetch on a transcript of its own (so the scenario's lines stay in a fixed order). */
    private static Answer fetchQuietly(GatewayTranscript g, String topic, long offset) {
        return g.quiet().get("/v1/topics/" + topic + "/partitions/0/records?offset=" + offset + "&max_wait_ms=20000");
    }

    /** The cluster's DeleteRecords (the admin API): the partition's log start moves to {@code offset}. */
    private static void deleteRecordsBefore(KafkaTarget target, String topic, int partition, long offset)
            throws Exception {
        try (Admin admin = target.admin()) {
            admin.deleteRecords(Map.of(new TopicPartition(topic, partition), RecordsToDelete.beforeOffset(offset)))
                    .all()
                    .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /**
     * Runs {@code scenario} against every enabled target's gateway: each must pass the scenario's
     * own assertions, and every target's transcript must equal the first's (Kafka's, the reference).
     */
    private static void assertTargetsAgree(Scenario scenario) {
        Map<KafkaTargets.Kind, List<String>> transcripts = new LinkedHashMap<>();
        Map<KafkaTargets.Kind, Throwable> failures = new LinkedHashMap<>();
        Map<KafkaTargets.Kind, String> hints = new LinkedHashMap<>();
        // every enabled target, the degraded one (a broker down) included; Kafka first, the reference
        List<KafkaTargets.Kind> kinds = KafkaTargets.enabledList();
        for (KafkaTargets.Kind kind : kinds) {
            GatewayTranscript transcript;
            try {
                // a target (or its gateway) that cannot start fails this target only, so the
                // others' transcripts still show
                KafkaTarget target = KafkaTargets.get(kind);
                transcript = new GatewayTranscript(target);
                hints.put(kind, target.logsHint());
            } catch (RuntimeException e) {
                failures.put(kind, e);
                continue;
            }
            try {
                scenario.run(transcript);
            } catch (Exception | AssertionError e) {
                failures.put(kind, e);
            }
            transcripts.put(kind, transcript.lines());
        }
        if (!failures.isEmpty()) {
            var error = new AssertionError(
                    "the scenario failed against " + failures.keySet() + "; " + hints + "\n" + render(transcripts));
            failures.values().forEach(error::addSuppressed);
            throw error;
        }
        List<String> reference = transcripts.values().iterator().next();
        for (var transcript : transcripts.entrySet()) {
            assertThat(transcript.getValue())
                    .as(
                            "the gateway in front of %s answers as in front of %s; %s",
                            transcript.getKey(), transcripts.keySet().iterator().next(), hints)
                    .containsExactlyElementsOf(reference);
        }
    }

    private static String render(Map<KafkaTargets.Kind, List<String>> transcripts) {
        StringBuilder out = new StringBuilder();
        transcripts.forEach((kind, lines) -> {
            out.append("---- ").append(kind).append('\n');
            lines.forEach(line -> out.append(line).append('\n'));
        });
        return out.toString();
    }
}
