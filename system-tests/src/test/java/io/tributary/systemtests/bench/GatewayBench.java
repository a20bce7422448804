package io.tributary.systemtests.bench;

import io.tributary.systemtests.JsonText;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code bin/bench-gateway}'s load generator: one JVM, HdrHistogram latencies in microseconds, against
 * a running gateway and the Kafka bootstrap address of the cluster behind it.
 *
 * <ol>
 *   <li>HTTP produce: {@code POST /v1/topics/{t}/records} ({@code acks=all}, the default) with one
 *       record and with {@code {"records":[...]}} of 100 records per request, records of
 *       {@code --record-size} bytes, {@code --single-connections} / {@code --batch-connections}
 *       concurrent requests in a closed loop; then Kafka's own {@code KafkaProducer} ({@code
 *       acks=all}, otherwise defaults, unthrottled like {@code ProducerPerformance}) against the same
 *       cluster, so every HTTP figure also has a ratio to the native one. Each case runs {@code
 *       --warmup}, then is measured for {@code --duration}. Before any of them, a JIT warm-up round
 *       runs each of the three unmeasured for {@code --jit-warmup} seconds (default 20, 0 skips it)
 *       on its own topic (deleted afterwards): the gateway's C2 compiler otherwise spends a large
 *       share of a core compiling the produce path during the first measured windows. The HTTP cases
 *       use {@link PlainHttpConnection} ({@code --http-client=plain}, the default: one keep-alive
 *       socket per load thread, the request encoded once) or the JDK's {@code HttpClient} ({@code
 *       --http-client=jdk}), which costs the shared CPU about 11 ms per MB produced; every other
 *       request here uses the JDK's client.
 *   <li>CPU per produce case: each process's total CPU time ({@code ProcessHandle.Info
 *       .totalCpuDuration}) at the start and the end of the measured window, for the gateway, the
 *       broker and the coordinator ({@code --gateway-pid}, {@code --broker-pid}, {@code
 *       --coordinator-pid}) and this JVM; a second table gives per case each one's cores (CPU
 *       seconds per second) and milliseconds of CPU per MB of record values, and the total ({@code
 *       n/a} where a PID is missing or no reading was possible, and in the total then). On a small machine where all of
 *       them share the cores, the HTTP-to-native ratio is bounded by the total CPU per MB of each
 *       case; the gateway's own ms/MB is what would bound the HTTP cases on a machine with cores to
 *       spare.
 *   <li>SSE fan-out: for each count in {@code --streams}, that many streams ({@code from=latest}) on a
 *       fresh topic; once all are open and idle, the gateway's heap after a full GC ({@code jcmd
 *       GC.run}) from {@code /actuator/prometheus}; then a native producer writes {@code
 *       --sse-events / streams} records and the delivered events per second (every stream's, until
 *       the last stream has them all) and the peak heap while delivering.
 *   <li>End to end: one stream ({@code from=latest}) while single-record POSTs go out at {@code
 *       --e2e-rate} per second on an open-loop schedule (each POST on its own virtual thread, on an
 *       idle keep-alive connection of the plain client or a new one, or on the JDK client; at most
 *       {@code --e2e-max-in-flight} at once, default 1,000, beyond which a POST waits and is
 *       counted); the latency of each record from its POST's scheduled time (its value carries it,
 *       one JVM's {@code nanoTime}) to its receipt on the stream.
 * </ol>
 *
 * <p>Arguments are {@code --name=value}; the results are printed as Markdown tables and written to
 * {@code --out}, and every figure of every case goes to {@code --json} ({@link JsonText}): per
 * produce case the counts, the measured seconds, the rates, the latency percentiles in ms and the
 * whole latency histogram (HdrHistogram's compressed encoding in base64, values in microseconds), and
 * each process's CPU seconds in the window; per fan-out case the counts, rates and heap readings; the
 * end-to-end counts, percentiles and histogram; the generator's options, cores, JDK and load average
 * at the start and the end. {@code bin/bench-ratios} recomputes the ratios {@code
 * docs/benchmarks.md} states from that file.
 */
public final class GatewayBench {

    /** The processes whose CPU time the produce cases read, in the CPU table's order. */
    private static final List<String> CPU_PROCESSES = List.of("gateway", "broker", "coordinator", "generator");

    private final String gateway;
    private final String bootstrap;
    private final long gatewayPid;
    private final long brokerPid;
    private final long coordinatorPid;
    private final boolean plainClient;
    private final Duration jitWarmup;
    private final String jcmd;
    private final int partitions;
    private final int recordSize;
    private final Duration warmup;
    private final Duration duration;
    private final int singleConnections;
    private final int batchConnections;
    private final int batchRecords;
    private final List<Integer> streamCounts;
    private final long sseEvents;
    private final int e2eRate;
    private final Duration e2eDuration;
    private final int e2eMaxInFlight;
    private final Path out;
    private final Path json;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    private final Admin admin;
    private final StringBuilder report = new StringBuilder();
    /** Everything {@code --json} receives, in the order it is measured. */
    private final Map<String, Object> results = new LinkedHashMap<>();

    private final String payload;
    private double nativeMbPerSecond = Double.NaN;

    private GatewayBench(Map<String, String> o) {
        gateway = required(o, "gateway");
        bootstrap = required(o, "bootstrap");
        gatewayPid = Long.parseLong(o.getOrDefault("gateway-pid", "0"));
        brokerPid = Long.parseLong(o.getOrDefault("broker-pid", "0"));
        coordinatorPid = Long.parseLong(o.getOrDefault("coordinator-pid", "0"));
        String client = o.getOrDefault("http-client", "plain");
        if (!client.equals("plain") && !client.equals("jdk")) {
            throw new IllegalArgumentException("--http-client is plain or jdk, got " + client);
        }
        plainClient = client.equals("plain");
        jitWarmup = Duration.ofSeconds(Long.parseLong(o.getOrDefault("jit-warmup", "20")));
        jcmd = o.getOrDefault(
                "jcmd", Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        partitions = Integer.parseInt(o.getOrDefault("partitions", "3"));
        recordSize = Integer.parseInt(o.getOrDefault("record-size", "1024"));
        warmup = Duration.ofSeconds(Long.parseLong(o.getOrDefault("warmup", "5")));
        duration = Duration.ofSeconds(Long.parseLong(o.getOrDefault("duration", "15")));
        singleConnections = Integer.parseInt(o.getOrDefault("single-connections", "32"));
        batchConnections = Integer.parseInt(o.getOrDefault("batch-connections", "32"));
        batchRecords = Integer.parseInt(o.getOrDefault("batch-records", "100"));
        streamCounts = List.of(o.getOrDefault("streams", "1,100,1000").split(",")).stream()
                .map(String::strip)
                .map(Integer::parseInt)
                .toList();
        sseEvents = Long.parseLong(o.getOrDefault("sse-events", "200000"));
        e2eRate = Integer.parseInt(o.getOrDefault("e2e-rate", "1000"));
        e2eDuration = Duration.ofSeconds(Long.parseLong(o.getOrDefault("e2e-duration", "20")));
        e2eMaxInFlight = Integer.parseInt(o.getOrDefault("e2e-max-in-flight", "1000"));
        out = Path.of(o.getOrDefault("out", "gateway-bench.md"));
        json = Path.of(o.getOrDefault("json", "gateway-bench.json"));
        results.put("options", new LinkedHashMap<>(o));
        if (recordSize < 64) {
            throw new IllegalArgumentException("--record-size must be at least 64");
        }
        // A JSON string of exactly recordSize bytes (with its quotes): what the cluster stores.
        var random = new Random(42);
        var chars = new StringBuilder(recordSize);
        chars.append('"');
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        while (chars.length() < recordSize - 1) {
            chars.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        payload = chars.append('"').toString();
        admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                60_000));
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new java.util.LinkedHashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("arguments are --name=value, got " + arg);
            }
            options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        var bench = new GatewayBench(options);
        try {
            bench.run();
        } finally {
            bench.admin.close(Duration.ofSeconds(10));
        }
        System.exit(0);
    }

    private void run() throws Exception {
        String loadAtStart = loadAverage();
        var generator = new LinkedHashMap<String, Object>();
        generator.put("cores", Runtime.getRuntime().availableProcessors());
        generator.put("jdk", System.getProperty("java.version"));
        generator.put("load_average_start", loadAtStart);
        results.put("generator", generator);
        line("Load generator: %d cores, JDK %s; load average at start %s"
                .formatted(
                        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), loadAtStart));
        line("");
        line("### HTTP produce and Kafka's producer (%d-byte records, acks=all, %d partitions)"
                .formatted(recordSize, partitions));
        line("");
        jitWarmupRound();
        String nativeTopic = createTopic("bench-native-" + System.currentTimeMillis());
        Measured nativeRun = nativeProduce(nativeTopic, warmup, duration);
        nativeMbPerSecond = nativeRun.mbPerSecond();
        settle(List.of(nativeTopic));
        String singleTopic = createTopic("bench-http-1-" + System.currentTimeMillis());
        Measured single = httpProduce(1, singleConnections, singleTopic, warmup, duration);
        settle(List.of(singleTopic));
        String batchTopic = createTopic("bench-http-%d-%d".formatted(batchRecords, System.currentTimeMillis()));
        Measured batch = httpProduce(batchRecords, batchConnections, batchTopic, warmup, duration);
        settle(List.of(batchTopic));
        String singleLabel = "HTTP, 1 record per request";
        String batchLabel = "HTTP, %d records per request".formatted(batchRecords);
        String nativeLabel = "Kafka producer (kafka-clients, acks=all, defaults)";
        line("| case | connections | requests/s | records/s | MB/s | p50 ms | p99 ms | MB/s ratio to native |");
        line("|---|---|---|---|---|---|---|---|");
        row(singleLabel, singleConnections, single);
        row(batchLabel, batchConnections, batch);
        row(nativeLabel, 1, nativeRun);
        var produce = new LinkedHashMap<String, Object>();
        produce.put("http_single", produceFigures(singleLabel, singleConnections, single));
        produce.put("http_batch", produceFigures(batchLabel, batchConnections, batch));
        produce.put("native", produceFigures(nativeLabel, 1, nativeRun));
        results.put("produce", produce);
        line("");
        line("Latency is per request (HTTP) or from send() to the acknowledgement (Kafka producer, which"
                + " queues records in its buffer); MB = 2^20 bytes of record values. HTTP client: %s; JIT"
                        .formatted(
                                plainClient
                                        ? "plain (PlainHttpConnection, one keep-alive socket per connection)"
                                        : "the JDK's HttpClient")
                + (jitWarmup.isZero()
                        ? " warm-up round skipped."
                        : " warm-up round of %d s per case before anything was measured."
                                .formatted(jitWarmup.toSeconds())));
        line("");
        line("CPU in the measured window of each case: cores = CPU seconds per second, ms/MB = CPU"
                + " milliseconds per MB of record values (n/a: no PID or no reading)");
        line("");
        var header = new StringBuilder("| case |");
        for (String process : CPU_PROCESSES) {
            header.append(" %1$s cores | %1$s ms/MB |".formatted(process));
        }
        line(header.append(" total cores | total ms/MB |").toString());
        line("|---|" + "---|---|".repeat(CPU_PROCESSES.size() + 1));
        cpuRow(singleLabel, single);
        cpuRow(batchLabel, batch);
        cpuRow(nativeLabel, nativeRun);
        line("");
        save();

        line("### SSE fan-out (streams from=latest; a Kafka producer writes the records)");
        line("");
        line(
                "| streams | records | events delivered | events/s | producer records/s | heap after GC, streams open and idle (MiB) | peak heap while delivering (MiB) | streams that failed |");
        line("|---|---|---|---|---|---|---|---|");
        var fanOut = new LinkedHashMap<String, Object>();
        results.put("sse", fanOut);
        for (int streams : streamCounts) {
            fanOut.put(Integer.toString(streams), sseFanOut(streams));
            save();
        }
        line("");

        line("### End to end: POST to SSE receipt");
        line("");
        line("| target rate | records sent | received | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms |");
        line("|---|---|---|---|---|---|---|---|");
        settle(List.of());
        endToEnd();
        line("");
        String loadAtEnd = loadAverage();
        generator.put("load_average_end", loadAtEnd);
        line("Load average at the end: " + loadAtEnd);
        save();
    }

    /**
     * Writes the tables ({@code --out}) and the figures ({@code --json}) measured so far: a case that
     * fails or hangs later leaves every earlier case's figures on disk.
     */
    private void save() throws IOException {
        Files.writeString(out, report.toString());
        Files.writeString(json, JsonText.write(results));
    }

    // ---- produce ------------------------------------------------------------------------------

    /**
     * Requests (or records, for the Kafka producer), their latencies, the measured seconds and the
     * CPU the processes used meanwhile.
     */
    record Measured(
            long requests,
            long records,
            long failures,
            double seconds,
            Histogram latencyMicros,
            int size,
            CpuUsage cpu) {
        double mbPerSecond() {
            return megabytes() / seconds;
        }

        double megabytes() {
            return records * (double) size / (1 << 20);
        }
    }

    /**
     * The JIT warm-up round: each produce case unmeasured for {@code --jit-warmup} on its own topic,
     * so that the gateway's (and the broker's) C2 compiler has compiled the produce path before any
     * case is measured; the topics are deleted afterwards.
     */
    private void jitWarmupRound() throws Exception {
        if (jitWarmup.isZero()) {
            progress("JIT warm-up round skipped (--jit-warmup=0)");
            return;
        }
        progress(
                "JIT warm-up round: each produce case unmeasured for %d s on its own topic (%d s in all)",
                jitWarmup.toSeconds(), 3 * jitWarmup.toSeconds());
        List<String> topics = List.of(
                createTopic("bench-jit-native-" + System.currentTimeMillis()),
                createTopic("bench-jit-http-1-" + System.currentTimeMillis()),
                createTopic("bench-jit-http-%d-%d".formatted(batchRecords, System.currentTimeMillis())));
        nativeProduce(topics.get(0), jitWarmup, Duration.ZERO);
        httpProduce(1, singleConnections, topics.get(1), jitWarmup, Duration.ZERO);
        httpProduce(batchRecords, batchConnections, topics.get(2), jitWarmup, Duration.ZERO);
        settle(topics);
    }

    /**
     * Between cases: deletes the topics no later case reads, then runs {@code sync}, so that no case
     * is measured while the kernel writes back the gigabytes an earlier one appended (a produce case
     * appends several GB in a minute; writeback competing for the disk and dirty-page throttling in
     * the broker's appends showed as a 100 ms tail end to end). Deleting first lets the kernel drop
     * those files' dirty pages instead of writing them.
     */
    private void settle(List<String> deleteTopics) {
        long t0 = System.nanoTime();
        try {
            if (!deleteTopics.isEmpty()) {
                admin.deleteTopics(deleteTopics).all().get(60, TimeUnit.SECONDS);
                Thread.sleep(2_000); // the broker deletes the logs after it learns of the deletion
            }
        } catch (Exception e) {
            progress("  topics %s stay: deleting them failed: %s", deleteTopics, e);
        }
        try {
            Process sync = new ProcessBuilder("sync").inheritIO().start();
            if (!sync.waitFor(120, TimeUnit.SECONDS)) {
                sync.destroy();
                progress("  sync did not finish in 120 s; going on");
            }
        } catch (IOException e) {
            progress("  could not run sync: %s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        progress("  settled in %.1f s (deleted %s, then sync)", (System.nanoTime() - t0) / 1e9, deleteTopics);
    }

    /**
     * {@code connections} load threads POST {@code recordsPerRequest} records per request to {@code
     * topic} in a closed loop, {@code unmeasured} then {@code measured} long ({@link Duration#ZERO}: a
     * warm-up only, nothing measured).
     */
    private Measured httpProduce(
            int recordsPerRequest, int connections, String topic, Duration unmeasured, Duration measured)
            throws Exception {
        String body;
        if (recordsPerRequest == 1) {
            body = "{\"value\":" + payload + "}";
        } else {
            var b = new StringBuilder("{\"records\":[");
            for (int i = 0; i < recordsPerRequest; i++) {
                b.append(i == 0 ? "" : ",")
                        .append("{\"value\":")
                        .append(payload)
                        .append('}');
            }
            body = b.append("]}").toString();
        }
        URI uri = URI.create(gateway + "/v1/topics/" + topic + "/records");
        // Encoded once, shared by every load thread: the plain client's bytes or the JDK's request.
        byte[] plainRequest = PlainHttpConnection.post(uri, "application/json", body.getBytes(StandardCharsets.UTF_8));
        HttpRequest jdkRequest = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        var latency = new ConcurrentHistogram(3);
        var requests = new AtomicLong();
        var failures = new AtomicLong();
        long measureFrom = System.nanoTime() + unmeasured.toNanos();
        long end = measureFrom + measured.toNanos();
        var lastDone = new AtomicLong(measureFrom);
        CompletableFuture<CpuSample> cpuFrom = measured.isZero() ? null : cpuSampleAt(measureFrom);
        progress(
                "HTTP produce, %d record(s) per request, %d connections, topic %s, %s",
                recordsPerRequest, connections, topic, measured.isZero() ? "warm-up only" : "measured");
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < connections; c++) {
                threads.submit(() -> {
                    var plain = plainClient
                            ? new PlainHttpConnection(
                                    PlainHttpConnection.addressOf(uri), Duration.ofSeconds(10), Duration.ofSeconds(60))
                            : null;
                    try {
                        for (long t0 = System.nanoTime(); t0 < end; t0 = System.nanoTime()) {
                            try {
                                PlainHttpConnection.Response response =
                                        plain != null ? plain.send(plainRequest) : jdkSend(jdkRequest);
                                long t1 = System.nanoTime();
                                if (response.status() != 200) {
                                    if (failures.incrementAndGet() <= 3) {
                                        progress("  answer %d: %s", response.status(), response.bodyText());
                                    }
                                } else if (t0 >= measureFrom) {
                                    latency.recordValue((t1 - t0) / 1000);
                                    requests.incrementAndGet();
                                    lastDone.accumulateAndGet(t1, Math::max);
                                }
                            } catch (IOException e) {
                                if (failures.incrementAndGet() <= 3) {
                                    progress("  %s", e);
                                }
                            }
                        }
                    } finally {
                        if (plain != null) {
                            plain.close();
                        }
                    }
                    return null;
                });
            }
        }
        CpuUsage cpu = cpuFrom == null ? null : new CpuUsage(cpuFrom.get(), cpuSample());
        double seconds = (lastDone.get() - measureFrom) / 1e9;
        return new Measured(
                requests.get(), requests.get() * recordsPerRequest, failures.get(), seconds, latency, recordSize, cpu);
    }

    /**
     * One end-to-end POST of a JSON body, its status: on an idle plain connection from {@code idle}
     * (or a new one; given back after a whole answer, closed by a failure), or on the JDK client.
     */
    private int postJson(URI uri, String body, Queue<PlainHttpConnection> idle)
            throws IOException, InterruptedException {
        if (!plainClient) {
            return jdkSend(HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(30))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build())
                    .status();
        }
        PlainHttpConnection connection = idle.poll();
        if (connection == null) {
            connection = new PlainHttpConnection(
                    PlainHttpConnection.addressOf(uri), Duration.ofSeconds(10), Duration.ofSeconds(30));
        }
        int status = connection
                .send(PlainHttpConnection.post(uri, "application/json", body.getBytes(StandardCharsets.UTF_8)))
                .status();
        idle.add(connection);
        return status;
    }

    /** The JDK client's answer as the plain client's: the body kept only for a failure. */
    private PlainHttpConnection.Response jdkSend(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        return new PlainHttpConnection.Response(
                response.statusCode(), response.statusCode() / 100 == 2 ? new byte[0] : response.body());
    }

    /** Kafka's producer on {@code topic}, {@code unmeasured} then {@code measured} long (see httpProduce). */
    private Measured nativeProduce(String topic, Duration unmeasured, Duration measured) throws Exception {
        progress("Kafka producer, topic %s, %s", topic, measured.isZero() ? "warm-up only" : "measured");
        var latency = new ConcurrentHistogram(3);
        var records = new AtomicLong();
        var failures = new AtomicLong();
        long measureFrom = System.nanoTime() + unmeasured.toNanos();
        long end = measureFrom + measured.toNanos();
        var lastDone = new AtomicLong(measureFrom);
        CompletableFuture<CpuSample> cpuFrom = measured.isZero() ? null : cpuSampleAt(measureFrom);
        CpuUsage cpu;
        byte[] value = payload.getBytes(StandardCharsets.UTF_8);
        try (var producer = producer()) {
            for (long t0 = System.nanoTime(); t0 < end; t0 = System.nanoTime()) {
                long sent = t0;
                producer.send(new ProducerRecord<>(topic, value), (metadata, e) -> {
                    long t1 = System.nanoTime();
                    if (e != null) {
                        failures.incrementAndGet();
                    } else if (sent >= measureFrom) {
                        latency.recordValue((t1 - sent) / 1000);
                        records.incrementAndGet();
                        lastDone.accumulateAndGet(t1, Math::max);
                    }
                });
            }
            producer.flush();
            cpu = cpuFrom == null ? null : new CpuUsage(cpuFrom.get(), cpuSample());
        }
        return new Measured(
                records.get(),
                records.get(),
                failures.get(),
                (lastDone.get() - measureFrom) / 1e9,
                latency,
                recordSize,
                cpu);
    }

    private void row(String label, int connections, Measured m) {
        line("| %s | %d | %s | %.0f | %.1f | %.1f | %.1f | %s |"
                        .formatted(
                                label,
                                connections,
                                label.startsWith("Kafka") ? "-" : "%.0f".formatted(m.requests() / m.seconds()),
                                m.records() / m.seconds(),
                                m.mbPerSecond(),
                                m.latencyMicros().getValueAtPercentile(50) / 1000.0,
                                m.latencyMicros().getValueAtPercentile(99) / 1000.0,
                                "%.2f".formatted(m.mbPerSecond() / nativeMbPerSecond))
                + (m.failures() > 0 ? " (%d failed)".formatted(m.failures()) : ""));
    }

    /** One produce case's every figure for {@code --json}: counts, rates, latency, CPU. */
    private static Map<String, Object> produceFigures(String label, int connections, Measured m) {
        var f = new LinkedHashMap<String, Object>();
        f.put("label", label);
        f.put("connections", connections);
        f.put("requests", m.requests());
        f.put("records", m.records());
        f.put("failures", m.failures());
        f.put("record_bytes", m.size());
        f.put("seconds", m.seconds());
        f.put("requests_per_s", m.requests() / m.seconds());
        f.put("records_per_s", m.records() / m.seconds());
        f.put("mb_per_s", m.mbPerSecond());
        f.put("latency_ms", latencyFigures(m.latencyMicros()));
        f.put("latency_us_hdr_histogram", encoded(m.latencyMicros()));
        var cpu = new LinkedHashMap<String, Object>();
        if (m.cpu() != null) {
            cpu.put("window_seconds", m.cpu().seconds());
            List<Optional<Duration>> used = m.cpu().used();
            for (int i = 0; i < CPU_PROCESSES.size(); i++) {
                cpu.put(CPU_PROCESSES.get(i), cpuFigures(used.get(i), m.cpu().seconds(), m.megabytes()));
            }
            cpu.put("total", cpuFigures(total(used), m.cpu().seconds(), m.megabytes()));
        }
        f.put("cpu", cpu);
        return f;
    }

    /** A process's CPU seconds, cores and ms per MB in a window, or {@code null} without a reading. */
    private static Map<String, Object> cpuFigures(Optional<Duration> cpu, double seconds, double megabytes) {
        return cpu.<Map<String, Object>>map(d -> {
                    var f = new LinkedHashMap<String, Object>();
                    f.put("cpu_seconds", d.toNanos() / 1e9);
                    f.put("cores", d.toNanos() / 1e9 / seconds);
                    f.put("ms_per_mb", d.toNanos() / 1e6 / megabytes);
                    return f;
                })
                .orElse(null);
    }

    /** A latency histogram's count, mean and percentiles, recorded in microseconds, in milliseconds. */
    private static Map<String, Object> latencyFigures(Histogram micros) {
        var f = new LinkedHashMap<String, Object>();
        f.put("count", micros.getTotalCount());
        f.put("mean", micros.getMean() / 1000.0);
        f.put("p50", micros.getValueAtPercentile(50) / 1000.0);
        f.put("p90", micros.getValueAtPercentile(90) / 1000.0);
        f.put("p99", micros.getValueAtPercentile(99) / 1000.0);
        f.put("p99_9", micros.getValueAtPercentile(99.9) / 1000.0);
        f.put("max", micros.getMaxValue() / 1000.0);
        return f;
    }

    /** HdrHistogram's compressed encoding of {@code histogram}, in base64. */
    private static String encoded(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    }

    /** The sum of every process's CPU, empty when any reading is missing. */
    private static Optional<Duration> total(List<Optional<Duration>> used) {
        return used.stream().reduce(Optional.of(Duration.ZERO), (a, b) -> a.flatMap(x -> b.map(x::plus)));
    }

    private void cpuRow(String label, Measured m) {
        var cells = new StringBuilder("| ").append(label).append(" |");
        double megabytes = m.megabytes();
        List<Optional<Duration>> used = m.cpu().used();
        for (Optional<Duration> cpu : used) {
            cells.append(cpuCells(cpu, m.cpu().seconds(), megabytes));
        }
        cells.append(cpuCells(total(used), m.cpu().seconds(), megabytes));
        line(cells.toString());
    }

    private static String cpuCells(Optional<Duration> cpu, double seconds, double megabytes) {
        return cpu.map(d -> " %.2f | %.1f |".formatted(d.toNanos() / 1e9 / seconds, d.toNanos() / 1e6 / megabytes))
                .orElse(" n/a | n/a |");
    }

    // ---- CPU time -----------------------------------------------------------------------------

    /**
     * Each process's total CPU time (user and system, all threads) in the order of {@link
     * #CPU_PROCESSES}, empty when its PID was not given or the system does not report it, read at
     * {@code nanoTime}.
     */
    record CpuSample(long nanoTime, List<Optional<Duration>> cpu) {}

    /** The CPU each process used between two samples, and the seconds between them. */
    record CpuUsage(CpuSample from, CpuSample to) {
        double seconds() {
            return (to.nanoTime() - from.nanoTime()) / 1e9;
        }

        List<Optional<Duration>> used() {
            List<Optional<Duration>> used = new ArrayList<>();
            for (int i = 0; i < from.cpu().size(); i++) {
                Optional<Duration> end = to.cpu().get(i);
                used.add(from.cpu().get(i).flatMap(start -> end.map(e -> e.minus(start))));
            }
            return used;
        }
    }

    private CpuSample cpuSample() {
        List<Optional<Duration>> cpu = new ArrayList<>();
        for (long pid : new long[] {gatewayPid, brokerPid, coordinatorPid}) {
            cpu.add(pid > 0 ? ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()) : Optional.empty());
        }
        cpu.add(ProcessHandle.current().info().totalCpuDuration());
        return new CpuSample(System.nanoTime(), List.copyOf(cpu));
    }

    /** A CPU sample taken at {@code nanoTime} (on a virtual thread that waits for it). */
    private CompletableFuture<CpuSample> cpuSampleAt(long nanoTime) {
        var sample = new CompletableFuture<CpuSample>();
        Thread.ofVirtual().start(() -> {
            for (long wait = nanoTime - System.nanoTime(); wait > 0; wait = nanoTime - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            sample.complete(cpuSample());
        });
        return sample;
    }

    private KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(
                Map.<String, Object>of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    // ---- SSE ----------------------------------------------------------------------------------

    /** One SSE client: counts {@code event: record} frames; the first {@code target} reached is timed. */
    private final class Stream implements Runnable {
        final AtomicLong received = new AtomicLong();
        final long target;
        final CountDownLatch opened;
        final LongConsumer sendTimes;
        final URI uri;
        volatile long reachedAt;
        volatile InputStream body;
        volatile String failure;
        volatile boolean closing;

        Stream(URI uri, long target, CountDownLatch opened, LongConsumer sendTimes) {
            this.uri = uri;
            this.target = target;
            this.opened = opened;
            this.sendTimes = sendTimes;
        }

        @Override
        public void run() {
            var request = HttpRequest.newBuilder(uri)
                    .header("Accept", "text/event-stream")
                    .GET()
                    .build();
            try {
                HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
                if (response.statusCode() != 200) {
                    try (InputStream in = response.body()) {
                        failure = response.statusCode() + " " + new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    }
                    return;
                }
                body = response.body();
                opened.countDown();
                var reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8), 1 << 16);
                boolean record = false;
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    if (line.startsWith("event: ")) {
                        record = line.equals("event: record");
                    } else if (record && line.startsWith("data: ")) {
                        long n = received.incrementAndGet();
                        if (n == target) {
                            reachedAt = System.nanoTime();
                        }
                        if (sendTimes != null) {
                            int at = line.indexOf("\"value\":\"e2e-");
                            if (at >= 0) {
                                int from = at + "\"value\":\"e2e-".length();
                                sendTimes.accept(Long.parseLong(line, from, line.indexOf('-', from), 10));
                            }
                        }
                    } else if (line.isEmpty()) {
                        record = false;
                    }
                }
                if (!closing) {
                    failure = "the gateway ended the stream";
                }
            } catch (IOException e) {
                if (!closing) {
                    failure = e.toString();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (opened.getCount() > 0 && body == null) {
                    opened.countDown();
                }
            }
        }

        void close() {
            closing = true;
            InputStream in = body;
            if (in != null) {
                try {
                    in.close();
                } catch (IOException ignored) {
                    // closing a stream the gateway already ended
                }
            }
        }
    }

    /** One fan-out case: its table row, and its figures for {@code --json}. */
    private Map<String, Object> sseFanOut(int streams) throws Exception {
        String topic = createTopic("bench-sse-" + streams + "-" + System.currentTimeMillis());
        long perStream = Math.max(100, Math.min(50_000, sseEvents / streams));
        awaitActiveStreamsAtMost(0);
        progress("SSE: %d streams on %s, %d records", streams, topic, perStream);
        URI uri = URI.create(gateway + "/v1/topics/" + topic + "/events?from=latest");
        var opened = new CountDownLatch(streams);
        List<Stream> clients = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < streams; i++) {
                var client = new Stream(uri, perStream, opened, null);
                clients.add(client);
                threads.submit(client);
            }
            if (!opened.await(120, TimeUnit.SECONDS)) {
                progress("  only %d of %d streams opened in 120 s", streams - opened.getCount(), streams);
            }
            double idleHeap = heapAfterGc();
            progress(
                    "  open: %d, heap after GC %.1f MiB, active streams (gateway) %s",
                    streams - failed(clients), idleHeap, gatewayMetric("tributary_gateway_sse_active_streams"));

            long t0 = System.nanoTime();
            long produced;
            double producerSeconds;
            var peakHeap = new double[] {0};
            Thread sampler = Thread.ofVirtual().start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        peakHeap[0] = Math.max(peakHeap[0], heapMiB());
                        Thread.sleep(250);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        // a missed sample
                    }
                }
            });
            byte[] value = payload.getBytes(StandardCharsets.UTF_8);
            try (var producer = producer()) {
                for (long i = 0; i < perStream; i++) {
                    producer.send(new ProducerRecord<>(topic, value));
                }
                producer.flush();
                produced = perStream;
                producerSeconds = (System.nanoTime() - t0) / 1e9;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (System.nanoTime() < deadline
                    && clients.stream().anyMatch(c -> c.failure == null && c.reachedAt == 0)) {
                Thread.sleep(50);
            }
            sampler.interrupt();
            sampler.join();
            long last = clients.stream().mapToLong(c -> c.reachedAt).max().orElse(t0);
            boolean complete = clients.stream().allMatch(c -> c.reachedAt != 0);
            long delivered = clients.stream()
                    .mapToLong(c -> Math.min(c.received.get(), perStream))
                    .sum();
            double seconds = ((complete ? last : System.nanoTime()) - t0) / 1e9;
            long failedStreams = failed(clients);
            line("| %d | %d | %d%s | %.0f | %.0f | %.1f | %.1f | %d%s |"
                    .formatted(
                            streams,
                            produced,
                            delivered,
                            complete ? "" : " of " + produced * streams,
                            delivered / seconds,
                            produced / producerSeconds,
                            idleHeap,
                            peakHeap[0],
                            failedStreams,
                            failedStreams > 0 ? " (" + firstFailure(clients) + ")" : ""));
            for (Stream c : clients) {
                c.close();
            }
            // One more record: every stream the clients just closed notices it at its next write.
            try (var producer = producer()) {
                producer.send(new ProducerRecord<>(topic, value)).get(60, TimeUnit.SECONDS);
            }
            var f = new LinkedHashMap<String, Object>();
            f.put("streams", streams);
            f.put("records", produced);
            f.put("events_expected", produced * streams);
            f.put("events_delivered", delivered);
            f.put("complete", complete);
            f.put("seconds", seconds);
            f.put("events_per_s", delivered / seconds);
            f.put("producer_seconds", producerSeconds);
            f.put("producer_records_per_s", produced / producerSeconds);
            f.put("idle_heap_after_gc_mib", idleHeap);
            f.put("peak_heap_mib", peakHeap[0]);
            f.put("failed_streams", failedStreams);
            f.put("first_failure", failedStreams > 0 ? firstFailure(clients) : null);
            return f;
        }
    }

    private static long failed(List<Stream> clients) {
        return clients.stream().filter(c -> c.failure != null).count();
    }

    private static String firstFailure(List<Stream> clients) {
        return clients.stream()
                .map(c -> c.failure)
                .filter(f -> f != null)
                .findFirst()
                .map(f -> f.length() > 120 ? f.substring(0, 120) : f)
                .orElse("");
    }

    // ---- end to end ---------------------------------------------------------------------------

    private void endToEnd() throws Exception {
        String topic = createTopic("bench-e2e-" + System.currentTimeMillis());
        awaitActiveStreamsAtMost(0);
        var latency = new ConcurrentHistogram(3);
        long start = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        long measureFrom = start + warmup.toNanos();
        long total = (long) e2eRate * (warmup.toSeconds() + e2eDuration.toSeconds());
        long measured = (long) e2eRate * e2eDuration.toSeconds();
        var opened = new CountDownLatch(1);
        var stream =
                new Stream(URI.create(gateway + "/v1/topics/" + topic + "/events?from=latest"), total, opened, sent -> {
                    long now = System.nanoTime();
                    if (sent >= measureFrom) {
                        latency.recordValue((now - sent) / 1000);
                    }
                });
        progress("end to end: %d POSTs at %d/s to %s", total, e2eRate, topic);
        var failures = new AtomicLong();
        URI produce = URI.create(gateway + "/v1/topics/" + topic + "/records");
        String pad = payload.substring(1, payload.length() - 1);
        // With the plain client, each POST borrows an idle keep-alive connection (or opens one) and
        // gives it back: as many connections as POSTs are ever in flight at once. Each holds 128 KiB
        // of buffers, so the POSTs in flight are bounded (--e2e-max-in-flight): on a machine loaded
        // enough that more would be outstanding (a run at load average 48 had the generator's 1 GiB
        // heap exhausted by them), a POST waits for a slot, and is counted, instead. Its latency runs
        // from its scheduled time, so the wait is in it.
        var idle = new ConcurrentLinkedQueue<PlainHttpConnection>();
        var inFlight = new Semaphore(e2eMaxInFlight);
        var waited = new AtomicLong();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            threads.submit(stream);
            opened.await(60, TimeUnit.SECONDS);
            for (long i = 0; i < total; i++) {
                long due = start + i * 1_000_000_000L / e2eRate;
                for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                    LockSupport.parkNanos(wait);
                }
                threads.submit(() -> {
                    if (!inFlight.tryAcquire()) {
                        waited.incrementAndGet();
                        inFlight.acquire();
                    }
                    String head = "e2e-" + due + "-";
                    String value = "\"" + head + pad.substring(Math.min(pad.length(), head.length())) + "\"";
                    String body = "{\"value\":" + value + "}";
                    try {
                        if (postJson(produce, body, idle) != 200) {
                            failures.incrementAndGet();
                        }
                    } catch (IOException e) {
                        failures.incrementAndGet();
                    } finally {
                        inFlight.release();
                    }
                    return null;
                });
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (stream.received.get() < total - failures.get()
                    && stream.failure == null
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            stream.close();
        }
        idle.forEach(PlainHttpConnection::close);
        var f = new LinkedHashMap<String, Object>();
        f.put("rate_per_s", e2eRate);
        f.put("sent", total);
        f.put("measured", measured);
        f.put("received", stream.received.get());
        f.put("failed_posts", failures.get());
        f.put("max_in_flight", e2eMaxInFlight);
        f.put("posts_that_waited_for_a_slot", waited.get());
        f.put("latency_ms", latencyFigures(latency));
        f.put("latency_us_hdr_histogram", encoded(latency));
        results.put("end_to_end", f);
        line("| %d/s | %d (%d measured) | %d | %.1f | %.1f | %.1f | %.1f | %.1f |%s"
                .formatted(
                        e2eRate,
                        total,
                        measured,
                        stream.received.get(),
                        latency.getValueAtPercentile(50) / 1000.0,
                        latency.getValueAtPercentile(90) / 1000.0,
                        latency.getValueAtPercentile(99) / 1000.0,
                        latency.getValueAtPercentile(99.9) / 1000.0,
                        latency.getMaxValue() / 1000.0,
                        (failures.get() > 0 ? " %d POSTs failed".formatted(failures.get()) : "")
                                + (waited.get() > 0
                                        ? " %d POSTs waited for one of the %d in flight"
                                                .formatted(waited.get(), e2eMaxInFlight)
                                        : "")));
    }

    // ---- cluster and gateway ------------------------------------------------------------------

    private String createTopic(String name) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                .all()
                .get(60, TimeUnit.SECONDS);
        // The gateway learns the topic through its own metadata: wait until it answers for it.
        var request = HttpRequest.newBuilder(URI.create(gateway + "/v1/topics/" + name))
                .timeout(Duration.ofSeconds(30))
                .build();
        for (int attempt = 0; attempt < 120; attempt++) {
            if (http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                return name;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the gateway does not know topic " + name + " after 30 s");
    }

    /** Waits (up to 60 s) until the gateway reports at most {@code count} open SSE streams. */
    private void awaitActiveStreamsAtMost(int count) throws Exception {
        for (int attempt = 0; attempt < 240; attempt++) {
            if (gatewayMetric("tributary_gateway_sse_active_streams") <= count) {
                return;
            }
            Thread.sleep(250);
        }
        progress("  the gateway still has %s streams open", gatewayMetric("tributary_gateway_sse_active_streams"));
    }

    /** The gateway's heap in use after a full GC ({@code jcmd <pid> GC.run}), in MiB. */
    private double heapAfterGc() throws Exception {
        if (gatewayPid > 0) {
            Process gc = new ProcessBuilder(jcmd, Long.toString(gatewayPid), "GC.run")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!gc.waitFor(60, TimeUnit.SECONDS)) {
                gc.destroyForcibly();
            }
            Thread.sleep(500);
        }
        return heapMiB();
    }

    private double heapMiB() throws Exception {
        double bytes = 0;
        for (String line : metrics()) {
            if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                bytes += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return bytes / (1 << 20);
    }

    private double gatewayMetric(String name) throws Exception {
        double sum = 0;
        for (String line : metrics()) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    private List<String> metrics() throws Exception {
        var request = HttpRequest.newBuilder(URI.create(gateway + "/actuator/prometheus"))
                .timeout(Duration.ofSeconds(30))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString())
                .body()
                .lines()
                .toList();
    }

    // ---- output -------------------------------------------------------------------------------

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private void line(String text) {
        report.append(text).append('\n');
        System.out.println(text);
        System.out.flush();
    }

    private static void progress(String format, Object... args) {
        System.err.printf("%s %s%n", Instant.now().toString().substring(11, 19), format.formatted(args));
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("--" + name + "= is required");
        }
        return value;
    }
}
