package io.tributary.broker.cluster;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import javax.net.ssl.SSLContext;

/**
 * A JDK HTTP server on 127.0.0.1 that plays a coordinator's control plane one canned answer at a
 * time: each request is recorded and answered by the current {@link Responder}.
 */
final class StubCoordinator implements AutoCloseable {

    /** One request as received: method, raw path with query, body. */
    record Received(String method, String rawPathAndQuery, String body, Map<String, List<String>> headers) {}

    /** An answer: status, headers, body ({@code chunked}: no Content-Length). */
    record Answer(int status, Map<String, String> headers, byte[] body, boolean chunked) {
        static Answer json(int status, String body) {
            return new Answer(
                    status, Map.of("Content-Type", "application/json"), body.getBytes(StandardCharsets.UTF_8), false);
        }

        static Answer problem(int status, String slug, String detail) {
            String body = """
                    {"type":"urn:tributary:problem:coordinator:%s","title":"t","status":%d,"detail":"%s","instance":"/x"}""".formatted(slug, status, detail);
            return new Answer(
                    status,
                    Map.of("Content-Type", "application/problem+json"),
                    body.getBytes(StandardCharsets.UTF_8),
                    false);
        }

        Answer withHeader(String name, String value) {
            var all = new java.util.HashMap<>(headers);
            all.put(name, value);
            return new Answer(status, Map.copyOf(all), body, chunked);
        }
    }

    @FunctionalInterface
    interface Responder extends Function<Received, Answer> {}

    private final HttpServer server;
    private final String scheme;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private volatile Responder responder = r -> Answer.problem(404, "not-found", "no stub answer");

    StubCoordinator() throws IOException {
        this(null);
    }

    /** Over HTTPS with {@code tls}'s key and certificate when not null, else over HTTP. */
    StubCoordinator(SSLContext tls) throws IOException {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        if (tls == null) {
            server = HttpServer.create(address, 16);
            scheme = "http";
        } else {
            HttpsServer https = HttpsServer.create(address, 16);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            server = https;
            scheme = "https";
        }
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** As {@code tributary.broker.coordinators} lists it: {@code host:port}, or {@code https://host:port}. */
    String address() {
        String hostPort = "127.0.0.1:" + server.getAddress().getPort();
        return scheme.equals("https") ? "https://" + hostPort : hostPort;
    }

    String baseUrl() {
        return scheme + "://127.0.0.1:" + server.getAddress().getPort();
    }

    void respond(Responder responder) {
        this.responder = responder;
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String query = exchange.getRequestURI().getRawQuery();
            var request = new Received(
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().getRawPath() + (query == null ? "" : "?" + query),
                    body,
                    Map.copyOf(exchange.getRequestHeaders()));
            received.add(request);
            Answer answer = responder.apply(request);
            answer.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            if (answer.body().length == 0) {
                exchange.sendResponseHeaders(answer.status(), -1);
                return;
            }
            exchange.sendResponseHeaders(answer.status(), answer.chunked() ? 0 : answer.body().length);
            exchange.getResponseBody().write(answer.body());
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
