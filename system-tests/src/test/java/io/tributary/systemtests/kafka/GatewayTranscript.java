package io.tributary.systemtests.kafka;

import io.tributary.gateway.testing.SseClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One scenario's conversation with one target's gateway, written down as it goes: every request and
 * its answer (status, media type, the headers that matter, the body) and every SSE event, each
 * line normalised so that two targets' transcripts compare equal exactly when the gateway behaved
 * the same in front of both.
 *
 * <p>Normalised (what legitimately differs between a Kafka broker and a Tributary cluster): the
 * scenario's topic names (random per run: {@code <name>}, by the prefix given to {@link #topic}),
 * topic ids ({@code <topic-id-N>} in order of appearance, also inside SSE cursors, which embed
 * them), broker ids ({@code leader}, {@code replicas}, {@code isr}: {@code <broker>}) and
 * timestamps the cluster chose while the scenario ran ({@code <now>}: a {@code timestamp} within
 * the scenario's time window; one outside it stays as it is and shows up in the comparison), and
 * the {@code detail} of problems the cluster words itself: one record's problem in a 207, and the
 * answers of a {@link #withClusterDetail()} transcript (the scenario checks those details on each
 * target). Everything else, the other problem {@code detail}s included, is compared as it is.
 *
 * <p>Not thread-safe: one scenario thread.
 */
final class GatewayTranscript {

    /** A safety net so that a gateway that never answers fails the test; not an assertion on speed. */
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    static final JsonMapper JSON = JsonMapper.builder().build();

    private static final HttpClient client = HttpClient.newBuilder()
            .connectTimeout(TIMEOUT)
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    private static final Set<String> BROKER_FIELDS = Set.of("leader", "replicas", "isr");
    private static final List<String> RECORDED_HEADERS = List.of("location", "retry-after", "allow");

    /** One answer, as the scenario's assertions read it. */
    record Answer(int status, String mediaType, Map<String, String> headers, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (JacksonException e) {
                throw new AssertionError("not JSON (" + status + "): " + body, e);
            }
        }

        /** The problem's type name (the last part of its URN), or "" when the body is none. */
        String problem() {
            if (!mediaType.equals("application/problem+json")) {
                return "";
            }
            return json().path("type").asString().replace("urn:tributary:problem:", "");
        }
    }

    private final KafkaTarget target;
    private final String baseUrl;
    private final List<String> lines;
    private final boolean clusterDetail;
    private final Map<String, String> replacements;
    private final long startMs = System.currentTimeMillis();

    GatewayTranscript(KafkaTarget target) {
        this(target, new LinkedHashMap<>(), new ArrayList<>(), false);
    }

    /** {@code lines} null: a quiet transcript, whose lines are dropped. */
    private GatewayTranscript(
            KafkaTarget target, Map<String, String> replacements, List<String> lines, boolean clusterDetail) {
        this.target = target;
        this.baseUrl = target.gatewayUrl();
        this.replacements = replacements;
        this.lines = lines == null ? new ArrayList<>() : lines;
        this.clusterDetail = clusterDetail;
    }

    KafkaTarget target() {
        return target;
    }

    /**
     * A transcript of the same gateway whose lines are dropped, for requests whose answers are
     * not the scenario's to compare (waits, other scenarios' topics); it shares the topic names
     * and ids seen so far and adds the ones it sees.
     */
    GatewayTranscript quiet() {
        return new GatewayTranscript(target, replacements, null, false);
    }

    /**
     * This transcript, but the problems it answers are written down with their {@code detail}
     * masked: for requests the cluster refuses in its own words (the scenario checks the detail
     * itself).
     */
    GatewayTranscript withClusterDetail() {
        return new GatewayTranscript(target, replacements, lines, true);
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    /** A topic name no other scenario uses, written {@code <prefix>} in the transcript. */
    String topic(String prefix) {
        String name = Clients.uniqueTopic("gw-" + prefix);
        replacements.put(name, "<" + prefix + ">");
        return name;
    }

    /** Adds a line of the scenario's own (normalised like the answers). */
    void note(String line) {
        lines.add(normalise(line));
    }

    Answer get(String path, String... headers) {
        return send("GET " + path, HttpRequest.newBuilder(uri(path)).GET(), headers);
    }

    Answer delete(String path) {
        return send("DELETE " + path, HttpRequest.newBuilder(uri(path)).DELETE());
    }

    Answer post(String path, String contentType, String body, String... headers) {
        return post(path, contentType, body.getBytes(StandardCharsets.UTF_8), headers);
    }

    Answer post(String path, String contentType, byte[] body, String... headers) {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        String label = "POST " + path + " (" + contentType + ", " + body.length + " bytes)";
        return send(label, request, headers);
    }

    /** Sends {@code request} (with {@code headers}, name and value pairs) and writes down the answer. */
    Answer send(String label, HttpRequest.Builder request, String... headers) {
        if (headers.length > 0) {
            request.headers(headers);
        }
        HttpRequest built = request.timeout(TIMEOUT).build();
        HttpResponse<String> response;
        try {
            response = client.send(built, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(label + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted during " + label, e);
        }
        String mediaType = response.headers()
                .firstValue("Content-Type")
                .map(v -> v.split(";")[0].strip().toLowerCase(Locale.ROOT))
                .orElse("");
        Map<String, String> recorded = new LinkedHashMap<>();
        for (String name : RECORDED_HEADERS) {
            response.headers().firstValue(name).ifPresent(v -> recorded.put(name, v));
        }
        var answer = new Answer(response.statusCode(), mediaType, recorded, response.body());
        lines.add(normalise(label) + " -> " + answer.status() + " " + mediaType
                + (recorded.isEmpty() ? "" : " " + normalise(recorded.toString())) + " "
                + normaliseBody(answer.body()));
        return answer;
    }

    /**
     * Opens an SSE stream with the gateway tests' {@link SseClient} (HTTP/1.0 over a raw socket, so
     * the answer is not chunked; {@code headerLines} such as {@code "Last-Event-ID: ..."}).
     */
    Stream stream(String pathAndQuery, String... headerLines) {
        SseClient client = SseClient.open(URI.create(baseUrl).getPort(), pathAndQuery, headerLines);
        return new Stream(client, pathAndQuery + (headerLines.length == 0 ? "" : " " + List.of(headerLines)));
    }

    private URI uri(String path) {
        return URI.create(baseUrl + path);
    }

    /** Text replacements, then (when it is JSON) the field masks; compact JSON out. */
    String normaliseBody(String body) {
        if (body.isEmpty()) {
            return "<empty>";
        }
        try {
            JsonNode node = JSON.readTree(body);
            if (node != null && (node.isObject() || node.isArray())) {
                collectTopicIds(node);
                JsonNode normalised = JSON.readTree(normalise(JSON.writeValueAsString(node)));
                mask(normalised);
                if (clusterDetail && normalised instanceof ObjectNode problem && problem.has("detail")) {
                    problem.put("detail", "<cluster's message>");
                }
                return JSON.writeValueAsString(normalised);
            }
        } catch (JacksonException notJson) {
            // NDJSON or text: line by line below
        }
        if (body.contains("\n")) {
            List<String> out = new ArrayList<>();
            for (String line : body.split("\n")) {
                out.add(normaliseBody(line));
            }
            return String.join(" | ", out);
        }
        return normalise(body);
    }

    String normalise(String text) {
        String out = text;
        for (var replacement : replacements.entrySet()) {
            out = out.replace(replacement.getKey(), replacement.getValue());
        }
        return out;
    }

    private void collectTopicIds(JsonNode node) {
        if (node.isObject()) {
            for (var property : node.properties()) {
                if (property.getKey().equals("topic_id") && property.getValue().isString()) {
                    String id = property.getValue().asString();
                    replacements.putIfAbsent(id, "<topic-id-" + topicIdCount() + ">");
                } else {
                    collectTopicIds(property.getValue());
                }
            }
        } else if (node.isArray()) {
            node.forEach(this::collectTopicIds);
        }
    }

    private long topicIdCount() {
        return replacements.values().stream()
                        .filter(v -> v.startsWith("<topic-id-"))
                        .count()
                + 1;
    }

    /** Registers a topic id seen elsewhere (an SSE cursor's topic) for replacement. */
    void topicId(String id) {
        replacements.putIfAbsent(id, "<topic-id-" + topicIdCount() + ">");
    }

    private void mask(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (String name : List.copyOf(object.propertyNames())) {
                JsonNode value = object.get(name);
                if (BROKER_FIELDS.contains(name) && value.isNumber()) {
                    object.put(name, "<broker>");
                } else if (BROKER_FIELDS.contains(name) && value instanceof ArrayNode brokers) {
                    ArrayNode masked = object.putArray(name);
                    brokers.forEach(b -> masked.add("<broker>"));
                } else if (name.equals("timestamp") && isNow(value)) {
                    object.put(name, "<now>");
                } else if (name.equals("problem") && value instanceof ObjectNode problem && problem.has("detail")) {
                    // one record's problem: the detail is the cluster's own error message where it
                    // sends one (Tributary names the limit a batch broke; Kafka sends none)
                    problem.put("detail", "<cluster's message>");
                } else {
                    mask(value);
                }
            }
        } else if (node instanceof ArrayNode array) {
            array.forEach(this::mask);
        }
    }

    /** A time the cluster or the gateway chose during this scenario (a minute of slack either side). */
    private boolean isNow(JsonNode value) {
        long ms;
        if (value.isNumber()) {
            ms = value.asLong();
        } else if (value.isString()) {
            try {
                ms = Instant.parse(value.asString()).toEpochMilli();
            } catch (DateTimeParseException e) {
                return false;
            }
        } else {
            return false;
        }
        return ms >= startMs - 60_000 && ms <= System.currentTimeMillis() + 60_000;
    }

    /** An SSE stream of this transcript's gateway; every event read is written down. */
    final class Stream implements AutoCloseable {
        private final SseClient client;
        private final String label;

        private Stream(SseClient client, String label) {
            this.client = client;
            this.label = label;
            String mediaType = Optional.ofNullable(client.header("content-type"))
                    .map(v -> v.split(";")[0].strip().toLowerCase(Locale.ROOT))
                    .orElse("");
            lines.add(normalise("SSE " + label) + " -> " + client.status() + " " + mediaType);
        }

        int status() {
            return client.status();
        }

        /** The rest of an error answer, written down. */
        Answer errorAnswer() {
            String text = client.body().strip();
            lines.add("  body " + normaliseBody(text));
            String mediaType = Optional.ofNullable(client.header("content-type"))
                    .map(v -> v.split(";")[0].strip().toLowerCase(Locale.ROOT))
                    .orElse("");
            return new Answer(client.status(), mediaType, Map.of(), text);
        }

        Optional<String> retry() {
            return client.retry();
        }

        /** The next {@code count} events, each written down; fails when the stream ends first. */
        List<SseClient.Event> take(int count) {
            List<SseClient.Event> events = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                SseClient.Event event = client.next()
                        .orElseThrow(() -> new AssertionError("SSE " + label + " ended after " + events.size() + " of "
                                + count + " events: " + events));
                event.id().filter(id -> id.startsWith("v1.")).ifPresent(id -> topicId(id.split("\\.")[1]));
                lines.add("  event " + event.name() + " id="
                        + event.id().map(GatewayTranscript.this::normalise).orElse("-") + " "
                        + normaliseBody(event.data()));
                events.add(event);
            }
            return events;
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
