package io.tributary.common.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Apache Kafka broker (KRaft, broker and controller in one JVM, single node) run as a child
 * process on 127.0.0.1 ports that were free, with its data in a temporary directory. Its classpath is
 * {@code kafka-peer/target/kafka-libs} (system property {@code tributary.kafka.libs}, set by the
 * POM), never the test's own. {@link #close()} stops it by PID (SIGTERM, then SIGKILL) and deletes its
 * data; a JVM shutdown hook does the same if the test JVM exits first.
 *
 * <p>Topics are not created automatically ({@code auto.create.topics.enable=false}), so an unknown
 * topic stays unknown, as a gateway user would expect.
 *
 * <p>Used by the gateway's tests (one broker per run, {@code SharedKafka}) and by the system tests,
 * which run the same Kafka-client scenarios against this broker and against a Tributary cluster. A
 * module that starts it depends on {@code tributary-kafka-peer} ({@code type pom}, excluding
 * {@code *:*}, only to order the reactor) and sets {@code tributary.kafka.libs} for its tests.
 */
public final class KafkaBroker implements AutoCloseable {

    /** A safety net for a broker that never comes up; not an assertion on speed. */
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final Path home;
    private final String bootstrap;
    private final Thread shutdownHook;

    private KafkaBroker(Process process, Path home, String bootstrap) {
        this.process = process;
        this.home = home;
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
        Path libs = Path.of(System.getProperty("tributary.kafka.libs", "../kafka-peer/target/kafka-libs"));
        if (!Files.isDirectory(libs) || !Files.exists(libs.resolve("kafka_2.13-4.4.0.jar"))) {
            throw new IllegalStateException("No Kafka broker jars in " + libs.toAbsolutePath()
                    + ": build the kafka-peer module first (./mvnw -pl gateway-service -am verify does).");
        }
        Path home = Files.createTempDirectory("tributary-test-kafka-");
        int brokerPort = freePort();
        int controllerPort = freePort();
        String bootstrap = "127.0.0.1:" + brokerPort;
        Path config = home.resolve("server.properties");
        List<String> settings = new ArrayList<>(List.of(
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://" + bootstrap,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "log.dirs=" + home.resolve("data"),
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false",
                // retention tests delete records explicitly; keep the checker out of their way
                "log.retention.check.interval.ms=300000"));
        extraSettings.forEach((key, value) -> settings.add(key + "=" + value));
        settings.add("");
        Files.writeString(config, String.join("\n", settings));
        Files.writeString(
                home.resolve("log4j2.properties"),
                String.join(
                        "\n",
                        List.of(
                                "status = warn",
                                "appender.file.type = File",
                                "appender.file.name = FILE",
                                "appender.file.fileName = " + home.resolve("server.log"),
                                "appender.file.layout.type = PatternLayout",
                                "appender.file.layout.pattern = [%d] %p %m (%c)%n",
                                "rootLogger.level = INFO",
                                "rootLogger.appenderRef.file.ref = FILE",
                                "")));
        String classpath = libs.toAbsolutePath() + "/*";
        run(home, classpath, "kafka.tools.StorageTool", "format", "-t", randomClusterId(), "-c", config.toString());

        List<String> command = java(home, classpath, "-Xms256m", "-Xmx512m");
        command.add("kafka.Kafka");
        command.add(config.toString());
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("server.out").toFile())
                .start();
        KafkaBroker broker = new KafkaBroker(process, home, bootstrap);
        try {
            broker.awaitListening(brokerPort);
        } catch (RuntimeException | InterruptedException e) {
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
        return home;
    }

    /** The broker process's id. */
    public long pid() {
        return process.pid();
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
        ProcessHandle.of(process.pid()).ifPresent(handle -> {
            handle.destroy();
            try {
                handle.onExit().get(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                handle.destroyForcibly();
                handle.onExit().join();
            }
        });
        deleteQuietly(home);
    }

    private void awaitListening(int port) throws InterruptedException {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Kafka exited with " + process.exitValue() + "; log:\n" + tail());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
                if (serverStarted()) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            process.waitFor(200, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException("Kafka did not start within " + STARTUP_TIMEOUT + "; log:\n" + tail());
    }

    private boolean serverStarted() {
        try {
            return Files.readString(home.resolve("server.log"), StandardCharsets.UTF_8)
                    .contains("Kafka Server started");
        } catch (IOException e) {
            return false;
        }
    }

    private String tail() {
        StringBuilder out = new StringBuilder();
        for (String name : List.of("server.out", "server.log")) {
            try {
                List<String> lines = Files.readAllLines(home.resolve(name), StandardCharsets.UTF_8);
                lines.subList(Math.max(0, lines.size() - 40), lines.size())
                        .forEach(l -> out.append(l).append('\n'));
            } catch (IOException e) {
                out.append("(no ").append(name).append(")\n");
            }
        }
        return out.toString();
    }

    private static void run(Path home, String classpath, String main, String... args)
            throws IOException, InterruptedException {
        List<String> command = java(home, classpath, "-Xmx256m");
        command.add(main);
        command.addAll(List.of(args));
        Path log = home.resolve(main.substring(main.lastIndexOf('.') + 1) + ".out");
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(main + " did not finish within 60 s");
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(main + " failed with " + p.exitValue() + ":\n" + Files.readString(log));
        }
    }

    private static List<String> java(Path home, String classpath, String... jvmOptions) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmOptions));
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Dlog4j2.configurationFile=" + home.resolve("log4j2.properties"));
        command.add("-Dkafka.logs.dir=" + home.resolve("logs"));
        command.add("-cp");
        command.add(classpath);
        return command;
    }

    /**
     * A cluster id as {@code kafka-storage random-uuid} makes one: 16 random bytes, URL-safe base64,
     * never starting with {@code -} (as Kafka's own {@code Uuid.randomUuid}), which the tool's
     * argument parser would take for an option.
     */
    private static String randomClusterId() {
        while (true) {
            UUID u = UUID.randomUUID();
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16);
            b.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
            String id = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
            if (!id.startsWith("-")) {
                return id;
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }
}
