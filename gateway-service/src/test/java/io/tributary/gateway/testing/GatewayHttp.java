package io.tributary.gateway.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** HTTP requests to a gateway on 127.0.0.1, as curl would send them. Thread-safe. */
public record GatewayHttp(int port) {

    /** A safety net so that a gateway that never answers fails the test; not an assertion on speed. */
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static final HttpClient client = HttpClient.newBuilder()
            .connectTimeout(TIMEOUT)
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    public HttpResponse<String> delete(String path) {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    public HttpResponse<String> post(String path, String contentType, String body) {
        return post(path, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    public HttpResponse<String> post(String path, String contentType, byte[] body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (headers.length > 0) {
            b.headers(headers);
        }
        return send(b);
    }

    public HttpResponse<String> send(HttpRequest.Builder request) {
        HttpRequest r = request.timeout(TIMEOUT).build();
        try {
            return client.send(r, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(r.method() + " " + r.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted during " + r.uri(), e);
        }
    }

    public static HttpClient client() {
        return client;
    }
}
