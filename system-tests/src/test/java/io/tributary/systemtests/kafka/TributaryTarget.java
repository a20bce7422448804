package io.tributary.systemtests.kafka;

import io.tributary.systemtests.ScriptedCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Tributary cluster started by the real {@code bin/tributary up}: one coordinator, {@link
 * #BROKERS} brokers (so that one of them is not the leader of a given partition) and the gateway,
 * on a free port offset, data in a temporary directory, logs in {@code
 * target/kafka-target-tributary-logs}. {@link #close()} runs {@code bin/tributary down} and then
 * kills by PID whatever it left.
 */
final class TributaryTarget implements KafkaTarget {

    private static final Logger log = LoggerFactory.getLogger(TributaryTarget.class);

    /** Brokers in the cluster. */
    static final int BROKERS = 3;

    /**
     * How long to wait, after every process is ready, for the brokers to show up in the cluster's
     * metadata. Best effort: when they do not, the tests fail with what the client saw.
     */
    private static final Duration REGISTRATION_WAIT = Duration.ofSeconds(60);

    private final ScriptedCluster cluster;
    private final Path work;
    private final Map<Integer, Integer> brokerPorts;

    private TributaryTarget(ScriptedCluster cluster, Path work) {
        this.cluster = cluster;
        this.work = work;
        Map<Integer, Integer> ports = new LinkedHashMap<>();
        for (int i = 0; i < BROKERS; i++) {
            ports.put(i, 9092 + i + cluster.portOffset());
        }
        this.brokerPorts = Map.copyOf(ports);
    }

    static TributaryTarget start() throws IOException {
        Path work = Files.createTempDirectory("systest-tributary-");
        List<Integer> basePorts = new ArrayList<>(List.of(8080, 8091, 9191, 9291));
        for (int i = 0; i < BROKERS; i++) {
            basePorts.add(8081 + i);
            basePorts.add(9092 + i);
        }
        // Five JVMs beside the test's and Kafka's on a small machine: half the script's default heap.
        // Groups heartbeat every 1 s and expire after 10 s, as on the Apache Kafka target, so a
        // crashed member's partitions move in seconds (the coordinator's defaults are Kafka's 5 s/45 s;
        // the other processes ignore these keys).
        ScriptedCluster cluster = ScriptedCluster.create(
                work,
                "kafka-target-tributary-logs",
                basePorts,
                Map.of(
                        "TRIBUTARY_JAVA_OPTS",
                        "-Xmx512m -Dtributary.coordinator.groups.session-timeout=10s"
                                + " -Dtributary.coordinator.groups.heartbeat-interval=1s"));
        var target = new TributaryTarget(cluster, work);
        ScriptedCluster.Result up = cluster.run(
                "up",
                "--coordinators",
                "1",
                "--brokers",
                Integer.toString(BROKERS),
                "--data",
                work.resolve("data").toString(),
                "--logs",
                cluster.logsDir().toString());
        if (up.exitCode() != 0) {
            target.close();
            throw new IllegalStateException("bin/tributary up failed (exit " + up.exitCode() + "):\n" + up.output());
        }
        target.awaitBrokersInMetadata();
        return target;
    }

    private void awaitBrokersInMetadata() {
        long deadline = System.nanoTime() + REGISTRATION_WAIT.toNanos();
        String last = "no answer yet";
        try (Admin admin = admin()) {
            while (System.nanoTime() < deadline) {
                try {
                    int nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs(5000))
                            .nodes()
                            .get(10, TimeUnit.SECONDS)
                            .size();
                    if (nodes >= BROKERS) {
                        return;
                    }
                    last = nodes + " broker(s) in the metadata";
                } catch (Exception e) {
                    last = e.toString();
                }
                Thread.sleep(500);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.warn("the {} brokers are not all in the cluster's metadata after {}: {}", BROKERS, REGISTRATION_WAIT, last);
    }

    @Override
    public KafkaTargets.Kind kind() {
        return KafkaTargets.Kind.TRIBUTARY;
    }

    @Override
    public String bootstrapServers() {
        return ports().stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
    }

    @Override
    public Map<Integer, Integer> brokerPorts() {
        return brokerPorts;
    }

    @Override
    public String gatewayUrl() {
        return "http://127.0.0.1:" + (8080 + cluster.portOffset());
    }

    @Override
    public String logsHint() {
        return "Tributary cluster logs in " + cluster.logsDir();
    }

    @Override
    public void close() {
        try {
            cluster.downAndKillLeftovers();
        } finally {
            try (Stream<Path> paths = Files.walk(work)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory left behind is harmless
            }
        }
    }

    @Override
    public String toString() {
        return "Tributary at " + bootstrapServers();
    }
}
