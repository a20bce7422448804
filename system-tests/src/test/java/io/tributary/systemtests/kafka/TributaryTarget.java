package io.tributary.systemtests.kafka;

import io.tributary.systemtests.ScriptedCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.awaitility.Awaitility;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Tributary cluster started by the real {@code bin/tributary up}: one coordinator, {@link
 * #BROKERS} brokers (so that one of them is not the leader of a given partition) and the gateway,
 * on a free port offset, data in a temporary directory, logs in {@code
 * target/kafka-target-<kind>-logs}. {@link #close()} runs {@code bin/tributary down} and then
 * kills by PID whatever it left.
 *
 * <p>The {@link KafkaTargets.Kind#TRIBUTARY_DEGRADED} kind is the same cluster with Kafka's
 * durable settings as the brokers' defaults ({@code default.replication.factor} 3, {@code
 * min.insync.replicas} 2) and broker {@link #DEGRADED_VICTIM} down for the whole run: before any
 * test runs, a canary topic with replication factor 3 (one partition led by each broker) is
 * created, the victim gets SIGKILL ({@code bin/tributary kill}), and the target is ready once the
 * coordinator has fenced it and moved the leadership of its canary partition to a live replica. The
 * tests' topics, created afterwards with the default replication factor, hold 3 replicas of which
 * the dead broker is one (placed last, outside the ISR, as Kafka's KRaft placement does), so
 * every write with acks=all has exactly {@code min.insync.replicas} in-sync replicas.
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

    /**
     * The broker the degraded kind kills: broker 0, the first address of the bootstrap list, so
     * that every client also has to get past a dead bootstrap server.
     */
    static final int DEGRADED_VICTIM = 0;

    /** The degraded kind's cluster defaults: Kafka's durable settings for a 3-broker cluster. */
    static final int DEGRADED_REPLICATION_FACTOR = 3;

    static final int DEGRADED_MIN_INSYNC_REPLICAS = 2;

    private final KafkaTargets.Kind kind;
    private final ScriptedCluster cluster;
    private final Map<Integer, Integer> allBrokerPorts;
    private volatile Set<Integer> stopped = Set.of();

    private TributaryTarget(KafkaTargets.Kind kind, ScriptedCluster cluster) {
        this.kind = kind;
        this.cluster = cluster;
        Map<Integer, Integer> ports = new LinkedHashMap<>();
        for (int i = 0; i < BROKERS; i++) {
            ports.put(i, 9092 + i + cluster.portOffset());
        }
        this.allBrokerPorts = Map.copyOf(ports);
    }

    static TributaryTarget start(KafkaTargets.Kind kind) throws Exception {
        boolean degraded = kind == KafkaTargets.Kind.TRIBUTARY_DEGRADED;
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
        String javaOptions = "-Xmx512m -Dtributary.coordinator.groups.session-timeout=10s"
                + " -Dtributary.coordinator.groups.heartbeat-interval=1s"
                + " -Dtributary.coordinator.groups.streams.initial-rebalance-delay=0s"
                // CompactionIT waits for cleaners and for a restarted broker's preferred leadership:
                // the cleaner runs every 250 ms (as log.cleaner.backoff.ms on the Kafka target; a
                // round skips every topic that does not compact) and a broker back for 1 s leads its
                // preferred partitions again (no other test restarts a broker of these targets)
                + " -Dtributary.broker.log-cleaner.backoff=250ms"
                + " -Dtributary.coordinator.metadata.preferred-leader-delay=1s";
        if (degraded) {
            javaOptions += " -Dtributary.broker.admin.default-replication-factor=" + DEGRADED_REPLICATION_FACTOR
                    + " -Dtributary.broker.log.min-insync-replicas=" + DEGRADED_MIN_INSYNC_REPLICAS;
        }
        ScriptedCluster cluster = ScriptedCluster.create(
                work,
                "kafka-target-" + kind.name().toLowerCase(Locale.ROOT).replace('_', '-') + "-logs",
                basePorts,
                Map.of("TRIBUTARY_JAVA_OPTS", javaOptions));
        var target = new TributaryTarget(kind, cluster);
        cluster.upOrClean("--coordinators", "1", "--brokers", Integer.toString(BROKERS));
        target.awaitBrokersInMetadata();
        if (degraded) {
            try {
                target.killOneBroker();
            } catch (Exception | AssertionError e) {
                target.close();
                throw e;
            }
        }
        return target;
    }

    /**
     * The degraded kind's fault: a canary topic with replication factor 3 and one partition per
     * broker (so the victim leads one), then SIGKILL of {@link #DEGRADED_VICTIM}; returns once the
     * coordinator has fenced it (it is gone from DescribeCluster) and every canary partition has a
     * live leader and an ISR without it.
     */
    private void killOneBroker() throws Exception {
        String canary = "degraded-canary";
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(canary, BROKERS, (short) DEGRADED_REPLICATION_FACTOR)))
                    .all()
                    .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            TopicDescription before = Clients.awaitLeaders(admin, canary, BROKERS);
            log.info("canary before the kill: {}", before);
            if (before.partitions().stream().noneMatch(p -> p.leader().id() == DEGRADED_VICTIM)) {
                throw new IllegalStateException("broker " + DEGRADED_VICTIM
                        + " leads no canary partition, so its kill would move no leadership: " + before);
            }
            ScriptedCluster.Result kill = cluster.run("kill", "broker-" + DEGRADED_VICTIM);
            if (kill.exitCode() != 0) {
                throw new IllegalStateException("bin/tributary kill broker-" + DEGRADED_VICTIM + " failed (exit "
                        + kill.exitCode() + "):\n" + kill.output());
            }
            stopped = Set.of(DEGRADED_VICTIM);
            TopicDescription[] after = new TopicDescription[1];
            Awaitility.await("broker " + DEGRADED_VICTIM + " fenced and out of the canary's leaders and ISRs")
                    .atMost(Clients.PATIENCE)
                    .pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions()
                    .until(() -> {
                        Set<Integer> nodes = admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream()
                                .map(Node::id)
                                .collect(Collectors.toSet());
                        after[0] = admin.describeTopics(Set.of(canary))
                                .allTopicNames()
                                .get(10, TimeUnit.SECONDS)
                                .get(canary);
                        return !nodes.contains(DEGRADED_VICTIM)
                                && after[0].partitions().stream()
                                        .allMatch(p -> p.leader() != null
                                                && !p.leader().isEmpty()
                                                && p.leader().id() != DEGRADED_VICTIM
                                                && p.isr().stream().noneMatch(n -> n.id() == DEGRADED_VICTIM));
                    });
            log.info("canary after the kill of broker {}: {}", DEGRADED_VICTIM, after[0]);
        }
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

    /**
     * Stops broker {@code id} cleanly ({@code bin/tributary stop}: SIGTERM, so the coordinator moves
     * its leaderships before it exits); it counts as stopped until {@link #startBroker} brings it
     * back. A test that stops a broker of this shared target must start it again, also on failure.
     */
    void stopBroker(int id) {
        ScriptedCluster.Result stop = cluster.run("stop", "broker-" + id);
        if (stop.exitCode() != 0) {
            throw new AssertionError(
                    "bin/tributary stop broker-" + id + " failed (exit " + stop.exitCode() + "):\n" + stop.output());
        }
        stopped = Stream.concat(stopped.stream(), Stream.of(id)).collect(Collectors.toUnmodifiableSet());
    }

    /** Starts broker {@code id} again on its ports and data; returns once it is ready. */
    void startBroker(int id) {
        ScriptedCluster.Result start = cluster.run("start", "broker-" + id);
        if (start.exitCode() != 0) {
            throw new AssertionError(
                    "bin/tributary start broker-" + id + " failed (exit " + start.exitCode() + "):\n" + start.output());
        }
        stopped = stopped.stream().filter(b -> b != id).collect(Collectors.toUnmodifiableSet());
    }

    @Override
    public KafkaTargets.Kind kind() {
        return kind;
    }

    /** Every broker's address, a stopped one's too: a client configured before the outage has it. */
    @Override
    public String bootstrapServers() {
        return allBrokerPorts.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> "127.0.0.1:" + e.getValue())
                .collect(Collectors.joining(","));
    }

    /** The live brokers' listeners. */
    @Override
    public Map<Integer, Integer> brokerPorts() {
        Set<Integer> down = stopped;
        return allBrokerPorts.entrySet().stream()
                .filter(e -> !down.contains(e.getKey()))
                .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    @Override
    public Set<Integer> stoppedBrokers() {
        return stopped;
    }

    @Override
    public int defaultReplicationFactor() {
        return kind == KafkaTargets.Kind.TRIBUTARY_DEGRADED ? DEGRADED_REPLICATION_FACTOR : 1;
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
        cluster.downAndDeleteWork();
    }

    @Override
    public String toString() {
        return (stopped.isEmpty() ? "Tributary at " : "Tributary with broker(s) " + stopped + " down at ")
                + bootstrapServers();
    }
}
