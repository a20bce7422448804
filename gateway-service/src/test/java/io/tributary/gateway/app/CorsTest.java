package io.tributary.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.gateway.testing.GatewayIntegrationTest;
import io.tributary.gateway.testing.SseClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Browsers on the allowed origins ({@code http://app.test} and {@code http://localhost:5173} in these
 * tests) get preflights answered and CORS headers on answers, errors and SSE streams; other origins
 * get 403 {@code origin-not-allowed}; requests without {@code Origin} are unaffected.
 */
class CorsTest extends GatewayIntegrationTest {

    private static final String APP = "http://app.test";

    private HttpResponse<String> preflight(String path, String origin, String method, String headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(http.uri(path))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", origin)
                .header("Access-Control-Request-Method", method);
        if (headers != null) {
            b.header("Access-Control-Request-Headers", headers);
        }
        return http.send(b);
    }

    private static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    @Test
    void aPreflightForAProduceFromAnAllowedOriginIsAnswered() {
        String topic = createTopic("cors", 1);
        HttpResponse<String> r = preflight("/v1/topics/" + topic + "/records", APP, "POST", "content-type,record-key");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(header(r, "Access-Control-Allow-Origin")).isEqualTo(APP);
        assertThat(header(r, "Access-Control-Allow-Methods")).contains("POST");
        assertThat(header(r, "Access-Control-Allow-Headers").toLowerCase(Locale.ROOT))
                .contains("content-type")
                .contains("record-key");
        assertThat(header(r, "Access-Control-Max-Age")).isEqualTo("3600");
        assertThat(header(r, "Access-Control-Allow-Credentials")).isNull();

        HttpResponse<String> sse =
                preflight("/v1/topics/" + topic + "/events", "http://localhost:5173", "GET", "last-event-id");
        assertThat(sse.statusCode()).isEqualTo(200);
        assertThat(header(sse, "Access-Control-Allow-Origin")).isEqualTo("http://localhost:5173");
    }

    @Test
    void answersAndErrorsToAnAllowedOriginCarryTheCorsHeaders() {
        String topic = createTopic("cors", 1);
        HttpResponse<String> produced = http.send(HttpRequest.newBuilder(http.uri("/v1/topics/" + topic + "/records"))
                .header("Origin", APP)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"value\":1}")));
        assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);
        assertThat(header(produced, "Access-Control-Allow-Origin")).isEqualTo(APP);
        assertThat(header(produced, "Access-Control-Expose-Headers")).contains("Retry-After");
        assertThat(header(produced, "Access-Control-Expose-Headers")).contains("Idempotent-Replayed");

        // a browser page can read the problem of a failed request
        HttpResponse<String> missing = http.send(HttpRequest.newBuilder(http.uri("/v1/topics/no-such-cors-topic"))
                .header("Origin", APP));
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(header(missing, "Access-Control-Allow-Origin")).isEqualTo(APP);
        assertThat(missing.body()).contains("urn:tributary:problem:topic-not-found");
    }

    @Test
    void anEventSourceFromAnAllowedOriginGetsItsEvents() {
        String topic = createTopic("cors-sse", 1);
        http.post("/v1/topics/" + topic + "/records", "application/json", "{\"value\":\"hello\"}");
        try (SseClient client =
                SseClient.open(httpPort, "/v1/topics/" + topic + "/events?from=earliest", "Origin: " + APP)) {
            assertThat(client.status()).isEqualTo(200);
            assertThat(client.header("Access-Control-Allow-Origin")).isEqualTo(APP);
            assertThat(client.next().orElseThrow().data()).contains("\"value\":\"hello\"");
        }
    }

    @Test
    void anotherOriginIsRefusedWithAProblemAndNoCorsHeaders() {
        String topic = createTopic("cors", 1);
        HttpResponse<String> pre =
                preflight("/v1/topics/" + topic + "/records", "http://evil.test", "POST", "content-type");
        assertThat(pre.statusCode()).isEqualTo(403);
        assertThat(header(pre, "Access-Control-Allow-Origin")).isNull();
        assertThat(header(pre, "Content-Type")).startsWith("application/problem+json");
        assertThat(pre.body()).contains("urn:tributary:problem:origin-not-allowed");

        HttpResponse<String> get = http.send(
                HttpRequest.newBuilder(http.uri("/v1/topics/" + topic)).header("Origin", "http://evil.test"));
        assertThat(get.statusCode()).isEqualTo(403);
        assertThat(get.body()).contains("urn:tributary:problem:origin-not-allowed");

        // without Origin (curl, servers, same-origin pages) nothing changes
        HttpResponse<String> plain = http.get("/v1/topics/" + topic);
        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(header(plain, "Access-Control-Allow-Origin")).isNull();
    }
}
