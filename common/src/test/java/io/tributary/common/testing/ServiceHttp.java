package io.tributary.common.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * GETs from a service's HTTP port on 127.0.0.1, as an operator's tools would (redirects are not
 * followed, so tests see them). Thread-safe.
 *
 * @param port the service's HTTP port
 */
public record ServiceHttp(int port) {

    /** A safety net so that a service that never answers fails the test; not an assertion on speed. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static final HttpClient client = HttpClient.newBuilder()
            .connectTimeout(TIMEOUT)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    /** GET {@code path} with an {@code Accept} header. */
    public HttpResponse<String> get(String path, String accept) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(TIMEOUT)
                .header("Accept", accept)
                .GET()
                .build();
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("GET " + request.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted during GET " + request.uri(), e);
        }
    }

    /** The body of a GET that must answer 200, as JSON. */
    public String getJson(String path) {
        return bodyOf200(get(path, "application/json"));
    }

    /**
     * {@code /actuator/prometheus} in Prometheus' text format 0.0.4, the format {@code promtool check
     * metrics} reads.
     */
    public String prometheus() {
        return bodyOf200(get("/actuator/prometheus", "text/plain;version=0.0.4"));
    }

    private static String bodyOf200(HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            throw new AssertionError(
                    "GET %s answered %d: %s".formatted(response.uri(), response.statusCode(), response.body()));
        }
        return response.body();
    }
}
