package io.tributary.gateway.consume;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.tributary.gateway.testing.GatewayHttp;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** The long-poll fetch against a real Kafka broker. */
class FetchTest extends GatewayIntegrationTest {

    @Autowired
    ConsumerPool pool;

    private String records(String topic, int partition, String query) {
        HttpResponse<String> r = http.get("/v1/topics/" + topic + "/partitions/" + partition + "/records?" + query);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    private void produce(String topic, String body) {
        HttpResponse<String> r = http.post("/v1/topics/" + topic + "/partitions/0/records", "application/json", body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    @Test
    void whatWasProducedIsFetchedBackInTheSameShape() {
        String topic = createTopic("fetch-shape", 1);
        produce(
                topic,
                "{\"records\":[{\"key\":\"k\",\"value\":{\"total\": 12.50},\"headers\":{\"h\":\"v\"},"
                        + "\"timestamp\":\"2026-11-29T21:00:00.123Z\"},{\"key_b64\":\"/wA=\",\"value_b64\":\"3q2+7w==\"}]}");

        String body = records(topic, 0, "offset=0");

        assertThat(JsonPath.<Integer>read(body, "$.next_offset")).isEqualTo(2);
        assertThat(JsonPath.<String>read(body, "$.records[0].key")).isEqualTo("k");
        assertThat(body).contains("\"value\":{\"total\": 12.50}");
        assertThat(JsonPath.<String>read(body, "$.records[0].headers.h")).isEqualTo("v");
        assertThat(JsonPath.<String>read(body, "$.records[0].timestamp")).isEqualTo("2026-11-29T21:00:00.123Z");
        assertThat(JsonPath.<Integer>read(body, "$.records[0].offset")).isEqualTo(0);
        assertThat(JsonPath.<String>read(body, "$.records[1].key_b64")).isEqualTo("/wA=");
        assertThat(JsonPath.<String>read(body, "$.records[1].value_b64")).isEqualTo("3q2+7w==");
    }

    @Test
    void aTombstoneIsFetchedAsANullValueFlaggedTombstoneAndAnEmptyValueIsNot() {
        String topic = createTopic("fetch-deleted", 1);
        produce(topic, "{\"records\":[{\"key\":\"k\",\"value\":null},{\"key\":\"k\",\"value_b64\":\"\"}]}");

        String body = records(topic, 0, "offset=0&max_records=2");

        assertThat(JsonPath.<List<Integer>>read(body, "$.records[*].offset")).containsExactly(0, 1);
        assertThat(body).contains("\"key\":\"k\",\"value\":null,\"tombstone\":true,\"headers\":{}");
        assertThat(JsonPath.<String>read(body, "$.records[1].value_b64")).isEmpty();
        assertThat(JsonPath.<List<Integer>>read(body, "$.records[?(@.tombstone == true)].offset"))
                .as("only the tombstone is flagged")
                .containsExactly(0);
        assertThat(body).containsOnlyOnce("\"tombstone\":");
    }

    @Test
    void aRawTextValueThatIsNotJsonComesBackAsBase64() {
        String topic = createTopic("fetch-text", 1);
        http.post("/v1/topics/" + topic + "/records", "text/plain", "hello".getBytes());

        String body = records(topic, 0, "offset=0");

        assertThat(Base64.getDecoder().decode(JsonPath.<String>read(body, "$.records[0].value_b64")))
                .isEqualTo("hello".getBytes());
    }

    @Test
    void aFetchAtTheEndWaitsForTheNextRecord() throws Exception {
        String topic = createTopic("fetch-wait", 1);
        HttpRequest request = HttpRequest.newBuilder(
                        http.uri("/v1/topics/" + topic + "/partitions/0/records?offset=0&max_wait_ms=20000"))
                .GET()
                .build();
        CompletableFuture<HttpResponse<String>> waiting =
                GatewayHttp.client().sendAsync(request, HttpResponse.BodyHandlers.ofString());

        produce(topic, "{\"value\":\"late\"}");

        HttpResponse<String> r = waiting.get(30, TimeUnit.SECONDS);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(r.body(), "$.records[0].value")).isEqualTo("late");
        assertThat(JsonPath.<Integer>read(r.body(), "$.next_offset")).isEqualTo(1);
    }

    @Test
    void aFetchThatFindsNothingAnswersEmptyWithTheSameOffset() {
        String topic = createTopic("fetch-empty", 1);

        String body = records(topic, 0, "offset=0&max_wait_ms=100");

        assertThat(JsonPath.<List<Object>>read(body, "$.records")).isEmpty();
        assertThat(JsonPath.<Integer>read(body, "$.next_offset")).isEqualTo(0);
    }

    @Test
    void maxRecordsAndMaxBytesBoundTheAnswerAndNextOffsetContinues() {
        String topic = createTopic("fetch-bounds", 1);
        produce(
                topic,
                "{\"records\":[{\"value\":\"aaaaaaaaaa\"},{\"value\":\"bbbbbbbbbb\"},{\"value\":\"cc\"},{\"value\":4}]}");

        String two = records(topic, 0, "offset=0&max_records=2");
        String oneByBytes = records(topic, 0, "offset=2&max_bytes=1");
        String rest = records(topic, 0, "offset=3");

        assertThat(JsonPath.<List<Integer>>read(two, "$.records[*].offset")).containsExactly(0, 1);
        assertThat(JsonPath.<Integer>read(two, "$.next_offset")).isEqualTo(2);
        assertThat(JsonPath.<List<Integer>>read(oneByBytes, "$.records[*].offset"))
                .containsExactly(2);
        assertThat(JsonPath.<Integer>read(oneByBytes, "$.next_offset")).isEqualTo(3);
        assertThat(JsonPath.<List<Integer>>read(rest, "$.records[*].offset")).containsExactly(3);
        assertThat(JsonPath.<Integer>read(rest, "$.next_offset")).isEqualTo(4);
    }

    @Test
    void anOffsetRemovedByRetentionIs410WithTheLogStart() throws Exception {
        String topic = createTopic("fetch-gone", 1);
        produce(topic, "{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3}]}");
        admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(2)))
                .all()
                .get(30, TimeUnit.SECONDS);

        HttpResponse<String> r = http.get("/v1/topics/" + topic + "/partitions/0/records?offset=0");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(410);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:offset-below-log-start");
        assertThat(JsonPath.<Integer>read(r.body(), "$.log_start_offset")).isEqualTo(2);
    }

