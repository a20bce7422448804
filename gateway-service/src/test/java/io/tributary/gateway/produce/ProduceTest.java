package io.tributary.gateway.produce;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import io.tributary.gateway.testing.SharedKafka;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** Produce over HTTP against a real Kafka broker: what arrives in Kafka is what was sent. */
class ProduceTest extends GatewayIntegrationTest {

    @Test
    void oneJsonRecordArrivesWithItsKeyValueHeadersAndTimestamp() {
        String topic = createTopic("produce-one", 1);

        HttpResponse<String> r = http.post(
                "/v1/topics/" + topic + "/records",
                "application/json",
                "{\"key\":\"k1\",\"value\":{\"total\": 12.50},\"headers\":{\"source\":\"web\"},"
                        + "\"timestamp\":\"2026-11-29T21:00:00.123Z\"}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JsonPath.<Integer>read(r.body(), "$.results[0].offset")).isEqualTo(0);
        assertThat(JsonPath.<String>read(r.body(), "$.results[0].timestamp")).isEqualTo("2026-11-29T21:00:00.123Z");
        ConsumerRecord<byte[], byte[]> got = readAll(topic, 0, 1).getFirst();
        assertThat(new String(got.key(), StandardCharsets.UTF_8)).isEqualTo("k1");
        assertThat(new String(got.value(), StandardCharsets.UTF_8)).isEqualTo("{\"total\": 12.50}");
        assertThat(got.headers().lastHeader("source").value()).isEqualTo("web".getBytes(StandardCharsets.UTF_8));
        assertThat(got.timestamp()).isEqualTo(1_795_986_000_123L);
    }

    @Test
    void aBatchGetsOneResultPerRecordInOrder() {
        String topic = createTopic("produce-batch", 1);

        HttpResponse<String> r = http.post(
                "/v1/topics/" + topic + "/records",
                "application/json",
                "{\"records\":[{\"value\":1},{\"value_b64\":\"3q2+7w==\"},{\"value\":\"three\"}]}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JsonPath.<List<Integer>>read(r.body(), "$.results[*].offset"))
                .containsExactly(0, 1, 2);
        List<ConsumerRecord<byte[], byte[]>> got = readAll(topic, 0, 3);
        assertThat(got.get(1).value()).containsExactly(0xde, 0xad, 0xbe, 0xef);
        assertThat(new String(got.get(2).value(), StandardCharsets.UTF_8)).isEqualTo("\"three\"");
    }

    @Test
    void anyOtherContentTypeIsOneRawRecordKeyedByRecordKey() {
        String topic = createTopic("produce-raw", 1);
        byte[] body = "plain text, not JSON".getBytes(StandardCharsets.UTF_8);

        HttpResponse<String> r =
                http.post("/v1/topics/" + topic + "/records", "text/plain", body, "Record-Key", "hook-7");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        ConsumerRecord<byte[], byte[]> got = readAll(topic, 0, 1).getFirst();
        assertThat(got.key()).isEqualTo("hook-7".getBytes(StandardCharsets.UTF_8));
        assertThat(got.value()).isEqualTo(body);
    }

    @Test
    void aFormEncodedWebhookBodyIsProducedByteForByte() {
        String topic = createTopic("produce-form", 1);
        byte[] body = "payload=%7B%22a%22%3A1%7D&token=x".getBytes(StandardCharsets.UTF_8);

        HttpResponse<String> r =
                http.post("/v1/topics/" + topic + "/records?acks=all", "application/x-www-form-urlencoded", body);

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(readAll(topic, 0, 1).getFirst().value()).isEqualTo(body);
    }

    @Test
    void keysGoToThePartitionAPlainKafkaProducerPicks() throws Exception {
        String viaHttp = createTopic("partitioner-http", 7);
        String viaKafka = createTopic("partitioner-kafka", 7);
        StringBuilder batch = new StringBuilder("{\"records\":[");
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            String key = "customer-" + i * 7919;
            keys.add(key);
            batch.append(i == 0 ? "" : ",")
                    .append("{\"key\":\"")
                    .append(key)
                    .append("\",\"value\":")
                    .append(i)
                    .append('}');
        }
        HttpResponse<String> r = http.post(
                "/v1/topics/" + viaHttp + "/records",
                "application/json",
                batch.append("]}").toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<Integer> httpPartitions = JsonPath.read(r.body(), "$.results[*].partition");

        List<Integer> kafkaPartitions = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                "bootstrap.servers", SharedKafka.bootstrapServers(),
                "key.serializer", ByteArraySerializer.class,
                "value.serializer", ByteArraySerializer.class))) {
            for (String key : keys) {
                kafkaPartitions.add(producer.send(
                                new ProducerRecord<>(viaKafka, key.getBytes(StandardCharsets.UTF_8), new byte[] {1}))
                        .get()
                        .partition());
            }
        }

