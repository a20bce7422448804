package io.tributary.systemtests.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import io.tributary.systemtests.ProcessCluster;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real browser through a gateway crash: headless Chromium's own {@code EventSource} reads the
 * gateway's SSE stream ({@code from=earliest}) of a 3-partition topic while a Kafka producer writes
 * the values 0, 1, 2, ... (record {@code i} to partition {@code i % 3}); the gateway process is
 * SIGKILLed by PID ({@code bin/tributary kill gateway-0}) mid-stream and started again on the same
 * port ({@code bin/tributary start gateway-0}) while the producer goes on. The page ends with every
 * value exactly once, each partition's offsets dense from 0 and in order.
 *
 * <p>The page resumes nothing itself: the browser reconnects after the stream's {@code retry:} and
 * sends {@code Last-Event-ID}; a reconnect without it would start from the earliest offset again and
 * repeat every event, so "exactly once" is also the proof that the browser resumed from its last id.
 * The page is served from another origin (a JDK {@code HttpServer} on 127.0.0.1), so the stream goes
 * through the gateway's CORS ({@code tributary.gateway.cors.allowed-origins}, set to that origin).
 *
 * <p>The cluster is {@code bin/tributary up} with 1 coordinator, 1 broker and the gateway, on a free
 * port offset. The browser is Debian's {@code chromium} driven by Debian's {@code chromedriver}
 * ({@code bin/test} installs both; without them the test fails naming the packages). A failure
 * leaves {@code target/browser-eventsource-failure.png} and the page's state next to it.
 */
class BrowserEventSourceIT {

    private static final Logger log = LoggerFactory.getLogger(BrowserEventSourceIT.class);
    private static final JsonMapper JSON = new JsonMapper();

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private static final String TOPIC = "browser-events";
    private static final int PARTITIONS = 3;
    /** The reconnection delay the gateway sends in {@code retry:}. */
    private static final String RETRY = "300ms";
    /** One record every this long, so that the stream is live when the gateway dies. */
    private static final Duration PRODUCE_INTERVAL = Duration.ofMillis(20);
    /** Events the page must have before the gateway is killed. */
    private static final int BEFORE_KILL = 40;
    /** Records written after the gateway is ready again, before the producer stops. */
    private static final int AFTER_RESTART = 40;
    /** A bound on the producer, whatever happens. */
    private static final int MAX_RECORDS = 20_000;
    /** How long the page may take to receive what it waits for. */
    private static final Duration PAGE_PATIENCE = Duration.ofSeconds(45);

    @TempDir
    static Path work;

    private static HttpServer pageServer;
    private static ProcessCluster cluster;
    private static ChromeDriverService driverService;
    private static ChromeDriver browser;
    private static String gateway;
    private static String bootstrap;
    private static String pageUrl;

    /** A failed test leaves a screenshot and the page's state in target/. */
    @RegisterExtension
    static final TestExecutionExceptionHandler SCREENSHOT_ON_FAILURE = (context, failure) -> {
        saveEvidence();
        throw failure;
    };

