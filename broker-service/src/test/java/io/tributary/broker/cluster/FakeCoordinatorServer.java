package io.tributary.broker.cluster;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tributary.broker.cluster.ControlPlaneJson.BrokerJson;
import io.tributary.broker.cluster.ControlPlaneJson.CreateTopicRequest;
import io.tributary.broker.cluster.ControlPlaneJson.EndpointJson;
import io.tributary.broker.cluster.ControlPlaneJson.HeartbeatRequest;
import io.tributary.broker.cluster.ControlPlaneJson.MetadataJson;
import io.tributary.broker.cluster.ControlPlaneJson.PartitionJson;
import io.tributary.broker.cluster.ControlPlaneJson.RegisterBrokerRequest;
import io.tributary.broker.cluster.ControlPlaneJson.TopicJson;
import io.tributary.broker.cluster.ControlPlaneJson.TopicWriteJson;
import io.tributary.broker.cluster.ControlPlaneJson.VersionJson;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link FakeControlPlane} served over HTTP/JSON with the coordinators' paths, bodies and problem
 * types (register, heartbeat, controlled shutdown, the metadata long poll, create and delete topic): what a broker
 * process under test talks to when no real coordinator runs. On 127.0.0.1, a free port.
 */
public final class FakeCoordinatorServer implements AutoCloseable {

    private static final Pattern HEARTBEAT = Pattern.compile("/internal/v1/brokers/(\\d+)/heartbeat");
    private static final Pattern SHUTDOWN = Pattern.compile("/internal/v1/brokers/(\\d+)/shutdown");
    private static final Pattern TOPIC = Pattern.compile("/internal/v1/topics/([^/]+)");

    private final FakeControlPlane coordinator;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final JsonMapper json = new JsonMapper();

    public FakeCoordinatorServer(FakeControlPlane coordinator) throws IOException {
        this.coordinator = coordinator;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(executor);
        server.createContext("/internal/v1/", this::handle);
        server.start();
    }

    public FakeControlPlane coordinator() {
        return coordinator;
    }

    /** {@code 127.0.0.1:port}, for {@code tributary.broker.coordinators}. */
    public String address() {
        return "127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getRawPath();
            Object answer;
            int status = 200;
            try {
                Matcher heartbeat = HEARTBEAT.matcher(path);
                Matcher shutdown = SHUTDOWN.matcher(path);
                Matcher topic = TOPIC.matcher(path);
                if (method.equals("POST") && path.equals("/internal/v1/brokers")) {
                    var r = json.readValue(body, RegisterBrokerRequest.class);
                    answer = new VersionJson(coordinator.register(
                            r.brokerId(),
                            ControlPlaneJson.uuid(r.incarnationId()),
                            r.rack(),
                            r.endpoints().stream().map(EndpointJson::toEndpoint).toList()));
                } else if (method.equals("POST") && heartbeat.matches()) {
                    var r = json.readValue(body, HeartbeatRequest.class);
                    answer = new VersionJson(coordinator.heartbeat(
                            Integer.parseInt(heartbeat.group(1)), ControlPlaneJson.uuid(r.incarnationId())));
                } else if (method.equals("POST") && shutdown.matches()) {
                    var r = json.readValue(body, HeartbeatRequest.class);
                    answer = new VersionJson(coordinator.shutdown(
                            Integer.parseInt(shutdown.group(1)),
                            ControlPlaneJson.uuid(r.incarnationId()),
                            Duration.ofSeconds(30)));
                } else if (method.equals("GET") && path.equals("/internal/v1/metadata")) {
                    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
                    OptionalLong after = query.containsKey("after")
                            ? OptionalLong.of(Long.parseLong(query.get("after")))
                            : OptionalLong.empty();
                    long waitMs = Long.parseLong(query.getOrDefault("max_wait_ms", "0"));
                    answer = metadataJson(coordinator.fetchMetadata(after, Duration.ofMillis(waitMs)));
                } else if (method.equals("GET") && path.equals("/internal/v1/cluster")) {
                    answer = clusterJson(coordinator.groupCoordinator());
                } else if (method.equals("POST") && path.equals("/internal/v1/topics")) {
                    var r = json.readValue(body, CreateTopicRequest.class);
                    var write = coordinator.createTopic(
                            r.name(),
                            r.partitions(),
                            r.replicationFactor(),
                            r.configs() == null ? Map.of() : r.configs());
                    answer = new TopicWriteJson(write.version(), topicJson(write.topic()));
                    status = 201;
                } else if (method.equals("DELETE") && topic.matches()) {
                    answer = new VersionJson(
                            coordinator.deleteTopic(URLDecoder.decode(topic.group(1), StandardCharsets.UTF_8)));
                } else {
                    answer = null;
                    status = 404;
                }
            } catch (ControlPlaneException e) {
                problem(exchange, e);
                return;
            }
            if (answer == null) {
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            byte[] bytes = json.writeValueAsBytes(answer);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    private void problem(HttpExchange exchange, ControlPlaneException e) throws IOException {
        String slug;
        int status;
        switch (e.kind()) {
            case TOPIC_EXISTS -> {
                slug = "topic-exists";
                status = 409;
            }
            case UNKNOWN_TOPIC -> {
                slug = "unknown-topic";
                status = 404;
            }
            case UNKNOWN_BROKER -> {
                slug = "unknown-broker";
                status = 404;
            }
            case STALE_EPOCH -> {
                slug = "stale-epoch";
                status = 409;
            }
            case INVALID_REPLICATION_FACTOR -> {
                slug = "invalid-replication-factor";
                status = 400;
            }
            case UNAVAILABLE -> {
                slug = "no-leader";
                status = 503;
            }
            default -> {
                slug = "invalid-request";
                status = 400;
            }
        }
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("type", HttpControlPlane.PROBLEM_TYPE_PREFIX + slug);
        problem.put("title", slug);
        problem.put("status", status);
        problem.put("detail", e.getMessage());
        byte[] bytes = json.writeValueAsBytes(problem);
        exchange.getResponseHeaders().add("Content-Type", "application/problem+json");
        if (status == 503) {
            exchange.getResponseHeaders().add("Retry-After", "1");
        }
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> params = new LinkedHashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    params.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
            }
        }
        return params;
    }

