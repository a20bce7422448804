package io.tributary.systemtests.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway jar ({@code gateway-service/target/tributary-gateway.jar}) as a child process in
 * front of a Kafka bootstrap address: how {@link ApacheKafkaTarget} gets the gateway that {@code
 * bin/tributary up} gives the Tributary target. Started with the same JVM heap as the script's
 * gateway and the gateway's default configuration; HTTP on a free port of 127.0.0.1 (checked free
 * just before the start); log in {@code target/<logName>}. {@link #close()} stops it by its PID
 * (SIGTERM, then SIGKILL), also from a shutdown hook.
 */
public final class GatewayProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GatewayProcess.class);

    /** The longest the gateway may take to report ready; a safety net, not a speed check. */
    private static final Duration READY_WAIT = Duration.ofMinutes(2);

    private final Process process;
    private final int port;
    private final Path logFile;

    private GatewayProcess(Process process, int port, Path logFile) {
        this.process = process;
        this.port = port;
        this.logFile = logFile;
    }

    /** Starts the gateway against {@code bootstrapServers} and waits until it reports ready. */
    public static GatewayProcess start(String bootstrapServers, String logName)
            throws IOException, InterruptedException {
        Path repoRoot = Path.of(System.getProperty("tributary.repo.root", ".."))
                .toAbsolutePath()
                .normalize();
        Path jar = repoRoot.resolve("gateway-service/target/tributary-gateway.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    jar + " is missing: package the gateway first (./mvnw -pl system-tests -am verify does)");
        }
        Path logFile = Path.of(System.getProperty("tributary.build.dir", "target"))
                .toAbsolutePath()
                .resolve(logName);
        Files.createDirectories(logFile.getParent());
        int port = freePort();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(List.of(
                        java.toString(),
                        "-Xmx512m",
                        "-jar",
                        jar.toString(),
                        "--server.address=127.0.0.1",
                        "--server.port=" + port,
                        "--tributary.instance=gateway-kafka",
                        "--tributary.gateway.bootstrap-servers=" + bootstrapServers))
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        var gateway = new GatewayProcess(process, port, logFile);
        Runtime.getRuntime().addShutdownHook(new Thread(gateway::close, "gateway-process-stopper"));
        try {
            gateway.awaitReady();
        } catch (RuntimeException | InterruptedException e) {
            gateway.close();
            throw e;
        }
        log.info("gateway pid {} on port {} in front of {}, log {}", process.pid(), port, bootstrapServers, logFile);
        return gateway;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** The gateway process's id. */
    public long pid() {
        return process.pid();
    }

    /** Where the gateway's output goes. */
    public Path logFile() {
        return logFile;
    }

    private void awaitReady() throws InterruptedException {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(2))
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        HttpRequest readiness = HttpRequest.newBuilder(URI.create(url() + "/actuator/health/readiness"))
                .timeout(Duration.ofSeconds(5))
                .build();
        long deadline = System.nanoTime() + READY_WAIT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "the gateway exited with " + process.exitValue() + " before it was ready; log " + logFile);
            }
            try {
                HttpResponse<String> answer = client.send(readiness, HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() == 200) {
                    return;
                }
                last = answer.statusCode() + " " + answer.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(
                "the gateway was not ready after " + READY_WAIT + " (" + last + "); log " + logFile);
    }

    private static int freePort() {
        try (var socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                log.warn("gateway pid {} ignored SIGTERM for 30 s; killing it", process.pid());
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        return "gateway pid " + process.pid() + " at " + url();
    }
}