    @BeforeAll
    static void startPageClusterAndBrowser() throws Exception {
        requireBrowser();
        pageServer = servePage();
        String origin = "http://127.0.0.1:" + pageServer.getAddress().getPort();
        pageUrl = origin + "/";

        cluster = ProcessCluster.create(
                work,
                "browser-eventsource-logs",
                List.of(8080, 8081, 8091, 9092, 9191, 9291),
                Map.of(
                        "TRIBUTARY_JAVA_OPTS",
                        "-Xmx512m",
                        "TRIBUTARY_STOP_GRACE",
                        "5",
                        // Spring's environment binding: tributary.gateway.cors.allowed-origins and
                        // tributary.gateway.sse.retry of the gateway (the other processes ignore them).
                        "TRIBUTARY_GATEWAY_CORS_ALLOWEDORIGINS",
                        origin,
                        "TRIBUTARY_GATEWAY_SSE_RETRY",
                        RETRY));
        ProcessCluster.Result up = cluster.run(
                "up",
                "--coordinators",
                "1",
                "--brokers",
                "1",
                "--data",
                work.resolve("data").toString(),
                "--logs",
                cluster.logsDir().toString());
        assertThat(up.exitCode()).as("bin/tributary up:%n%s", up.output()).isZero();
        gateway = "http://127.0.0.1:" + (8080 + cluster.portOffset());
        bootstrap = "127.0.0.1:" + (9092 + cluster.portOffset());

        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                30_000))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }

        driverService = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .withLogFile(cluster.logsDir().resolve("chromedriver.log").toFile())
                .build();
        var options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1280,1024",
                "--user-data-dir=" + Files.createDirectories(work.resolve("chromium-profile")));
        browser = new ChromeDriver(driverService, options);
    }

    @AfterAll
    static void stopEverything() {
        try {
            if (browser != null) {
                browser.quit();
            }
        } catch (RuntimeException e) {
            log.warn("could not quit the browser", e);
        } finally {
            if (driverService != null) {
                driverService.stop();
            }
            if (cluster != null) {
                cluster.downAndKillLeftovers();
            }
            if (pageServer != null) {
                pageServer.stop(0);
            }
        }
    }

    @Test
    void theBrowsersOwnEventSourceGetsEveryEventExactlyOnceAcrossAGatewayKillAndRestart() throws Exception {
        String events = gateway + "/v1/topics/" + TOPIC + "/events?from=earliest";
        browser.get(pageUrl + "?src=" + URLEncoder.encode(events, StandardCharsets.UTF_8));

        int total;
        try (var producer = new PacedProducer(bootstrap)) {
            producer.start();
            awaitReceived(BEFORE_KILL, "events before the gateway is killed");

            long killedPid = gatewayPid();
            ProcessCluster.Result kill = cluster.run("kill", "gateway-0");
            assertThat(kill.exitCode()).as(kill.output()).isZero();
            assertThat(kill.output()).contains("gateway-0 (pid " + killedPid + ") killed");
            int writtenAtKill = producer.acknowledged();
            assertThat(gatewayState()).as("gateway-0 after the kill").isEqualTo("stopped");

            ProcessCluster.Result start = cluster.run("start", "gateway-0");
            assertThat(start.exitCode()).as(start.output()).isZero();
            int writtenAtRestart = producer.acknowledged();
            assertThat(gatewayPid()).as("the restarted gateway's pid").isNotEqualTo(killedPid);
            assertThat(writtenAtRestart)
                    .as("records written while the gateway was down")
                    .isGreaterThan(writtenAtKill);

            producer.awaitAcknowledged(writtenAtRestart + AFTER_RESTART);
            total = producer.stop();
            log.info(
                    "{} records: {} before the kill, {} while the gateway was down, {} after its restart",
                    total,
                    writtenAtKill,
                    writtenAtRestart - writtenAtKill,
                    total - writtenAtRestart);
        }

        awaitReceived(total, "every record written");
        JsonNode page = pageState();
        log.info("the page: {}", summary());
        assertThat(page.get("closed").asBoolean())
                .as("the browser gave up on the stream (an HTTP error answer)")
                .isFalse();
        assertThat(page.get("opens").asInt())
                .as("connections the EventSource opened (the first and the one after the restart, at least)")
                .isGreaterThanOrEqualTo(2);
        assertThat(page.get("control")).as("gap and error events").isEmpty();

        List<Integer> values = new ArrayList<>();
        Map<Integer, List<Long>> offsets = new TreeMap<>();
        Map<Integer, List<Integer>> valuesByPartition = new TreeMap<>();
        for (JsonNode event : page.get("received")) {
            int partition = event.get("partition").asInt();
            int value = event.get("value").asInt();
            values.add(value);
            offsets.computeIfAbsent(partition, p -> new ArrayList<>())
                    .add(event.get("offset").asLong());
            valuesByPartition.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
        }
        assertThat(values).as("values received").hasSize(total).doesNotHaveDuplicates();
        assertThat(values.stream().sorted().toList())
                .as("values received, sorted")
                .isEqualTo(range(0, total));
        assertThat(offsets.keySet()).containsExactly(0, 1, 2);
        for (int p = 0; p < PARTITIONS; p++) {
            List<Integer> expected = new ArrayList<>();
            for (int v = p; v < total; v += PARTITIONS) {
                expected.add(v);
            }
            assertThat(valuesByPartition.get(p))
                    .as("partition %d's values, in order", p)
                    .isEqualTo(expected);
            assertThat(offsets.get(p))
                    .as("partition %d's offsets, in order", p)
                    .isEqualTo(range(0, expected.size()).stream()
                            .map(Integer::longValue)
                            .toList());
        }
    }

    // ---- the browser --------------------------------------------------------------------------

    /** Fails, naming the Debian packages, when Chromium or its driver is missing. */
    static void requireBrowser() {
        List<String> missing = new ArrayList<>();
        if (!Files.isExecutable(CHROMIUM)) {
            missing.add(CHROMIUM + " (Debian package chromium)");
        }
        if (!Files.isExecutable(CHROMEDRIVER)) {
            missing.add(CHROMEDRIVER + " (Debian package chromium-driver)");
        }
        if (!missing.isEmpty()) {
            fail(
                    "the real-browser test needs %s: run bin/test, which installs the Debian packages chromium and "
                            + "chromium-driver (or: apt-get install -y --no-install-recommends chromium chromium-driver)",
                    String.join(" and ", missing));
        }
    }

    /**
     * Waits until the page has at least {@code count} record events; fails with the page's state when
     * it does not, or at once when the browser has given up on the stream.
     */
    private static void awaitReceived(int count, String what) {
        String script = "const p = window.page; return p ? (p.closed ? -1 : p.received.length) : 0";
        try {
            int received = new WebDriverWait(browser, PAGE_PATIENCE, Duration.ofMillis(100)).until(driver -> {
                int n = ((Number) ((JavascriptExecutor) driver).executeScript(script)).intValue();
                return n < 0 || n >= count ? n : null;
            });
            if (received < 0) {
                fail(
                        "the browser closed the EventSource (an HTTP error or a refused CORS answer) before it had %d"
                                + " %s; the page: %s (cluster logs in %s)",
                        count, what, summary(), cluster.logsDir());
            }
        } catch (TimeoutException e) {
            fail(
                    "the page did not receive %d %s within %s; the page: %s (cluster logs in %s)",
                    count, what, PAGE_PATIENCE, summary(), cluster.logsDir());
        }
    }

    private static JsonNode pageState() {
        Object state = ((JavascriptExecutor) browser).executeScript("return JSON.stringify(window.page)");
        return JSON.readTree((String) state);
    }

    /** The page's counters and the last few events, for failure messages. */
    private static String summary() {
        try {
            JsonNode page = pageState();
            JsonNode received = page.get("received");
            List<String> last = new ArrayList<>();
            for (int i = Math.max(0, received.size() - 5); i < received.size(); i++) {
                last.add(received.get(i).toString());
            }
            return "opens %d, connection errors %d, closed %s, control events %s, received %d, last %s"
                    .formatted(
                            page.get("opens").asInt(),
                            page.get("connectionErrors").asInt(),
                            page.get("closed").asBoolean(),
                            page.get("control"),
                            received.size(),
                            last);
        } catch (RuntimeException e) {
            return "unreadable (" + e + ")";
        }
    }

    /** The screenshot and the page's state, into target/, when the browser is there to ask. */
    private static void saveEvidence() {
        if (browser == null) {
            return;
        }
        Path target = Path.of(System.getProperty("tributary.build.dir", "target"));
        try {
            Files.createDirectories(target);
            Path png = target.resolve("browser-eventsource-failure.png");
            Files.write(png, browser.getScreenshotAs(OutputType.BYTES));
            Object state = ((JavascriptExecutor) browser).executeScript("return JSON.stringify(window.page)");
            Files.writeString(target.resolve("browser-eventsource-failure.json"), String.valueOf(state));
            log.error("screenshot of the page: {}; page state: {}", png.toAbsolutePath(), summary());
        } catch (IOException | RuntimeException e) {
            log.warn("could not save the screenshot", e);
        }
    }

    /** The test page, at / on 127.0.0.1 (an origin other than the gateway's). */
    private static HttpServer servePage() throws IOException {
        byte[] html;
        try (InputStream in = BrowserEventSourceIT.class.getResourceAsStream("eventsource-page.html")) {
            assertThat(in).as("eventsource-page.html on the test classpath").isNotNull();
            html = in.readAllBytes();
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                if (exchange.getRequestURI().getPath().equals("/")) {
                    exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
                    exchange.sendResponseHeaders(200, html.length);
                    exchange.getResponseBody().write(html);
                } else {
                    exchange.sendResponseHeaders(404, -1);
                }
            }
        });
        server.start();
        return server;
    }

    // ---- the cluster ----------------------------------------------------------------------------

    /** gateway-0's row of {@code bin/tributary status}: NAME PID STATE READY HTTP KAFKA RAFT. */
    private static String[] gatewayRow() {
        ProcessCluster.Result status = cluster.run("status");
        for (String line : status.output().lines().toList()) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length == 7 && columns[0].equals("gateway-0")) {
                return columns;
            }
        }
        throw new AssertionError("no gateway-0 in bin/tributary status:\n" + status.output());
    }

    private static long gatewayPid() {
        return Long.parseLong(gatewayRow()[1]);
    }

    private static String gatewayState() {
        return gatewayRow()[2];
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> list = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            list.add(i);
        }
        return list;
    }

    /**
     * Writes the values 0, 1, 2, ... (as JSON numbers, key {@code key-i}) to partition {@code i % 3},
     * one at a time, each acknowledged ({@code acks=all}, idempotent) before the next, one every
     * {@link #PRODUCE_INTERVAL}; so what was acknowledged is always exactly the values 0..n-1.
     */
    private static final class PacedProducer implements AutoCloseable {

        private final KafkaProducer<String, String> producer;
        private final AtomicInteger acknowledged = new AtomicInteger();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private volatile boolean stopping;
        private final Thread thread;

        PacedProducer(String bootstrap) {
            Map<String, Object> config = Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap,
                    ProducerConfig.ACKS_CONFIG,
                    "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    true,
                    ProducerConfig.LINGER_MS_CONFIG,
                    0,
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                    30_000,
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                    10_000);
            producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
            thread = Thread.ofPlatform().name("browser-it-producer").daemon().unstarted(this::produce);
        }

        void start() {
            thread.start();
        }

        private void produce() {
            try {
                for (int i = 0; i < MAX_RECORDS && !stopping; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "key-" + i, Integer.toString(i)))
                            .get(60, TimeUnit.SECONDS);
                    acknowledged.incrementAndGet();
                    Thread.sleep(PRODUCE_INTERVAL);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                failure.set(e);
            }
        }

        int acknowledged() {
            checkFailure();
            return acknowledged.get();
        }

        void awaitAcknowledged(int count) throws InterruptedException {
            long deadline = System.nanoTime() + PAGE_PATIENCE.toNanos();
            while (acknowledged() < count) {
                if (System.nanoTime() > deadline || !thread.isAlive()) {
                    fail("the producer wrote %d records, not %d, within %s", acknowledged(), count, PAGE_PATIENCE);
                }
                Thread.sleep(20);
            }
        }

        /** Stops after the record in flight; returns how many were acknowledged (values 0..n-1). */
        int stop() throws InterruptedException {
            stopping = true;
            thread.join(Duration.ofSeconds(70));
            assertThat(thread.isAlive()).as("the producer thread after stop").isFalse();
            return acknowledged();
        }

        private void checkFailure() {
            Throwable t = failure.get();
            if (t != null) {
                throw new AssertionError("the producer failed", t);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stopping = true;
            thread.join(Duration.ofSeconds(70));
            producer.close(Duration.ofSeconds(10));
        }
    }
}
