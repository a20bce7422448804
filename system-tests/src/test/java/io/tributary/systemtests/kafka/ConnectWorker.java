package io.tributary.systemtests.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One Kafka Connect 4.4 worker in distributed mode ({@code
 * org.apache.kafka.connect.cli.ConnectDistributed}) as a child JVM, so that it can be killed with
 * SIGKILL: no clean leave of the Connect group, no task shut down, only the coordinator's session
 * timeout notices it is gone.
 *
 * <p>Its classpath is {@code kafka-peer/target/kafka-libs} (system property {@code
 * tributary.kafka.libs}: Connect's runtime with the Jetty, Jersey and Jackson versions Kafka ships)
 * and a jar of this module's connectors of package {@code kafka.connect}; never the test's own
 * classpath. It maps the classes earlier workers loaded from a shared archive ({@link
 * ConnectWorkerClasspath}). Its REST listener is on 127.0.0.1, on a
 * port that was free; its properties, {@code worker.log} (log4j2) and {@code worker.out} (standard
 * output and error) are in its home directory, which the test keeps for diagnosis. Stopped by PID:
 * {@link #kill()} (SIGKILL) or {@link #close()} (SIGTERM, then SIGKILL after {@link #STOP_GRACE});
 * a JVM shutdown hook kills it if the test JVM exits first.
 *
 * <p>Thread-safety: the methods that start or stop the process are synchronized.
 */
final class ConnectWorker implements AutoCloseable {

    /** A safety net for a worker that never becomes ready; not an assertion on speed. */
    static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);

    /** How long a SIGTERM'd worker may take to leave its group and stop its tasks. */
    static final Duration STOP_GRACE = Duration.ofSeconds(20);

    private static final Pattern LEADER = Pattern.compile("leader='([^']*)'");

    private static final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private final String name;
    private final Path home;
    private final int restPort;
    private final Process process;
    private final Thread shutdownHook;

    private ConnectWorker(String name, Path home, int restPort, Process process) {
        this.name = name;
        this.home = home;
        this.restPort = restPort;
        this.process = process;
        this.shutdownHook = new Thread(process::destroyForcibly, "connect-worker-kill-" + name);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Writes the worker's properties ({@code settings}, then its REST listener) and logging setup
     * into {@code home} and starts it; does not wait (see {@link #awaitReady()}), so that several
     * workers start at the same time.
     */
    static ConnectWorker start(String name, Path home, Map<String, String> settings) throws IOException {
        Files.createDirectories(home);
        int port = freePort();
        Map<String, String> all = new LinkedHashMap<>(settings);
        all.put("listeners", "http://127.0.0.1:" + port);
        all.put("rest.advertised.host.name", "127.0.0.1");
        all.put("rest.advertised.port", Integer.toString(port));
        List<String> lines = new ArrayList<>();
        all.forEach((key, value) -> lines.add(key + "=" + value));
        lines.add("");
        Path config = home.resolve("worker.properties");
        Files.writeString(config, String.join("\n", lines), StandardCharsets.UTF_8);
        Path log4j = home.resolve("log4j2.properties");
        Files.writeString(
                log4j,
                String.join(
                        "\n",
                        "status = warn",
                        "appender.file.type = File",
                        "appender.file.name = FILE",
                        "appender.file.fileName = " + home.resolve("worker.log"),
                        "appender.file.layout.type = PatternLayout",
                        "appender.file.layout.pattern = [%d] %p %m (%c)%n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.file.ref = FILE",
                        // the worker's clients log every config they start with; the group's and
                        // the herder's decisions are what a diagnosis needs
                        "logger.configs.name = org.apache.kafka.common.config.AbstractConfig",
                        "logger.configs.level = WARN",
                        // one line per REST request: the test polls statuses twice a second
                        "logger.rest.name = org.apache.kafka.connect.runtime.rest.RestServer",
                        "logger.rest.level = WARN",
                        ""),
                StandardCharsets.UTF_8);
        ConnectWorkerClasspath classpath = ConnectWorkerClasspath.get();
        // a small heap and the client compiler only: a worker here moves a few thousand records,
        // and starts sooner without C2 and with the shared class archive
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        command.addAll(classpath.sharingOptions());
        command.addAll(List.of(
                "-Dlog4j2.configurationFile=" + log4j,
                "-cp",
                classpath.classpath(),
                "org.apache.kafka.connect.cli.ConnectDistributed",
                config.toString()));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        home.resolve("worker.out").toFile()))
                .start();
        return new ConnectWorker(name, home, port, process);
    }

    /**
     * Returns once the worker's {@code GET /health} answers 200 (KIP-1017: the herder has started,
     * so the worker has joined its group and read the config topic); fails with the end of its log
     * if it exits or does not get there within {@link #STARTUP_TIMEOUT}.
     */
    void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        name + " exited with " + process.exitValue() + " before it was ready; log:\n" + tail());
            }
            try {
                HttpResponse<String> health = http.send(
                        HttpRequest.newBuilder(URI.create(url() + "/health"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200) {
                    return;
                }
                last = health.statusCode() + " " + health.body();
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            process.waitFor(500, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException(
                name + " not ready within " + STARTUP_TIMEOUT + " (last /health: " + last + "); log:\n" + tail());
    }

    /** The worker's name in the test, e.g. {@code worker-a}. */
    String name() {
        return name;
    }

    /** {@code http://127.0.0.1:<port>}: the worker's REST API. */
    String url() {
        return "http://127.0.0.1:" + restPort;
    }

    /** The id Connect gives this worker in statuses ({@code worker_id}): its advertised host and port. */
    String workerId() {
        return "127.0.0.1:" + restPort;
    }

    /**
     * The member id of the Connect group's leader in the last assignment this worker logged
     * ({@code Joined group at generation ... leader='<member id>'}, Kafka 4.4's {@code
     * WorkerCoordinator}), if it logged one: the group's leader is not in Connect's REST API.
     */
    Optional<String> lastLeaderSeen() throws IOException {
        String last = null;
        try (Stream<String> lines = Files.lines(home.resolve("worker.log"), StandardCharsets.UTF_8)) {
            last = lines.filter(l -> l.contains("Joined group at generation"))
                    .reduce((first, second) -> second)
                    .orElse(null);
        }
        if (last == null) {
            return Optional.empty();
        }
        Matcher leader = LEADER.matcher(last);
        return leader.find() ? Optional.of(leader.group(1)) : Optional.empty();
    }

    /** Whether {@code memberId} is this worker's: Connect's are {@code connect-<host>:<port>-<UUID>}. */
    boolean hasMemberId(String memberId) {
        return memberId.startsWith("connect-" + workerId() + "-");
    }

    /** The directory with the worker's properties and logs. */
    Path home() {
        return home;
    }

    synchronized boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, by PID; returns once the process has exited. */
    synchronized void kill() {
        process.destroyForcibly();
        process.onExit().join();
    }

    /** SIGTERM (a clean shutdown: the worker leaves its group), then SIGKILL after {@link #STOP_GRACE}. */
    @Override
    public synchronized void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                process.onExit().get(STOP_GRACE.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                process.destroyForcibly();
                process.onExit().join();
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or has run
        }
    }

    /** The last 40 lines of the worker's output and log, for a failure message. */
    String tail() {
        StringBuilder out = new StringBuilder();
        for (String file : List.of("worker.out", "worker.log")) {
            try {
                List<String> lines = Files.readAllLines(home.resolve(file), StandardCharsets.UTF_8);
                lines.subList(Math.max(0, lines.size() - 40), lines.size())
                        .forEach(l -> out.append(l).append('\n'));
            } catch (IOException | UncheckedIOException e) {
                out.append("(no ").append(file).append(")\n");
            }
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return name + " (Kafka Connect worker, " + url() + ", home " + home + ")";
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
