package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.systemtests.ScriptedCluster.Result;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Drives the real {@code bin/tributary} against the jars the reactor just packaged: {@code up} with
 * one coordinator and three brokers, {@code status}, {@code kill} and {@code start} of one broker,
 * {@code down}. The cluster runs beside any developer cluster: its run state and data live in a
 * temporary directory and every port is shifted by a {@code TRIBUTARY_PORT_OFFSET} whose ports were
 * free. The tests run in order on the one cluster; {@link #tearDown()} always runs {@code down} and
 * then kills by PID whatever it left behind.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalClusterScriptIT {

    private static final Logger log = LoggerFactory.getLogger(LocalClusterScriptIT.class);

    private static final JsonMapper JSON = new JsonMapper();

    private static final List<String> NAMES = List.of("coordinator-0", "broker-0", "broker-1", "broker-2", "gateway-0");

    @TempDir
    static Path work;

    private static ScriptedCluster cluster;
    private static Path dataDir;
    private static Path logsDir;
    private static int portOffset;
    private static final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @BeforeAll
    static void chooseDirectoriesAndPorts() throws IOException {
        List<Integer> ports = new ArrayList<>(List.of(8080, 8091, 9191, 9291));
        for (int i = 0; i < 3; i++) {
            ports.add(8081 + i);
            ports.add(9092 + i);
        }
        cluster = ScriptedCluster.create(work, "local-cluster-script-logs", ports, Map.of());
        dataDir = work.resolve("data");
        logsDir = cluster.logsDir();
        portOffset = cluster.portOffset();
    }

    @AfterAll
    static void tearDown() {
        cluster.downAndKillLeftovers();
    }

    @Test
    @Order(0)
    void anUnknownCommandExitsNonZeroWithTheUsage() {
        Result result = tributary("frobnicate");

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.output()).contains("unknown command 'frobnicate'", "Usage: bin/tributary");
    }

    @Test
    @Order(0)
    void upRefusesZeroBrokersAndStartsNothing() {
        Path otherState = work.resolve("refused-state");
        Map<String, String> env = Map.of("TRIBUTARY_STATE", otherState.toString());

        Result result = tributary(
                env,
                "up",
                "--brokers",
                "0",
                "--data",
                work.resolve("refused-data").toString());

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.output()).contains("--brokers must be 1..9");
        Result status = tributary(env, "status");
        assertThat(status.exitCode()).isNotZero();
        assertThat(status.output()).contains("no cluster is recorded");
        assertThat(work.resolve("refused-data")).doesNotExist();
    }

    @Test
    @Order(0)
    void upRefusesFourGatewaysAndStartsNothing() {
        Path otherState = work.resolve("refused-gateways-state");
        Map<String, String> env = Map.of("TRIBUTARY_STATE", otherState.toString());

        Result result = tributary(
                env,
                "up",
                "--gateways",
                "4",
                "--data",
                work.resolve("refused-gateways-data").toString());

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.output()).contains("--gateways must be 1..3");
        assertThat(tributary(env, "status").output()).contains("no cluster is recorded");
        assertThat(work.resolve("refused-gateways-data")).doesNotExist();
    }

    @Test
    @Order(0)
    void upRefusesABadPlacementAndStartsNothing() {
        Path otherState = work.resolve("refused-placement-state");
        Path data = work.resolve("refused-placement-data");

        Result unknownName = tributary(
                Map.of("TRIBUTARY_STATE", otherState.toString(), "TRIBUTARY_HOSTS", "broker-x=127.0.0.2"),
                "up",
                "--data",
                data.toString());
        Result missingNamespace = tributary(
                Map.of(
                        "TRIBUTARY_STATE",
                        otherState.toString(),
                        "TRIBUTARY_NETNS",
                        "broker-0=tributary-no-such-netns-"
                                + ProcessHandle.current().pid()),
                "up",
                "--data",
                data.toString());

        assertThat(unknownName.exitCode()).isNotZero();
        assertThat(unknownName.output()).contains("TRIBUTARY_HOSTS: 'broker-x=127.0.0.2' is not NAME=ADDRESS");
        assertThat(missingNamespace.exitCode()).isNotZero();
        assertThat(missingNamespace.output()).contains("network namespace 'tributary-no-such-netns-", "does not exist");
        assertThat(tributary(Map.of("TRIBUTARY_STATE", otherState.toString()), "status")
                        .output())
                .contains("no cluster is recorded");
        assertThat(data).doesNotExist();
    }

    @Test
    @Order(1)
    void upBringsOneCoordinatorThreeBrokersAndTheGatewayToReady() {
        Result result = tributary(
                "up",
                "--coordinators",
                "1",
                "--brokers",
                "3",
                "--data",
                dataDir.toString(),
                "--logs",
                logsDir.toString());

        assertThat(result.exitCode()).as(result.output()).isZero();
        for (String name : NAMES) {
            assertThat(result.output()).contains(name + " ready after");
        }
        assertThat(result.output())
                .contains("all 5 processes ready", "http://127.0.0.1:" + (8080 + portOffset) + "/swagger-ui.html");
    }

    @Test
    @Order(2)
    void statusListsAllFiveAsRunningAndReadyOnTheirPorts() {
        Map<String, StatusRow> status = status();

        assertThat(status).containsOnlyKeys(NAMES);
        for (StatusRow row : status.values()) {
            assertThat(row.state()).as(row.name()).isEqualTo("running");
            assertThat(row.ready()).as(row.name()).isEqualTo("yes");
            assertThat(isAlive(row.pid())).as(row.name() + " pid " + row.pid()).isTrue();
            assertThat(row.httpPort()).as(row.name()).isEqualTo(httpPort(row.name()));
            assertThat(row.kafkaPort()).as(row.name()).isEqualTo(kafkaPort(row.name()));
        }
    }

    @Test
    @Order(3)
    void everyReadinessEndpointAnswersUp() throws Exception {
        for (String name : NAMES) {
            HttpResponse<String> response = readiness(httpPort(name));

            assertThat(response.statusCode()).as(name).isEqualTo(200);
            assertThat(response.body()).as(name).contains("\"status\":\"UP\"");
        }
    }

    @Test
    @Order(4)
    void everyBrokerAndTheCoordinatorAnswerApiVersionsOnTheirKafkaPorts() throws IOException {
        for (String name : NAMES) {
            if (name.startsWith("gateway")) {
                continue;
            }
            ApiVersionsResponse response = apiVersions(kafkaPort(name));

            assertThat(Errors.forCode(response.data().errorCode())).as(name).isEqualTo(Errors.NONE);
            assertThat(response.data().apiKeys().find(ApiKeys.API_VERSIONS.id))
                    .as(name + " advertises ApiVersions")
                    .isNotNull();
        }
    }

    @Test
    @Order(4)
    void everyBrokerIsRegisteredUnfencedWithTheCoordinatorAtItsKafkaPort() throws Exception {
        JsonNode brokers = clusterBrokers();

        assertThat(brokers.size()).as(brokers.toString()).isEqualTo(3);
        for (JsonNode broker : brokers) {
            String name = "broker-" + broker.get("id").asInt();
            assertThat(broker.get("fenced").asBoolean()).as(name + " fenced").isFalse();
            assertThat(broker.at("/endpoints/0/listener").asString()).as(name).isEqualTo("PLAINTEXT");
            assertThat(broker.at("/endpoints/0/host").asString()).as(name).isEqualTo("127.0.0.1");
            assertThat(broker.at("/endpoints/0/port").asInt()).as(name).isEqualTo(kafkaPort(name));
        }
    }

    @Test
    @Order(4)
    void everyBrokerFollowsATopicWriteToItsVersion() throws Exception {
        var create = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + httpPort("coordinator-0") + "/internal/v1/topics"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"name\":\"membership-check\",\"partitions\":3,\"replicationFactor\":2}"))
                .build();
        HttpResponse<String> created = http.send(create, HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        long version = JSON.readTree(created.body()).get("version").asLong();

        for (String name : List.of("broker-0", "broker-1", "broker-2")) {
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(
                                    JSON.readTree(readiness(httpPort(name)).body())
                                            .at("/components/brokerRegistration/details/metadataVersion")
                                            .asLong())
                            .as(name + " metadata version")
                            .isGreaterThanOrEqualTo(version));
        }
    }

    @Test
    @Order(5)
    void killLeavesTheBrokerDeadAndStatusShowsItNotRunning() {
        long pid = status().get("broker-1").pid();

        Result kill = tributary("kill", "broker-1");

        assertThat(kill.exitCode()).as(kill.output()).isZero();
        assertThat(isAlive(pid)).as("broker-1 pid " + pid + " after kill").isFalse();
        StatusRow row = status().get("broker-1");
        assertThat(row.state()).isEqualTo("stopped");
        assertThat(row.ready()).isEqualTo("no");
        assertThat(status().get("broker-0").state()).isEqualTo("running");
    }

    @Test
    @Order(5)
    void theCoordinatorFencesTheKilledBrokerOnceItsSessionTimesOut() {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(broker(1).get("fenced").asBoolean())
                        .as("broker-1 fenced")
                        .isTrue());
    }

    @Test
    @Order(6)
    void startBringsTheKilledBrokerBackToReady() throws Exception {
        long killedPid = status().get("broker-1").pid();

        Result start = tributary("start", "broker-1");

        assertThat(start.exitCode()).as(start.output()).isZero();
        StatusRow row = status().get("broker-1");
        assertThat(row.state()).isEqualTo("running");
        assertThat(row.ready()).isEqualTo("yes");
        assertThat(row.pid()).isNotEqualTo(killedPid);
        assertThat(readiness(httpPort("broker-1")).statusCode()).isEqualTo(200);
        assertThat(apiVersions(kafkaPort("broker-1")).data().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(broker(1).get("fenced").asBoolean())
                .as("the new incarnation is unfenced (readiness waits for it)")
                .isFalse();
    }

    @Test
    @Order(7)
    void downLeavesNoneOfTheRecordedProcessesAlive() {
        Map<String, StatusRow> before = status();
        assertThat(before).containsOnlyKeys(NAMES);

        Result down = tributary("down");

        assertThat(down.exitCode()).as(down.output()).isZero();
        assertThat(cluster.pidsSeen()).hasSizeGreaterThanOrEqualTo(NAMES.size() + 1);
        for (long pid : cluster.pidsSeen().keySet()) {
            assertThat(isAlive(pid)).as("pid " + pid + " after down").isFalse();
        }
        Result status = tributary("status");
        assertThat(status.exitCode()).isNotZero();
        assertThat(status.output()).contains("no cluster is recorded");
    }

    // ---- bin/tributary ----------------------------------------------------------------------

    record StatusRow(String name, long pid, String state, String ready, int httpPort, int kafkaPort) {}

    private static Result tributary(String... args) {
        return cluster.run(args);
    }

    private static Result tributary(Map<String, String> env, String... args) {
        return cluster.run(env, args);
    }

    /** {@code bin/tributary status}, parsed by its columns. */
    private static Map<String, StatusRow> status() {
        Result result = tributary("status");
        Map<String, StatusRow> rows = new LinkedHashMap<>();
        List<String> lines = result.output().lines().toList();
        assertThat(lines).as(result.output()).isNotEmpty();
        assertThat(lines.getFirst().split("\\s+"))
                .as("status header")
                .containsExactly("NAME", "PID", "STATE", "READY", "HTTP", "KAFKA", "RAFT");
        for (String line : lines.subList(1, lines.size())) {
            String[] columns = line.trim().split("\\s+");
            assertThat(columns).as(line).hasSize(7);
            var row = new StatusRow(
                    columns[0],
                    Long.parseLong(columns[1]),
                    columns[2],
                    columns[3],
                    Integer.parseInt(columns[4]),
                    columns[5].equals("-") ? -1 : Integer.parseInt(columns[5]));
            rows.put(row.name(), row);
            remember(row.pid());
        }
        return rows;
    }

    // ---- ports ------------------------------------------------------------------------------

    private static int httpPort(String name) {
        int index = index(name);
        return portOffset
                + switch (kind(name)) {
                    case "gateway" -> 8080;
                    case "broker" -> 8081 + index;
                    default -> 8091 + index;
                };
    }

    private static int kafkaPort(String name) {
        int index = index(name);
        return switch (kind(name)) {
            case "gateway" -> -1;
            case "broker" -> portOffset + 9092 + index;
            default -> portOffset + 9191 + index;
        };
    }

    private static String kind(String name) {
        return name.substring(0, name.lastIndexOf('-'));
    }

    private static int index(String name) {
        return Integer.parseInt(name.substring(name.lastIndexOf('-') + 1));
    }

    // ---- probes -----------------------------------------------------------------------------

    private static HttpResponse<String> readiness(int port) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness"))
                .timeout(Duration.ofSeconds(10))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The brokers the coordinator knows ({@code GET /internal/v1/cluster}). */
    private static JsonNode clusterBrokers() throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + httpPort("coordinator-0") + "/internal/v1/cluster"))
                .timeout(Duration.ofSeconds(10))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body()).get("brokers");
    }

    private static JsonNode broker(int id) throws IOException, InterruptedException {
        for (JsonNode broker : clusterBrokers()) {
            if (broker.get("id").asInt() == id) {
                return broker;
            }
        }
        throw new AssertionError("the coordinator does not know broker " + id);
    }

    /** One ApiVersions round trip over a raw socket: a size-prefixed request, a size-prefixed response. */
    private static ApiVersionsResponse apiVersions(int port) throws IOException {
        ApiVersionsRequest request = new ApiVersionsRequest.Builder().build();
        var header = new RequestHeader(ApiKeys.API_VERSIONS, request.version(), "tributary-system-test", 7);
        ByteBuffer serialized = request.serializeWithHeader(header);
        byte[] frame = new byte[serialized.remaining()];
        serialized.get(frame);
        try (var socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            socket.setSoTimeout(10_000);
            var out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(frame.length);
            out.write(frame);
            out.flush();
            var in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            assertThat(size).as("response size from port " + port).isBetween(1, 1 << 20);
            byte[] response = new byte[size];
            in.readFully(response);
            AbstractResponse parsed = AbstractResponse.parseResponse(ByteBuffer.wrap(response), header);
            assertThat(parsed).isInstanceOf(ApiVersionsResponse.class);
            return (ApiVersionsResponse) parsed;
        }
    }

    // ---- processes --------------------------------------------------------------------------

    private static boolean isAlive(long pid) {
        return cluster.isAlive(pid);
    }

    private static void remember(long pid) {
        cluster.remember(pid);
    }
}