    /** The coordinators' cluster answer: one voter, the leader, at the group coordinator's address. */
    private static Map<String, Object> clusterJson(java.util.Optional<ControlPlane.GroupCoordinator> leader) {
        Map<String, Object> cluster = new LinkedHashMap<>();
        cluster.put("version", 1);
        cluster.put(
                "leaderId",
                leader.map(ControlPlane.GroupCoordinator::coordinatorId).orElse(null));
        cluster.put(
                "coordinators",
                leader.map(c -> {
                            Map<String, Object> voter = new LinkedHashMap<>();
                            voter.put("id", c.coordinatorId());
                            voter.put("httpAddress", "127.0.0.1:8091");
                            voter.put("raftAddress", "127.0.0.1:9291");
                            voter.put("kafkaAddress", c.host() + ":" + c.port());
                            voter.put("leader", true);
                            return java.util.List.of(voter);
                        })
                        .orElse(java.util.List.of()));
        cluster.put("brokers", java.util.List.of());
        return cluster;
    }

    private static MetadataJson metadataJson(MetadataDelta delta) {
        return new MetadataJson(
                delta.version(),
                delta.full(),
                delta.brokers().stream()
                        .map(b -> new BrokerJson(
                                b.id(),
                                ControlPlaneJson.uuid(b.incarnationId()),
                                b.endpoints().stream().map(EndpointJson::of).toList(),
                                b.rack(),
                                b.fenced()))
                        .toList(),
                delta.topics().stream().map(FakeCoordinatorServer::topicJson).toList(),
                delta.deletedTopics(),
                delta.scramCredentials().map(FakeCoordinatorServer::scramJson).orElse(null),
                delta.acls()
                        .map(acls -> acls.bindings().stream()
                                .map(ControlPlaneJson.AclJson::of)
                                .toList())
                        .orElse(null),
                delta.clientQuotas().map(ControlPlaneJson.ClientQuotaJson::of).orElse(null));
    }

    private static java.util.List<ControlPlaneJson.ScramUserJson> scramJson(ScramUsers users) {
        return users.users().entrySet().stream()
                .map(u -> new ControlPlaneJson.ScramUserJson(
                        u.getKey(),
                        u.getValue().entrySet().stream()
                                .map(c -> new ControlPlaneJson.ScramCredentialJson(
                                        c.getKey(),
                                        c.getValue().salt(),
                                        c.getValue().storedKey(),
                                        c.getValue().serverKey(),
                                        c.getValue().iterations()))
                                .toList()))
                .toList();
    }

    private static TopicJson topicJson(TopicInfo t) {
        return new TopicJson(
                t.name(),
                ControlPlaneJson.uuid(t.id()),
                t.configs(),
                t.partitions().stream()
                        .map(p -> new PartitionJson(
                                p.partition(), p.replicas(), p.leader(), p.leaderEpoch(), p.isr(), p.partitionEpoch()))
                        .toList());
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