        assertThat(httpPartitions).isEqualTo(kafkaPartitions);
        assertThat(new java.util.HashSet<>(httpPartitions)).hasSizeGreaterThan(3);
    }

    /**
     * {@code "value": null} (and a record without {@code value}) is a tombstone: Kafka's null value,
     * not an empty one; {@code value_b64: ""} and an empty raw body are empty values, not tombstones.
     */
    @Test
    void aNullValueIsWrittenAsATombstoneAndAnEmptyValueIsNot() {
        String topic = createTopic("produce-tombstone", 1, Map.of("cleanup.policy", "compact"));
        String records = "/v1/topics/" + topic + "/records";

        HttpResponse<String> r = http.post(
                records,
                "application/json",
                "{\"records\":[{\"key\":\"a\",\"value\":null},{\"key\":\"b\"},{\"key\":\"c\",\"value_b64\":\"\"}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        HttpResponse<String> ndjson = http.post(records, "application/x-ndjson", "{\"key\":\"d\",\"value\":null}\n");
        assertThat(ndjson.statusCode()).as(ndjson.body()).isEqualTo(200);
        HttpResponse<String> raw = http.post(records, "text/plain", new byte[0], "Record-Key", "e");
        assertThat(raw.statusCode()).as(raw.body()).isEqualTo(200);

        List<ConsumerRecord<byte[], byte[]>> got = readAll(topic, 0, 5);
        assertThat(got.get(0).value()).as("value: null").isNull();
        assertThat(got.get(1).value()).as("no value").isNull();
        assertThat(got.get(2).value()).as("value_b64: \"\"").isEmpty();
        assertThat(got.get(3).value()).as("NDJSON value: null").isNull();
        assertThat(got.get(4).value()).as("an empty raw body").isEmpty();
        assertThat(got.get(3).key()).isEqualTo("d".getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The cluster refuses a record without a key in a compacted topic ({@code INVALID_RECORD}): the
     * client gets 400 {@code invalid-record} saying why, never a 5xx; in a request of several
     * records, 207 with that problem on the record, and the records of other partitions are written.
     */
    @Test
    void aRecordWithoutAKeyInACompactedTopicIs400InvalidRecordSayingWhy() {
        String topic = createTopic("produce-keyless", 2, Map.of("cleanup.policy", "compact"));
        String records = "/v1/topics/" + topic + "/records";

        for (String body : List.of("{\"value\":null}", "{\"value\":1}")) {
            HttpResponse<String> r = http.post(records, "application/json", body);
            assertThat(r.statusCode()).as(body + " -> " + r.body()).isEqualTo(400);
            assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
            assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:invalid-record");
            assertThat(JsonPath.<String>read(r.body(), "$.detail"))
                    .contains("no key", "compacted", "cleanup.policy=compact");
        }
        HttpResponse<String> raw = http.post(records, "text/plain", "no key".getBytes(StandardCharsets.UTF_8));
        assertThat(raw.statusCode()).as(raw.body()).isEqualTo(400);
        assertThat(JsonPath.<String>read(raw.body(), "$.detail")).contains("no key");

        HttpResponse<String> batch = http.post(
                records,
                "application/json",
                "{\"records\":[{\"value\":2,\"partition\":0},{\"key\":\"b\",\"value\":3,\"partition\":1}]}");
        assertThat(batch.statusCode()).as(batch.body()).isEqualTo(207);
        assertThat(JsonPath.<String>read(batch.body(), "$.results[0].problem.type"))
                .isEqualTo("urn:tributary:problem:invalid-record");
        assertThat(JsonPath.<String>read(batch.body(), "$.results[0].problem.detail"))
                .contains("no key");
        assertThat(JsonPath.<Integer>read(batch.body(), "$.results[1].offset")).isEqualTo(0);

        HttpResponse<String> ndjson = http.post(records, "application/x-ndjson", "{\"value\":1,\"partition\":1}\n");
        assertThat(ndjson.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(ndjson.body().strip(), "$.problem.type"))
                .isEqualTo("urn:tributary:problem:invalid-record");
        assertThat(readAll(topic, 1, 1))
                .extracting(rec -> new String(rec.value(), StandardCharsets.UTF_8))
                .containsExactly("3");
    }

    /**
     * The gateway knows which topics are compacted ({@code cleanup.policy} with {@code compact}) and
     * refuses a record without a key to one itself: the record never reaches the shared producer, so
     * the keyed records of the same request and partition, which would share its producer batch (and
     * be refused with it by the broker), are written. A topic that does not compact takes it.
     */
    @Test
    void theGatewayRefusesAKeylessRecordToACompactedTopicWithoutSendingIt() {
        for (String policy : List.of("compact", "compact,delete")) {
            String topic = createTopic("produce-keyless-gateway", 1, Map.of("cleanup.policy", policy));
            HttpResponse<String> r = http.post(
                    "/v1/topics/" + topic + "/records",
                    "application/json",
                    "{\"records\":[{\"key\":\"a\",\"value\":1},{\"value\":2},{\"key\":\"b\",\"value\":3}]}");

            assertThat(r.statusCode()).as(policy + ": " + r.body()).isEqualTo(207);
            assertThat(JsonPath.<Integer>read(r.body(), "$.results[0].offset")).isEqualTo(0);
            assertThat(JsonPath.<String>read(r.body(), "$.results[1].problem.type"))
                    .isEqualTo("urn:tributary:problem:invalid-record");
            assertThat(JsonPath.<String>read(r.body(), "$.results[1].problem.detail"))
                    .contains("has no key", "'" + topic + "' is compacted", "cleanup.policy=compact")
                    .doesNotContain("cluster refused");
            assertThat(JsonPath.<Integer>read(r.body(), "$.results[2].offset")).isEqualTo(1);
            assertThat(readAll(topic, 0, 2))
                    .extracting(rec -> new String(rec.key(), StandardCharsets.UTF_8))
                    .containsExactly("a", "b");
        }
        String deleting = createTopic("produce-keyless-delete", 1, Map.of("cleanup.policy", "delete"));
        HttpResponse<String> kept =
                http.post("/v1/topics/" + deleting + "/records", "application/json", "{\"value\":2}");
        assertThat(kept.statusCode()).as(kept.body()).isEqualTo(200);
    }

    /**
     * Kafka's broker names the refused record of a batch, and kafka-clients' producer fails the
     * others of that batch with a plain {@code KafkaException}: {@code invalid-record} saying that
     * another record of the batch was refused. The two records are put in one batch for certain (a
     * producer of the test's own that lingers a minute and is flushed), which the gateway's shared
     * producers do only when the records are sent within their linger.
     */
    @Test
    void aRecordOfABatchWithARefusedRecordIsInvalidRecordSayingSo() throws Exception {
        String topic = createTopic("produce-batch-mate", 1, Map.of("cleanup.policy", "compact"));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                "bootstrap.servers",
                SharedKafka.bootstrapServers(),
                "key.serializer",
                ByteArraySerializer.class,
                "value.serializer",
                ByteArraySerializer.class,
                "linger.ms",
                60_000))) {
            var keyed = producer.send(new ProducerRecord<>(topic, 0, new byte[] {'k'}, new byte[] {1}));
            var keyless = producer.send(new ProducerRecord<>(topic, 0, null, new byte[] {2}));
            producer.flush();

            ProblemException keyedProblem = failureOf(keyed);
            ProblemException keylessProblem = failureOf(keyless);
            assertThat(keylessProblem.type()).isEqualTo(ProblemType.INVALID_RECORD);
            assertThat(keyedProblem.type()).isEqualTo(ProblemType.INVALID_RECORD);
            assertThat(keyedProblem.getMessage()).contains("another record of the batch", "send it again");
        }
    }

    private static ProblemException failureOf(java.util.concurrent.Future<?> sent) {
        try {
            sent.get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            return KafkaProblems.toProblem(e);
        }
        throw new AssertionError("the record was written");
    }

    @Test
    void aPartitionInTheUrlPinsEveryRecord() {
        String topic = createTopic("produce-pinned", 3);

        HttpResponse<String> r = http.post(
                "/v1/topics/" + topic + "/partitions/2/records",
                "application/json",
                "{\"records\":[{\"key\":\"a\",\"value\":1},{\"key\":\"b\",\"value\":2}]}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JsonPath.<List<Integer>>read(r.body(), "$.results[*].partition"))
                .containsExactly(2, 2);
    }

    @Test
    void acksLeaderAndNoneWriteTooAndNoneReportsNoOffset() {
        String topic = createTopic("produce-acks", 1);

        HttpResponse<String> leader =
                http.post("/v1/topics/" + topic + "/records?acks=leader", "application/json", "{\"value\":1}");
        HttpResponse<String> none =
                http.post("/v1/topics/" + topic + "/records?acks=none", "application/json", "{\"value\":2}");

        assertThat(leader.statusCode()).as(leader.body()).isEqualTo(200);
        assertThat(JsonPath.<Integer>read(leader.body(), "$.results[0].offset")).isEqualTo(0);
        assertThat(none.statusCode()).as(none.body()).isEqualTo(200);
        assertThat(JsonPath.<Map<String, Object>>read(none.body(), "$.results[0]"))
                .containsEntry("partition", 0)
                .doesNotContainKey("offset");
        assertThat(readAll(topic, 0, 2)).hasSize(2);
    }

    @Test
    void anUnknownAcksIsAnInvalidParameter() {
        String topic = createTopic("produce-bad-acks", 1);

        HttpResponse<String> r =
                http.post("/v1/topics/" + topic + "/records?acks=most", "application/json", "{\"value\":1}");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:invalid-parameter");
        assertThat(JsonPath.<String>read(r.body(), "$.parameter")).isEqualTo("acks");
    }

    @Test
    void someRecordsFailingIs207WithAProblemPerFailedRecord() {
        // the broker refuses records more than an hour old; the good and the bad record are in different
        // partitions, so they are in different batches and the broker answers each on its own
        String topic = createTopic("produce-207", 2, Map.of("message.timestamp.before.max.ms", "3600000"));

        HttpResponse<String> r = http.post(
                "/v1/topics/" + topic + "/records",
                "application/json",
                "{\"records\":[{\"value\":1,\"partition\":0},"
                        + "{\"value\":2,\"partition\":1,\"timestamp\":\"2020-01-01T00:00:00Z\"}]}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(207);
        assertThat(JsonPath.<Integer>read(r.body(), "$.results[0].offset")).isEqualTo(0);
        assertThat(JsonPath.<String>read(r.body(), "$.results[1].problem.type"))
                .isEqualTo("urn:tributary:problem:invalid-record");
        assertThat(JsonPath.<Integer>read(r.body(), "$.results[1].problem.status"))
                .isEqualTo(400);
    }

    @Test
    void ndjsonIsStreamedInAndOneResultPerLineStreamedOutInOrder() {
        String topic = createTopic("produce-ndjson", 2);
        StringBuilder body = new StringBuilder();
        int lines = 3000;
        for (int i = 0; i < lines; i++) {
            body.append(i == 1500 ? "{not json" : "{\"key\":\"k" + i + "\",\"value\":" + i + "}")
                    .append('\n');
        }

        HttpResponse<String> r = http.post("/v1/topics/" + topic + "/records", "application/x-ndjson", body.toString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/x-ndjson"));
        String[] results = r.body().split("\n");
        assertThat(results).hasSize(lines);
        for (int i = 0; i < lines; i++) {
            if (i == 1500) {
                assertThat(JsonPath.<String>read(results[i], "$.problem.type"))
                        .isEqualTo("urn:tributary:problem:malformed-json");
            } else {
                assertThat(JsonPath.<Integer>read(results[i], "$.offset"))
                        .as("line %d", i)
                        .isNotNull();
            }
        }
        assertThat(readAll(topic, 0, 0).size() + readAll(topic, 1, 0).size()).isEqualTo(lines - 1);
    }

    @Test
    void moreRecordsThanTheLimitIs413TooManyRecordsAndNothingIsWritten() {
        String topic = createTopic("produce-too-many", 1);
        StringBuilder batch = new StringBuilder("{\"records\":[");
        for (int i = 0; i < 1001; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"value\":").append(i).append('}');
        }

        HttpResponse<String> r = http.post(
                "/v1/topics/" + topic + "/records",
                "application/json",
                batch.append("]}").toString());

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:too-many-records");
        assertThat(readAll(topic, 0, 0)).isEmpty();
    }

    @Test
    void aRawRecordAboveTheRecordLimitIs413RecordTooLarge() {
        String topic = createTopic("produce-record-too-large", 1);

        HttpResponse<String> r =
                http.post("/v1/topics/" + topic + "/records", "application/octet-stream", new byte[1024 * 1024 + 1]);

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:record-too-large");
    }

    @Test
    void aBodyAboveTheBodyLimitIs413BodyTooLarge() {
        String topic = createTopic("produce-body-too-large", 1);

        HttpResponse<String> r =
                http.post("/v1/topics/" + topic + "/records", "application/json", new byte[8 * 1024 * 1024 + 1]);

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:body-too-large");
    }

    @Test
    void anUnknownTopicIs404AndNotCreated() {
        String topic = uniqueTopic("never-created");

        HttpResponse<String> r = http.post("/v1/topics/" + topic + "/records", "application/json", "{\"value\":1}");

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:topic-not-found");
    }

    @Test
    void aPartitionTheTopicDoesNotHaveIs404() {
        String topic = createTopic("produce-no-partition", 2);

        HttpResponse<String> r =
                http.post("/v1/topics/" + topic + "/partitions/2/records", "application/json", "{\"value\":1}");

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:partition-not-found");
    }

    /** Reads partition {@code p} from the start until {@code expected} records came (0: read what is there). */
    static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int p, int expected) {
        TopicPartition tp = new TopicPartition(topic, p);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                "bootstrap.servers", SharedKafka.bootstrapServers(),
                "key.deserializer", ByteArrayDeserializer.class,
                "value.deserializer", ByteArrayDeserializer.class))) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).records(tp).forEach(got::add);
            }
            if (expected > 0) {
                assertThat(got).hasSize(expected);
            }
            return got;
        }
    }
}
