package io.tributary.systemtests.cluster;

import io.tributary.systemtests.ScriptedCluster;
import io.tributary.systemtests.kafka.Clients;
import io.tributary.systemtests.kafka.KafkaTargets;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.awaitility.Awaitility;

/**
 * A Tributary cluster of three coordinators (so that the group coordinator, the coordinators' Raft
 * leader, can fail over), three brokers and the gateway, started by the real {@code bin/tributary
 * up --coordinators 3 --brokers 3} on a free port offset, data in a temporary directory, logs in
 * {@code target/multi-broker-tributary-logs}. Processes are killed and started with {@code
 * bin/tributary kill} and {@code start} (by the PID it recorded).
 *
 * <p>Its timeouts mirror the Apache Kafka reference's ({@link ApacheKafkaClusterTarget}): a broker
 * is fenced after 6 s without a heartbeat ({@code tributary.coordinator.metadata.session-timeout},
 * and the broker's own {@code tributary.broker.cluster.session-timeout}; Kafka's {@code
 * broker.session.timeout.ms}), a follower 5 s behind leaves the ISR ({@code
 * tributary.broker.replication.lag-time-max}; {@code replica.lag.time.max.ms}), and group members
 * heartbeat every second and expire after 10 s ({@code tributary.coordinator.groups.*}; {@code
 * group.consumer.*}). The coordinators' Raft election timeout is Kafka's KRaft default, 1 to 2 s
 * ({@code tributary.coordinator.metadata.election-timeout-min=1s}; {@code
 * controller.quorum.election.timeout.ms}), rather than their own 150 ms: on a loaded 2-core machine
 * a 150 ms timeout moved the Raft leader, and with it the group coordinator, in the middle of
 * scenarios that did not ask for it.
 */
final class TributaryClusterTarget implements ClusterTarget {

    static final int BROKERS = 3;
    static final int COORDINATORS = 3;

    private final ScriptedCluster cluster;
    private final Set<String> stopped = ConcurrentHashMap.newKeySet();
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private TributaryClusterTarget(ScriptedCluster cluster) {
        this.cluster = cluster;
    }

    static TributaryClusterTarget start() throws IOException {
        Path work = Files.createTempDirectory("systest-multi-broker-");
        List<Integer> basePorts = new ArrayList<>(List.of(8080));
        for (int i = 0; i < BROKERS; i++) {
            basePorts.addAll(List.of(8081 + i, 9092 + i));
        }
        for (int i = 0; i < COORDINATORS; i++) {
            basePorts.addAll(List.of(8091 + i, 9191 + i, 9291 + i));
        }
        // Seven JVMs beside the test's and Kafka's four on a small machine: a small heap each.
        String javaOptions = String.join(
                " ",
                "-Xmx384m",
                "-Dtributary.coordinator.metadata.session-timeout=6s",
                "-Dtributary.coordinator.metadata.election-timeout-min=1s",
                "-Dtributary.broker.cluster.session-timeout=6s",
                "-Dtributary.broker.replication.lag-time-max=5s",
                "-Dtributary.coordinator.groups.session-timeout=10s",
                "-Dtributary.coordinator.groups.heartbeat-interval=1s",
                "-Dtributary.coordinator.groups.streams.initial-rebalance-delay=0s");
        ScriptedCluster cluster = ScriptedCluster.create(
                work,
                "multi-broker-tributary-logs",
                basePorts,
                Map.of("TRIBUTARY_JAVA_OPTS", javaOptions, "TRIBUTARY_STOP_GRACE", "10"));
        var target = new TributaryClusterTarget(cluster);
        cluster.upOrClean("--coordinators", Integer.toString(COORDINATORS), "--brokers", Integer.toString(BROKERS));
        return target;
    }

    @Override
    public KafkaTargets.Kind kind() {
        return KafkaTargets.Kind.TRIBUTARY;
    }

    /** Every broker's address, a stopped one's too. */
    @Override
    public String bootstrapServers() {
        return IntStream.range(0, BROKERS)
                .mapToObj(i -> "127.0.0.1:" + brokerPort(i))
                .collect(Collectors.joining(","));
    }

    @Override
    public Map<Integer, Integer> brokerPorts() {
        return IntStream.range(0, BROKERS)
                .boxed()
                .filter(i -> !stopped.contains(ClusterTarget.broker(i)))
                .collect(Collectors.toUnmodifiableMap(i -> i, this::brokerPort));
    }

    @Override
    public Set<Integer> stoppedBrokers() {
        return IntStream.range(0, BROKERS)
                .boxed()
                .filter(i -> stopped.contains(ClusterTarget.broker(i)))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Override
    public Set<Integer> brokerIds() {
        return Set.of(0, 1, 2);
    }

    @Override
    public String processAt(int port) {
        int base = port - cluster.portOffset();
        if (base >= 9092 && base < 9092 + BROKERS) {
            return ClusterTarget.broker(base - 9092);
        }
        if (base >= 9191 && base < 9191 + COORDINATORS) {
            return "coordinator-" + (base - 9191);
        }
        throw new AssertionError("no process of " + this + " has its Kafka listener on port " + port);
    }

    /**
     * The coordinators' Raft leader, the group coordinator of every group: the one voter whose
     * {@code /actuator/health/metadataRaft} says {@code LEADER}, awaited (an election may be under
     * way).
     */
    @Override
    public String groupCoordinator(Admin admin, String group) {
        String[] leader = new String[1];
        Awaitility.await("one coordinator reports itself the Raft leader")
                .atMost(Clients.PATIENCE)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    List<String> leaders = IntStream.range(0, COORDINATORS)
                            .filter(i -> !stopped.contains("coordinator-" + i) && isRaftLeader(i))
                            .mapToObj(i -> "coordinator-" + i)
                            .toList();
                    leader[0] = leaders.size() == 1 ? leaders.getFirst() : null;
                    return leader[0] != null;
                });
        return leader[0];
    }

    private boolean isRaftLeader(int coordinator) {
        URI health = URI.create(
                "http://127.0.0.1:" + (8091 + coordinator + cluster.portOffset()) + "/actuator/health/metadataRaft");
        try {
            String body = http.send(
                            HttpRequest.newBuilder(health)
                                    .timeout(Duration.ofSeconds(2))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            return body.contains("\"role\":\"LEADER\"");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void kill(String process) {
        ScriptedCluster.Result kill = cluster.run("kill", process);
        if (kill.exitCode() != 0) {
            throw new AssertionError(
                    "bin/tributary kill " + process + " failed (exit " + kill.exitCode() + "):\n" + kill.output());
        }
        stopped.add(process);
    }

    @Override
    public void start(String process) {
        ScriptedCluster.Result start = cluster.run("start", process);
        if (start.exitCode() != 0) {
            throw new AssertionError(
                    "bin/tributary start " + process + " failed (exit " + start.exitCode() + "):\n" + start.output());
        }
        stopped.remove(process);
    }

    @Override
    public Set<String> stoppedProcesses() {
        return Set.copyOf(stopped);
    }

    private int brokerPort(int id) {
        return 9092 + id + cluster.portOffset();
    }

    @Override
    public String gatewayUrl() {
        return "http://127.0.0.1:" + (8080 + cluster.portOffset());
    }

    @Override
    public String logsHint() {
        return "Tributary cluster logs in " + cluster.logsDir() + ", stopped " + stopped;
    }

    @Override
    public void close() {
        cluster.downAndDeleteWork();
    }

    @Override
    public String toString() {
        return "Tributary (3 coordinators, 3 brokers) at " + bootstrapServers();
    }
}
