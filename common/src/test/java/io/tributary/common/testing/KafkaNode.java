package io.tributary.common.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One real Apache Kafka server process (KRaft; a broker, a controller or both, as its {@code
 * process.roles} say) as a child JVM: its {@code server.properties}, {@code log4j2.properties},
 * formatted storage and logs live in one home directory, and the process can be started, SIGKILLed,
 * paused and started again on the same ports and data. What {@link KafkaBroker} (one combined node)
 * and {@link KafkaCluster} (three brokers and a controller) are made of.
 *
 * <p>The classpath is {@code kafka-peer/target/kafka-libs} (system property {@code
 * tributary.kafka.libs}), never the test's own. The JVM runs with the given heap options, the serial
 * collector and C1 only ({@code TieredStopAtLevel=1}): a test broker lives for minutes, so start-up
 * time matters more than peak speed. Signals go to the process by its PID only.
 *
 * <p>Thread-safety: the methods that start, stop or signal the process are synchronized; {@link
 * #tail()} and the accessors may be called from any thread.
 */
public final class KafkaNode {

    /** A safety net for a node that never comes up; not an assertion on speed. */
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);

    /** What {@code KafkaRaftServer} logs once every role of the node has started. */
    private static final String STARTED = "Kafka Server started";

    private final String name;
    private final Path home;
    private final Path config;
    private final List<String> jvmOptions;
    private final int listenerPort;
    private Process process;

    private KafkaNode(String name, Path home, List<String> jvmOptions, int listenerPort) {
        this.name = name;
        this.home = home;
        this.config = home.resolve("server.properties");
        this.jvmOptions = List.copyOf(jvmOptions);
        this.listenerPort = listenerPort;
    }

    /**
     * Writes the node's configuration into {@code home} (created if missing) and formats its storage
     * for {@code clusterId} ({@code kafka.tools.StorageTool format}); does not start it.
     *
     * @param name for logs and messages, e.g. {@code broker-1}
     * @param settings {@code server.properties} lines ({@code key=value}), a later key winning as in
     *     Kafka's own parsing; {@code log.dirs} must lie under {@code home}
     * @param jvmOptions heap options, e.g. {@code -Xmx384m}
     * @param listenerPort the port whose accepting connections (with the started line in the log)
     *     means the node is up: the broker's client listener, or the controller's
     */
    public static KafkaNode format(
            String name, Path home, List<String> settings, String clusterId, List<String> jvmOptions, int listenerPort)
            throws IOException, InterruptedException {
        Files.createDirectories(home);
        var node = new KafkaNode(name, home, jvmOptions, listenerPort);
        List<String> lines = new ArrayList<>(settings);
        lines.add("");
        Files.writeString(node.config, String.join("\n", lines));
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
        node.runTool("kafka.tools.StorageTool", "format", "-t", clusterId, "-c", node.config.toString());
        return node;
    }

    /**
     * Starts the process (again, after {@link #kill()} or {@link #stop()}: same configuration, ports
     * and data) and returns once its listener accepts connections and its log says it started.
     */
    public synchronized void start() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
        }
        long startedBefore = startedLines();
        List<String> command = java();
        command.add("kafka.Kafka");
        command.add(config.toString());
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        home.resolve("server.out").toFile()))
                .start();
        try {
            awaitStarted(startedBefore);
        } catch (RuntimeException | InterruptedException e) {
            kill();
            throw e;
        }
    }

    /** SIGKILL to the process, by PID; returns once it has exited. Nothing if it is not running. */
    public synchronized void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.onExit().join();
        }
    }

    /** SIGTERM (Kafka's controlled shutdown), then SIGKILL after 20 s; returns once it has exited. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        ProcessHandle.of(process.pid()).ifPresent(handle -> {
            handle.destroy();
            try {
                handle.onExit().get(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                handle.destroyForcibly();
                handle.onExit().join();
            }
        });
    }

    /**
     * Sends {@code signal} ({@code STOP}, {@code CONT}) to the running process by its PID, with the
     * {@code kill} command (the JDK sends only TERM and KILL).
     */
    public synchronized void signal(String signal) {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException(name + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    /** Whether the process is running (a paused one counts as running). */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** The running process's id. */
    public synchronized long pid() {
        if (process == null) {
            throw new IllegalStateException(name + " was never started");
        }
        return process.pid();
    }

    /** The node's name, e.g. {@code broker-1}. */
    public String name() {
        return name;
    }

    /** The directory with the node's configuration, data and logs ({@code server.log}, {@code server.out}). */
    public Path home() {
        return home;
    }

    /** The last 40 lines of the node's output and log, for a failure message. */
    public String tail() {
        StringBuilder out = new StringBuilder();
        for (String file : List.of("server.out", "server.log")) {
            try {
                List<String> lines = Files.readAllLines(home.resolve(file), StandardCharsets.UTF_8);
                lines.subList(Math.max(0, lines.size() - 40), lines.size())
                        .forEach(l -> out.append(l).append('\n'));
            } catch (IOException e) {
                out.append("(no ").append(file).append(")\n");
            }
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return "Apache Kafka " + name + " in " + home;
    }

    private void awaitStarted(long startedBefore) throws InterruptedException {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + "; log:\n" + tail());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenerPort), 500);
                if (startedLines() > startedBefore) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            process.waitFor(200, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException(name + " did not start within " + STARTUP_TIMEOUT + "; log:\n" + tail());
    }

    /** How many times the log says the server started: a restart appends to the same log. */
    private long startedLines() {
        Path log = home.resolve("server.log");
        if (!Files.exists(log)) {
            return 0;
        }
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.contains(STARTED)).count();
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    private void runTool(String main, String... args) throws IOException, InterruptedException {
        List<String> command = java("-Xmx256m");
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

    private List<String> java() {
        return java(jvmOptions.toArray(String[]::new));
    }

    private List<String> java(String... heapOptions) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(heapOptions));
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Dlog4j2.configurationFile=" + home.resolve("log4j2.properties"));
        command.add("-Dkafka.logs.dir=" + home.resolve("logs"));
        command.add("-cp");
        command.add(libs().toAbsolutePath() + "/*");
        return command;
    }

    /**
     * The Kafka jars ({@code tributary.kafka.libs}); fails, saying how to build them, when they are
     * missing.
     */
    static Path libs() {
        Path libs = Path.of(System.getProperty("tributary.kafka.libs", "../kafka-peer/target/kafka-libs"));
        if (!Files.isDirectory(libs) || !Files.exists(libs.resolve("kafka_2.13-4.4.0.jar"))) {
            throw new IllegalStateException("No Kafka broker jars in " + libs.toAbsolutePath()
                    + ": build the kafka-peer module first (./mvnw -pl gateway-service -am verify does).");
        }
        return libs;
    }

    /**
     * A cluster id as {@code kafka-storage random-uuid} makes one: 16 random bytes, URL-safe base64,
     * never starting with {@code -} (as Kafka's own {@code Uuid.randomUuid}), which the tool's
     * argument parser would take for an option.
     */
    static String randomClusterId() {
        while (true) {
            UUID u = UUID.randomUUID();
            ByteBuffer b = ByteBuffer.allocate(16);
            b.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
            String id = Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
            if (!id.startsWith("-")) {
                return id;
            }
        }
    }

    /** A port of 127.0.0.1 that was free a moment ago. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The settings every node shares: the listener map, no topic auto-creation, a quiet retention checker. */
    static List<String> commonSettings(Path dataDir) {
        return List.of(
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "log.dirs=" + dataDir,
                "auto.create.topics.enable=false",
                // retention tests delete records explicitly; keep the checker out of their way
                "log.retention.check.interval.ms=300000");
    }

    /**
     * {@link #commonSettings} and what every broker adds: one partition per new topic by default, no
     * initial rebalance delay, and the internal topics (offsets, transactions, share groups) with
     * {@code internalReplicas} replicas, of which {@code internalMinIsr} must be in sync.
     */
    static List<String> brokerSettings(Path dataDir, int internalReplicas, int internalMinIsr) {
        List<String> settings = new ArrayList<>(List.of(
                "inter.broker.listener.name=PLAINTEXT",
                "num.partitions=1",
                "offsets.topic.replication.factor=" + internalReplicas,
                "transaction.state.log.replication.factor=" + internalReplicas,
                "transaction.state.log.min.isr=" + internalMinIsr,
                "share.coordinator.state.topic.replication.factor=" + internalReplicas,
                "share.coordinator.state.topic.min.isr=" + internalMinIsr,
                "group.initial.rebalance.delay.ms=0"));
        settings.addAll(commonSettings(dataDir));
        return settings;
    }

    /** Deletes a directory tree; a leftover temporary directory is harmless, so failures are ignored. */
    static void deleteQuietly(Path dir) {
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
