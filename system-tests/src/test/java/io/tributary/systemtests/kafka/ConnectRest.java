package io.tributary.systemtests.kafka;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The few calls of Kafka Connect's REST API that {@code ConnectDistributedIT} makes, over
 * java.net.http, on one worker (a worker forwards what only the group's leader may do). Every call
 * throws {@link IllegalStateException} with the status and body unless the worker answers as
 * expected; the caller retries where Connect says to (409 while the group rebalances).
 */
final class ConnectRest {

    private static final JsonMapper json = JsonMapper.builder().build();

    /** One request's limit: a safety net, not an assertion on speed. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String baseUrl;

    ConnectRest(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** A task's status: its index, state and the worker ({@code host:port}) running it. */
    record TaskStatus(int id, String state, String workerId) {}

    /** A connector's status ({@code GET /connectors?expand=status}): its own, and its tasks'. */
    record ConnectorStatus(String name, String type, String state, String workerId, List<TaskStatus> tasks) {}

    /**
     * {@code POST /connectors}: creates a connector; a 409 "already exists" (a retried request that
     * had been carried out) counts as created.
     */
    void createConnector(String name, Map<String, String> config) throws IOException, InterruptedException {
        ObjectNode body = json.createObjectNode();
        body.put("name", name);
        ObjectNode settings = body.putObject("config");
        config.forEach(settings::put);
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl + "/connectors"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))));
        if (response.statusCode() == 201
                || (response.statusCode() == 409 && response.body().contains("already exists"))) {
            return;
        }
        throw unexpected("POST /connectors " + name, response);
    }

    /** Every connector's status, by name. */
    Map<String, ConnectorStatus> statuses() throws IOException, InterruptedException {
        JsonNode all = getJson("/connectors?expand=status");
        Map<String, ConnectorStatus> statuses = new TreeMap<>();
        for (Map.Entry<String, JsonNode> entry : all.properties()) {
            JsonNode status = entry.getValue().get("status");
            List<TaskStatus> tasks = new ArrayList<>();
            for (JsonNode task : status.get("tasks")) {
                tasks.add(new TaskStatus(
                        task.get("id").asInt(),
                        task.get("state").asString(),
                        task.get("worker_id").asString()));
            }
            JsonNode connector = status.get("connector");
            statuses.put(
                    entry.getKey(),
                    new ConnectorStatus(
                            entry.getKey(),
                            status.get("type").asString(),
                            connector.get("state").asString(),
                            connector.get("worker_id").asString(),
                            List.copyOf(tasks)));
        }
        return statuses;
    }

    /**
     * A source connector's committed offsets ({@code GET /connectors/{name}/offsets}, KIP-875): each
     * source partition's offset, both as JSON text, e.g. {@code {"range":"0"} -> {"next":500}}.
     */
    Map<String, String> sourceOffsets(String connector) throws IOException, InterruptedException {
        Map<String, String> offsets = new TreeMap<>();
        for (JsonNode entry : getJson("/connectors/" + connector + "/offsets").get("offsets")) {
            offsets.put(entry.get("partition").toString(), entry.get("offset").toString());
        }
        return offsets;
    }

    private JsonNode getJson(String path) throws IOException, InterruptedException {
        HttpResponse<String> response =
                send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET());
        if (response.statusCode() != 200) {
            throw unexpected("GET " + path, response);
        }
        return json.readTree(response.body());
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(REQUEST_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
    }

    private IllegalStateException unexpected(String call, HttpResponse<String> response) {
        return new IllegalStateException(
                call + " on " + baseUrl + ": " + response.statusCode() + " " + response.body());
    }
}
