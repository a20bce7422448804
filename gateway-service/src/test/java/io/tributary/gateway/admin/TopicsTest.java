package io.tributary.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Topic administration against a real Kafka broker. */
class TopicsTest extends GatewayIntegrationTest {

    private HttpResponse<String> create(String json) {
        return http.post("/v1/topics", "application/json", json);
    }

    @Test
    void createdTopicsAreListedDescribedAndDeleted() {
        String name = uniqueTopic("admin");

        HttpResponse<String> created = create("{\"name\":\"" + name
                + "\",\"partitions\":3,\"replication_factor\":1,\"configs\":{\"retention.ms\":\"86400000\"}}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(created.headers().firstValue("Location")).hasValue("/v1/topics/" + name);
        assertThat(JsonPath.<Integer>read(created.body(), "$.partitions")).isEqualTo(3);
        assertThat(JsonPath.<String>read(created.body(), "$.topic_id")).isNotBlank();

        assertThat(JsonPath.<List<String>>read(http.get("/v1/topics").body(), "$.topics"))
                .contains(name);

        HttpResponse<String> described = http.get("/v1/topics/" + name);
        assertThat(described.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<List<Integer>>read(described.body(), "$.partitions[*].partition"))
                .containsExactly(0, 1, 2);
        assertThat(JsonPath.<List<Integer>>read(described.body(), "$.partitions[0].isr"))
                .hasSize(1);
        assertThat(JsonPath.<Integer>read(described.body(), "$.partitions[0].high_watermark"))
                .isZero();

        assertThat(http.delete("/v1/topics/" + name).statusCode()).isEqualTo(204);
        HttpResponse<String> gone = http.get("/v1/topics/" + name);
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(JsonPath.<String>read(gone.body(), "$.type")).isEqualTo("urn:tributary:problem:topic-not-found");
    }

    @Test
    void aNewTopicTakesRecordsAtOnce() {
        String name = uniqueTopic("admin-usable");
        assertThat(create("{\"name\":\"" + name + "\",\"partitions\":1}").statusCode())
                .isEqualTo(201);

        HttpResponse<String> r = http.post("/v1/topics/" + name + "/records", "application/json", "{\"value\":1}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    @Test
    void creatingAnExistingTopicIs409() {
        String name = createTopic("admin-exists", 1);

        HttpResponse<String> r = create("{\"name\":\"" + name + "\"}");

        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:topic-exists");
    }

    @Test
    void namesThatBreakKafkasRulesAre400() {
        HttpResponse<String> r = create("{\"name\":\"no spaces allowed\"}");
        HttpResponse<String> inPath = http.get("/v1/topics/bad:name");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:invalid-topic-name");
        assertThat(inPath.statusCode()).isEqualTo(400);
        assertThat(JsonPath.<String>read(inPath.body(), "$.type"))
                .isEqualTo("urn:tributary:problem:invalid-topic-name");
    }

    @Test
    void aReplicationFactorTheClusterCannotMeetIs400() {
        HttpResponse<String> r = create("{\"name\":\"" + uniqueTopic("admin-rf") + "\",\"replication_factor\":3}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:invalid-topic-request");
    }

    @Test
    void deletingAnUnknownTopicIs404() {
        HttpResponse<String> r = http.delete("/v1/topics/" + uniqueTopic("admin-never"));

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:topic-not-found");
    }

    @Test
    void offsetsAreGivenForEarliestLatestAndATime() {
        String name = createTopic("admin-offsets", 1);
        http.post(
                "/v1/topics/" + name + "/records",
                "application/json",
                "{\"records\":[{\"value\":1,\"timestamp\":1000},{\"value\":2,\"timestamp\":2000},{\"value\":3,\"timestamp\":3000}]}");

        String earliest =
                http.get("/v1/topics/" + name + "/offsets?timestamp=earliest").body();
        String latest = http.get("/v1/topics/" + name + "/offsets").body();
        String byTime = http.get("/v1/topics/" + name + "/offsets?timestamp=1970-01-01T00:00:01.500Z")
                .body();
        String afterAll =
                http.get("/v1/topics/" + name + "/offsets?timestamp=9000").body();

        assertThat(JsonPath.<Integer>read(earliest, "$.partitions[0].offset")).isZero();
        assertThat(JsonPath.<Integer>read(latest, "$.partitions[0].offset")).isEqualTo(3);
        assertThat(JsonPath.<String>read(latest, "$.timestamp")).isEqualTo("latest");
        assertThat(JsonPath.<Integer>read(byTime, "$.partitions[0].offset")).isEqualTo(1);
        assertThat(JsonPath.<String>read(byTime, "$.partitions[0].timestamp")).isEqualTo("1970-01-01T00:00:02Z");
        assertThat(JsonPath.<Object>read(afterAll, "$.partitions[0].offset")).isNull();
    }

    @Test
    void aTimestampThatIsNoTimeIs400() {
        String name = createTopic("admin-offsets-bad", 1);

        HttpResponse<String> r = http.get("/v1/topics/" + name + "/offsets?timestamp=tomorrow");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(JsonPath.<String>read(r.body(), "$.parameter")).isEqualTo("timestamp");
    }
}
