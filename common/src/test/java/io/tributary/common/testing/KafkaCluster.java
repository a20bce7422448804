package io.tributary.common.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * A real Apache Kafka cluster of three brokers (node ids 0, 1, 2, as Tributary's broker ids) and
 * one dedicated KRaft controller (node id {@value #CONTROLLER_ID}), each a child JVM ({@link
 * KafkaNode}) on 127.0.0.1 ports that were free, all in one temporary directory: the multi-broker
 * reference of the differential system tests (leaders and followers, ISR changes, a broker down,
 * group coordinator failover).
 *
 * <p>Why a dedicated controller rather than three combined broker+controller nodes: the scenarios
 * stop brokers, up to two of the three at once (the {@code min.insync.replicas} refusal). With the
 * controller quorum on the brokers, two stopped brokers would also leave the quorum without a
 * majority, and then no leader could be elected and no ISR changed: the cluster would answer with
 * timeouts, not with Kafka's answer to a broker outage. One controller that is never stopped is
 * the shape of a Tributary cluster too, whose coordinators are separate processes.
 *
 * <p>Settings that make the scenarios quick (below), on top of Kafka's defaults: a broker
 * heartbeats every second and is fenced after 6 s without one ({@code broker.session.timeout.ms},
 * Tributary's default session timeout; Kafka's is 9 s), a follower leaves the ISR after 5 s behind
 * ({@code replica.lag.time.max.ms}; Kafka's is 30 s), the internal topics have 3 replicas (2 in
 * sync for transactions) and few partitions. No automatic preferred-leader rebalancing is tuned:
 * the defaults stand. {@code extraBrokerSettings} come after these, so a later key wins.
 *
 * <p>{@link #kill(int)} SIGKILLs one broker by PID and {@link #start(int)} starts it again on the
 * same ports and data; {@link #pause(int)} and {@link #resume(int)} send SIGSTOP and SIGCONT.
 * {@link #close()} SIGKILLs every process by PID and deletes the directory; a
 * JVM shutdown hook does the same if the test JVM exits first.
 *
 * <p>Thread-safe: each node's process is guarded by the node.
 */
public final class KafkaCluster implements AutoCloseable {

    /** Brokers in the cluster; their node ids are 0 to {@code BROKERS - 1}. */
    public static final int BROKERS = 3;

    /** The node id of the controller. */
    public static final int CONTROLLER_ID = 3000;

    /** A broker's fence after this long without a heartbeat, as Tributary's default session timeout. */
    public static final int BROKER_SESSION_TIMEOUT_MS = 6000;

    /** A follower this long behind leaves the ISR. */
    public static final int REPLICA_LAG_TIME_MAX_MS = 5000;

    private final Path home;
    private final KafkaNode controller;
    private final Map<Integer, KafkaNode> brokers;
    private final Map<Integer, Integer> ports;
    private final Thread shutdownHook;

    private KafkaCluster(
            Path home, KafkaNode controller, Map<Integer, KafkaNode> brokers, Map<Integer, Integer> ports) {
        this.home = home;
        this.controller = controller;
        this.brokers = Map.copyOf(brokers);
        this.ports = Map.copyOf(ports);
        this.shutdownHook = new Thread(this::stopAll, "kafka-cluster-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Formats every node, starts the controller and then the three brokers together; returns once
     * each broker accepts connections and has logged its start.
     */
    public static KafkaCluster start(Map<String, String> extraBrokerSettings) throws IOException, InterruptedException {
        KafkaNode.libs();
        Path home = Files.createTempDirectory("tributary-test-kafka-cluster-");
        String clusterId = KafkaNode.randomClusterId();
        int controllerPort = KafkaNode.freePort();
        String voters = CONTROLLER_ID + "@127.0.0.1:" + controllerPort;
        List<String> heap = List.of("-Xms128m", "-Xmx384m");
        KafkaCluster cluster;
        try {
            Path controllerHome = home.resolve("controller");
            List<String> controllerSettings = new ArrayList<>(List.of(
                    "process.roles=controller",
                    "node.id=" + CONTROLLER_ID,
                    "controller.quorum.voters=" + voters,
                    "listeners=CONTROLLER://127.0.0.1:" + controllerPort,
                    "broker.heartbeat.interval.ms=1000",
                    "broker.session.timeout.ms=" + BROKER_SESSION_TIMEOUT_MS));
            controllerSettings.addAll(KafkaNode.commonSettings(controllerHome.resolve("data")));
            KafkaNode controller =
                    KafkaNode.format("controller", controllerHome, controllerSettings, clusterId, heap, controllerPort);
            Map<Integer, KafkaNode> brokers = new LinkedHashMap<>();
            Map<Integer, Integer> ports = new LinkedHashMap<>();
            for (int id = 0; id < BROKERS; id++) {
                int port = KafkaNode.freePort();
                while (ports.containsValue(port) || port == controllerPort) {
                    port = KafkaNode.freePort();
                }
                Path brokerHome = home.resolve("broker-" + id);
                List<String> settings = new ArrayList<>(List.of(
                        "process.roles=broker",
                        "node.id=" + id,
                        "controller.quorum.voters=" + voters,
                        "listeners=PLAINTEXT://127.0.0.1:" + port,
                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                        "broker.heartbeat.interval.ms=1000",
                        "broker.session.timeout.ms=" + BROKER_SESSION_TIMEOUT_MS,
                        "replica.lag.time.max.ms=" + REPLICA_LAG_TIME_MAX_MS,
                        "offsets.topic.num.partitions=3",
                        "transaction.state.log.num.partitions=3"));
                settings.addAll(KafkaNode.brokerSettings(brokerHome.resolve("data"), 3, 2));
                extraBrokerSettings.forEach((key, value) -> settings.add(key + "=" + value));
                brokers.put(id, KafkaNode.format("broker-" + id, brokerHome, settings, clusterId, heap, port));
                ports.put(id, port);
            }
            cluster = new KafkaCluster(home, controller, brokers, ports);
        } catch (IOException | RuntimeException | InterruptedException e) {
            KafkaNode.deleteQuietly(home);
            throw e;
        }
        try {
            cluster.controller.start();
            cluster.startTogether(cluster.brokers.keySet());
        } catch (IOException | RuntimeException | InterruptedException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** {@code host:port,...} of every broker's listener, in id order (a stopped one's too). */
    public String bootstrapServers() {
        return ports.keySet().stream()
                .sorted()
                .map(id -> "127.0.0.1:" + ports.get(id))
                .collect(Collectors.joining(","));
    }

    /** Every broker's listener port on 127.0.0.1, by node id, running or not. */
    public Map<Integer, Integer> brokerPorts() {
        return ports;
    }

    /** The brokers whose process is running (a paused one included), by node id. */
    public Set<Integer> runningBrokers() {
        return brokers.entrySet().stream()
                .filter(e -> e.getValue().isRunning())
                .map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** SIGKILL to broker {@code id}'s process, by PID; returns once it has exited. */
    public void kill(int id) {
        broker(id).kill();
    }

    /** Starts broker {@code id} again, on its ports and data; returns once it has logged its start. */
    public void start(int id) throws IOException, InterruptedException {
        broker(id).start();
    }

    /** SIGSTOP to broker {@code id}'s process: it keeps its sockets and stops answering. */
    public void pause(int id) {
        broker(id).signal("STOP");
    }

    /** SIGCONT to a paused broker. */
    public void resume(int id) {
        broker(id).signal("CONT");
    }

    /** Broker {@code id}'s process id. */
    public long pid(int id) {
        return broker(id).pid();
    }

    /** The directory holding every node's configuration, data and logs ({@code <node>/server.log}). */
    public Path home() {
        return home;
    }

    /** Where the logs are and which processes run, for failure messages. */
    public String logsHint() {
        return "Apache Kafka cluster logs in " + home + "/{controller,broker-0,broker-1,broker-2}/server.log"
                + ", running brokers " + runningBrokers();
    }

    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or has run
        }
    }

    private KafkaNode broker(int id) {
        KafkaNode node = brokers.get(id);
        if (node == null) {
            throw new IllegalArgumentException("no broker " + id + " (the brokers are " + brokers.keySet() + ")");
        }
        return node;
    }

    /** Starts the brokers in parallel (each start waits for its own log line). */
    private void startTogether(Set<Integer> ids) throws IOException, InterruptedException {
        try (ExecutorService starters = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Void>> started = new ArrayList<>();
            for (int id : ids) {
                started.add(starters.submit(() -> {
                    broker(id).start();
                    return null;
                }));
            }
            for (Future<Void> future : started) {
                try {
                    future.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IOException io) {
                        throw io;
                    }
                    throw new IllegalStateException("a broker did not start: " + e.getCause(), e.getCause());
                }
            }
        }
    }

    private synchronized void stopAll() {
        // SIGKILL: the data is deleted next, so a controlled shutdown would only cost time (and a
        // paused broker would never act on a SIGTERM)
        brokers.values().forEach(KafkaNode::kill);
        controller.kill();
        KafkaNode.deleteQuietly(home);
    }
}
