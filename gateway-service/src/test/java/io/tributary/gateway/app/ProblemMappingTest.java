package io.tributary.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Client mistakes are named problems (application/problem+json with a stable type), never a 500 and
 * never a stack trace.
 */
class ProblemMappingTest extends GatewayIntegrationTest {

    private static void assertProblem(HttpResponse<String> r, int status, String type) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:" + type);
        assertThat(JsonPath.<Integer>read(r.body(), "$.status")).isEqualTo(status);
        assertThat(JsonPath.<String>read(r.body(), "$.title")).isNotBlank();
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("trace");
    }

    @Test
    void malformedJsonWhenProducingIs400MalformedJson() {
        String topic = createTopic("errors-json", 1);

        assertProblem(
                http.post("/v1/topics/" + topic + "/records", "application/json", "{\"value\": [1,"),
                400,
                "malformed-json");
    }

    @Test
    void aRecordThatBreaksTheSchemaIs400InvalidRecord() {
        String topic = createTopic("errors-record", 1);

        assertProblem(
                http.post("/v1/topics/" + topic + "/records", "application/json", "{\"value\":1,\"colour\":\"red\"}"),
                400,
                "invalid-record");
    }

    @Test
    void malformedJsonWhenCreatingATopicIs400MalformedJson() {
        assertProblem(http.post("/v1/topics", "application/json", "{\"name\":"), 400, "malformed-json");
    }

    @Test
    void theWrongContentTypeWhenCreatingATopicIs415() {
        assertProblem(http.post("/v1/topics", "text/plain", "orders"), 415, "unsupported-media-type");
    }

    @Test
    void anUnknownPathIs404NotFound() {
        assertProblem(http.get("/v1/nothing-here"), 404, "not-found");
    }

    @Test
    void anSseStreamOfAnUnknownTopicIs404TopicNotFound() {
        assertProblem(http.get("/v1/topics/no-such-topic-for-sse/events"), 404, "topic-not-found");
    }

    @Test
    void anUnsupportedMethodIs405WithAllow() {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(http.uri("/v1/topics")).method("PATCH", HttpRequest.BodyPublishers.noBody()));

        assertProblem(r, 405, "method-not-allowed");
        // in name order, the same in every gateway process (the differential system test compares two)
        assertThat(r.headers().firstValue("Allow")).hasValue("GET,POST");
    }

    @Test
    void aPartitionThatIsNotANumberIs400InvalidParameter() {
        HttpResponse<String> r = http.get("/v1/topics/orders/partitions/first/records?offset=0");

        assertProblem(r, 400, "invalid-parameter");
        assertThat(JsonPath.<String>read(r.body(), "$.parameter")).isEqualTo("partition");
    }

    @Test
    void aMissingOffsetIs400InvalidParameter() {
        HttpResponse<String> r = http.get("/v1/topics/orders/partitions/0/records");

        assertProblem(r, 400, "invalid-parameter");
        assertThat(JsonPath.<String>read(r.body(), "$.parameter")).isEqualTo("offset");
    }

    @Test
    void askingForAMediaTypeTheApiDoesNotSpeakIs406() {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(http.uri("/v1/topics"))
                .header("Accept", "text/html")
                .GET());

        assertProblem(r, 406, "not-acceptable");
    }

    @Test
    void aProblemIsAnsweredEvenToAClientThatAcceptsOnlyHtml() {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(http.uri("/v1/nothing-here"))
                .header("Accept", "text/html")
                .GET());

        assertProblem(r, 404, "not-found");
    }
}