    @Test
    void anOffsetPastTheEndIs400() {
        String topic = createTopic("fetch-past-end", 1);
        produce(topic, "{\"value\":1}");

        HttpResponse<String> r = http.get("/v1/topics/" + topic + "/partitions/0/records?offset=5");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:offset-beyond-log-end");
    }

    @Test
    void negativeOrMalformedOffsetsAndLimitsAre400NamingTheParameter() {
        String topic = createTopic("fetch-bad-params", 1);
        for (String query : List.of(
                "offset=-1",
                "offset=abc",
                "offset=0&max_records=0",
                "offset=0&max_wait_ms=999999",
                "offset=0&max_bytes=x",
                "")) {
            HttpResponse<String> r = http.get("/v1/topics/" + topic + "/partitions/0/records?" + query);
            assertThat(r.statusCode()).as(query).isEqualTo(400);
            assertThat(JsonPath.<String>read(r.body(), "$.type"))
                    .as(query)
                    .isEqualTo("urn:tributary:problem:invalid-parameter");
            assertThat(JsonPath.<String>read(r.body(), "$.parameter")).as(query).isNotBlank();
        }
    }

    @Test
    void anUnknownTopicIs404AndAPartitionOutOfRangeIs404() {
        String topic = createTopic("fetch-404", 2);

        HttpResponse<String> noTopic = http.get("/v1/topics/" + uniqueTopic("nope") + "/partitions/0/records?offset=0");
        HttpResponse<String> noPartition = http.get("/v1/topics/" + topic + "/partitions/2/records?offset=0");

        assertThat(noTopic.statusCode()).isEqualTo(404);
        assertThat(JsonPath.<String>read(noTopic.body(), "$.type")).isEqualTo("urn:tributary:problem:topic-not-found");
        assertThat(noPartition.statusCode()).isEqualTo(404);
        assertThat(JsonPath.<String>read(noPartition.body(), "$.type"))
                .isEqualTo("urn:tributary:problem:partition-not-found");
    }

    @Test
    void manyFetchesReuseThePoolsConsumers() {
        String topic = createTopic("fetch-pool", 1);
        produce(topic, "{\"value\":1}");

        for (int i = 0; i < 40; i++) {
            records(topic, 0, "offset=0");
        }

        assertThat(pool.created()).isBetween(1, 16);
    }
}
