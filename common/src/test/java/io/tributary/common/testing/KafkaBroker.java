package io.tributary.common.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real Apache Kafka broker (KRaft, broker and controller in one JVM, single node) run as a child
 * process on 127.0.0.1 ports that were free, with its data in a temporary directory: one {@link
 * KafkaNode} with both roles. Its classpath is {@code kafka-peer/target/kafka-libs} (system property
 * {@code tributary.kafka.libs}, set by the POM), never the test's own. {@link #close()} stops it by
 * PID (SIGTERM, then SIGKILL) and deletes its data; a JVM shutdown hook does the same if the test JVM
 * exits first.
 *
 * <p>Topics are not created automatically ({@code auto.create.topics.enable=false}), so an unknown
 * topic stays unknown, as a gateway user would expect.
 *
 * <p>Used by the gateway's tests (one broker per run, {@code SharedKafka}) and by the system tests,
 * which run the same Kafka-client scenarios against this broker and against a Tributary cluster. A
 * module that starts it depends on {@code tributary-kafka-peer} ({@code type pom}, excluding
 * {@code *:*}, only to order the reactor) and sets {@code tributary.kafka.libs} for its tests. The
 * three-broker reference is {@link KafkaCluster}.
 */
public final class KafkaBroker implements AutoCloseable {

    private final KafkaNode node;
    private final String bootstrap;
    private final Thread shutdownHook;

    private KafkaBroker(KafkaNode node, String bootstrap) {
        this.node = node;
        this.bootstrap = bootstrap;
        this.shutdownHook = new Thread(this::stop, "kafka-broker-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Formats storage and starts the broker; returns once it accepts connections. */
    public static KafkaBroker start() throws IOException, InterruptedException {
        return start(Map.of());
    }

    /**
     * {@link #start()} with more broker settings ({@code server.properties} keys), added after the
     * defaults above, so that a later key wins as in Kafka's own properties parsing.
     */
    public static KafkaBroker start(Map<String, String> extraSettings) throws IOException, InterruptedException {
        return start(extraSettings, List.of());
    }

    /**
     * {@link #start(Map)} with more listeners beside {@code PLAINTEXT} (the inter-broker one, which
     * {@link #bootstrapServers()} names) and {@code CONTROLLER}: entries such as {@code
     * SASL_SSL://127.0.0.1:29093}, bound and advertised as written. Their security protocols go
     * into {@code extraSettings}' {@code listener.security.protocol.map}, which must then name
     * {@code CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT} too.
     */
    public static KafkaBroker start(Map<String, String> extraSettings, List<String> extraListeners)
            throws IOException, InterruptedException {
        return start(extraSettings, extraListeners, List.of());
    }

    /**
     * {@link #start(Map, List)} with more options for the broker's JVM, after the heap options: system
     * properties such as {@code -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=...}.
     */
    public static KafkaBroker start(
            Map<String, String> extraSettings, List<String> extraListeners, List<String> extraJvmOptions)
            throws IOException, InterruptedException {
        KafkaNode.libs();
        Path home = Files.createTempDirectory("tributary-test-kafka-");
        int brokerPort = KafkaNode.freePort();
        int controllerPort = KafkaNode.freePort();
        String bootstrap = "127.0.0.1:" + brokerPort;
        List<String> settings = new ArrayList<>(List.of(
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort
                        + extraListeners.stream().map(l -> "," + l).collect(Collectors.joining()),
                "advertised.listeners=PLAINTEXT://" + bootstrap
                        + extraListeners.stream().map(l -> "," + l).collect(Collectors.joining())));
        settings.addAll(KafkaNode.brokerSettings(home.resolve("data"), 1, 1));
        extraSettings.forEach((key, value) -> settings.add(key + "=" + value));
        KafkaBroker broker;
        try {
            KafkaNode node = KafkaNode.format(
                    "broker-1",
                    home,
                    settings,
                    KafkaNode.randomClusterId(),
                    Stream.concat(Stream.of("-Xms256m", "-Xmx512m"), extraJvmOptions.stream())
                            .toList(),
                    brokerPort);
            broker = new KafkaBroker(node, bootstrap);
        } catch (IOException | RuntimeException | InterruptedException e) {
            KafkaNode.deleteQuietly(home);
            throw e;
        }
        try {
            broker.node.start();
        } catch (IOException | RuntimeException | InterruptedException e) {
            broker.close();
            throw e;
        }
        return broker;
    }

    /** {@code host:port} of the broker's Kafka listener. */
    public String bootstrapServers() {
        return bootstrap;
    }

    /** The port of the broker's Kafka listener on 127.0.0.1. */
    public int port() {
        return Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
    }

    /** The directory with the broker's configuration, data and logs ({@code server.log}). */
    public Path home() {
        return node.home();
    }

    /** The broker process's id. */
    public long pid() {
        return node.pid();
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or has run
        }
    }

    private synchronized void stop() {
        node.stop();
        KafkaNode.deleteQuietly(node.home());
    }
}
