package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.BackgroundFailures;
import io.tributary.gateway.testing.SseClient;
import io.tributary.gateway.testing.SseFrameReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 8's group scenario as SSE streams on two gateway PROCESSES of Tributary's own cluster
 * ({@code bin/tributary up --coordinators 1 --brokers 1 --gateways 2}, the coordinator's group
 * session timeout 6 s and heartbeat 1 s): a 12-partition topic, values 0, 1, 2, ... (value i to
 * partition i % 12), and {@code commit=auto} group streams (java.net.http reading
 * text/event-stream) spread over {@code gateway-0} and {@code gateway-1}:
 *
 * <ol>
 *   <li>a {@code commit=manual} stream of another group on gateway-1 whose commit (a cursor) is
 *       POSTed to gateway-0, which forwards it: the group's committed offsets are that cursor's;
 *   <li>three streams (one a static member, {@code member=}) share the 12 partitions;
 *   <li>one client goes away (once it read everything) and another stream joins while records flow;
 *   <li>gateway-1 is SIGKILLed ({@code bin/tributary kill gateway-1}) while records flow; its static
 *       member reconnects on gateway-0 with {@code Last-Event-ID}, and the partitions of its dynamic
 *       member move to the streams left after the group session timeout.
 * </ol>
 *
 * <p>Checked on one log of every stream's {@code assigned}/{@code revoked} events in the order
 * received: a partition is assigned to a stream only while no other stream holds it. At the end,
 * every value produced was delivered at least once; an offset delivered twice lies in a partition
 * the killed gateway held and at or above the offset committed for it when it died (read from
 * {@code GET /v1/groups/{group}} before the partitions moved), never below it. No wall-clock
 * assertion: every wait is an await with generous bounds.
 *
 * <p>The background producer and every stream's reading thread run through {@link
 * BackgroundFailures}, checked by every await (which then ends at once with the cause) and after
 * the test: a producer that dies, fails a send or ends before the test stops it fails the test, and
 * so must it have written while the streams changed hands; a stream whose frames break the SSE
 * framing ({@link SseFrameReader}), whose data is not JSON or whose record value is not a number,
 * which sends an event a group stream does not send, or which ends other than cleanly before the
 * test closed it or killed its gateway, fails it too.
 */
class GroupSseIT {

    private static final Logger log = LoggerFactory.getLogger(GroupSseIT.class);
    private static final JsonMapper JSON = new JsonMapper();
    private static final String TOPIC = "group-sse";
    private static final int PARTITIONS = 12;
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @TempDir
    static Path work;

    /** The producer's and the streams' failures: checked by every await and after the test. */
    @RegisterExtension
    final BackgroundFailures background = new BackgroundFailures();

    private static ProcessCluster cluster;
    private static String bootstrap;
    private static String gateway0;
    private static String gateway1;
    private static final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ProcessCluster.create(
                work,
                "group-sse-logs",
                List.of(8080, 8071, 8081, 8091, 9092, 9191, 9291),
                Map.of(
                        "TRIBUTARY_JAVA_OPTS",
                        "-Xmx384m -Dtributary.coordinator.groups.session-timeout=6s"
                                + " -Dtributary.coordinator.groups.heartbeat-interval=1s",
                        "TRIBUTARY_STOP_GRACE",
                        "5"));
        ProcessCluster.Result up = cluster.run(
                "up",
                "--coordinators",
                "1",
                "--brokers",
                "1",
                "--gateways",
                "2",
                "--data",
                work.resolve("data").toString(),
                "--logs",
                cluster.logsDir().toString());
        assertThat(up.exitCode()).as("bin/tributary up:%n%s", up.output()).isZero();
        bootstrap = "127.0.0.1:" + (9092 + cluster.portOffset());
        gateway0 = "http://127.0.0.1:" + (8080 + cluster.portOffset());
        gateway1 = "http://127.0.0.1:" + (8071 + cluster.portOffset());
        for (String[] gateway : new String[][] {{gateway0, "gateway-0"}, {gateway1, "gateway-1"}}) {
            HttpResponse<String> metrics = http.send(
                    HttpRequest.newBuilder(URI.create(gateway[0] + "/actuator/prometheus"))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.body())
                    .as("%s tags its metrics with its own name", gateway[1])
                    .contains("instance=\"" + gateway[1] + "\"");
        }
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                30_000))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.downAndKillLeftovers();
        }
    }

    @Test
    void groupStreamsOnTwoGatewayProcessesShareEveryPartitionAcrossLeaveJoinAndAGatewayKill() throws Exception {
        Log shared = new Log();
        try (Producer producer = new Producer(bootstrap)) {
            producer.sendSync(240);

            manualCommitForwardedToTheOtherGateway(shared);

            String group = "sse-group";
            String path = "/v1/groups/" + group + "/events?topics=" + TOPIC + "&commit=auto&from=earliest";
            List<Stream> all = new ArrayList<>();
            Stream s1 = Stream.open(background, "s1", gateway0 + path, null, shared);
            Stream s2 = Stream.open(background, "s2", gateway1 + path, null, shared);
            Stream s3 = Stream.open(background, "s3", gateway1 + path + "&member=static-3", null, shared);
            all.addAll(List.of(s1, s2, s3));
            try {
                awaitSharing("three streams hold the 12 partitions", List.of(s1, s2, s3));
                producer.sendSync(240);
                awaitDelivered("all values so far", all, producer.sent());

                // a client that read everything goes away; another joins on gateway-0 while records flow
                s1.close();
                awaitSharing("s2 and s3 hold the 12 partitions", List.of(s2, s3));
                producer.startBackground(background);
                Stream s4 = Stream.open(background, "s4", gateway0 + path, null, shared);
                all.add(s4);
                awaitSharing("s2, s3 and s4 hold the 12 partitions", List.of(s2, s3, s4));
                producer.sendSync(0);
                awaitDelivered("all values so far", all, producer.sent());
                awaitSharing("s2, s3 and s4 still hold the 12 partitions", List.of(s2, s3, s4));

                // gateway-1 dies with s2 and s3 while records flow
                Set<Integer> killed = new TreeSet<>();
                killed.addAll(s2.partitions());
                killed.addAll(s3.partitions());
                s2.markClosed();
                s3.markClosed();
                ProcessCluster.Result kill = cluster.run("kill", "gateway-1");
                assertThat(kill.exitCode())
                        .as("kill gateway-1:%n%s", kill.output())
                        .isZero();
                // Nobody commits the dead members' partitions until they move: these are final.
                Map<Integer, Long> committedAtKill = committed(gateway0, group);
                log.info("partitions of gateway-1 {}, committed {}", killed, committedAtKill);
                // what the dead gateway wrote reaches its clients before their connections end
                await("gateway-1's streams end").atMost(PATIENCE).until(() -> s2.ended() && s3.ended());
                String lastId = s3.lastId();

                // the static member reconnects on gateway-0 with its last event id
                Stream s3again = await("the static member back on gateway-0")
                        .atMost(PATIENCE)
                        .pollInterval(Duration.ofMillis(500))
                        .until(
                                () -> Stream.tryJoin(
                                        background, "s3'", gateway0 + path + "&member=static-3", lastId, shared),
                                s -> s != null);
                all.add(s3again);
                awaitSharing("s3' and s4 hold the 12 partitions", List.of(s3again, s4));
                producer.stopBackground(background);
                producer.sendSync(24);
                long sent = producer.sent();
                awaitDelivered("every value produced", all, sent);
                await("the group's committed offsets at the log end")
                        .atMost(PATIENCE)
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> committed(gateway0, group).values().stream()
                                        .mapToLong(Long::longValue)
                                        .sum()
                                == sent);

                // exclusive ownership, in the order the streams received their events
                shared.assertExclusive();

                // nothing skipped; duplicates only at the killed gateway's partitions, above their commits
                // key: offset * 12 + partition
                Map<Long, Integer> times = new HashMap<>();
                Set<Long> values = new HashSet<>();
                for (Stream s : all) {
                    for (long[] r : s.records()) {
                        times.merge(r[1] * PARTITIONS + r[0], 1, Integer::sum);
                    }
                    values.addAll(s.values());
                    assertThat(s.badValues())
                            .as(
                                    "%s: records whose value is not their position (value i at offset i / 12 of partition i %% 12)",
                                    s.name)
                            .isZero();
                }
                for (long v = 0; v < sent; v++) {
                    assertThat(values).as("value %d delivered", v).contains(v);
                }
                log.info(
                        "{} values, {} records delivered, {} offsets delivered more than once",
                        sent,
                        times.values().stream().mapToInt(Integer::intValue).sum(),
                        times.values().stream().filter(n -> n > 1).count());
                for (var e : times.entrySet()) {
                    if (e.getValue() > 1) {
                        int partition = (int) (e.getKey() % PARTITIONS);
                        long offset = e.getKey() / PARTITIONS;
                        assertThat(killed)
                                .as("partition %d offset %d delivered %d times", partition, offset, e.getValue())
                                .contains(partition);
                        assertThat(offset)
                                .as(
                                        "partition %d offset %d delivered again below its committed offset",
                                        partition, offset)
                                .isGreaterThanOrEqualTo(committedAtKill.getOrDefault(partition, 0L));
                    }
                }
            } finally {
                all.forEach(Stream::close);
            }
        }
    }

    /** A commit=manual stream on gateway-1; its commit POSTed to gateway-0 is forwarded and made. */
    private void manualCommitForwardedToTheOtherGateway(Log shared) throws Exception {
        String group = "sse-manual";
        try (Stream manual = Stream.open(
                background,
                "manual",
                gateway1 + "/v1/groups/" + group + "/events?topics=" + TOPIC + "&commit=manual&member=m1&from=earliest",
                null,
                new Log())) {
            await("the manual stream reads the 240 values")
                    .atMost(PATIENCE)
                    .until(() -> manual.records().size() >= 240);
            List<long[]> got = manual.records();
            Map<Integer, Long> expected = new HashMap<>();
            for (long[] r : got.subList(0, 100)) {
                expected.put((int) r[0], r[1] + 1);
            }
            String cursor = manual.ids().get(99);
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(gateway0 + "/v1/groups/" + group + "/commits"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(
                                    "{\"member\":\"m1\",\"cursor\":\"" + cursor + "\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode())
                    .as("commit forwarded by gateway-0: %s", r.body())
                    .isEqualTo(200);
            Map<Integer, Long> committed = committed(gateway0, group);
            for (var e : expected.entrySet()) {
                assertThat(committed.get(e.getKey()))
                        .as("partition %d committed", e.getKey())
                        .isEqualTo(e.getValue());
            }
        }
    }

    /** Partition -> committed offset of the group's partitions of TOPIC (absent: none). */
    private static Map<Integer, Long> committed(String gateway, String group) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(gateway + "/v1/groups/" + group))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Map<Integer, Long> out = new HashMap<>();
        for (JsonNode p : JSON.readTree(r.body()).path("partitions")) {
            if (p.path("topic").asString().equals(TOPIC) && p.hasNonNull("committed_offset")) {
                out.put(p.path("partition").asInt(), p.path("committed_offset").asLong());
            }
        }
        return out;
    }

    /** An await that also ends, with the cause, as soon as the producer or a stream failed. */
    private ConditionFactory await(String what) {
        return Awaitility.await(what).failFast("the producer or a stream failed", background::check);
    }

    /** Every one of {@code streams} holds partitions, and they hold the 12 between them, disjointly. */
    private void awaitSharing(String what, List<Stream> streams) {
        await(what).atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> {
            int sum = 0;
            Set<Integer> union = new HashSet<>();
            for (Stream s : streams) {
                if (s.partitions().isEmpty()) {
                    return false;
                }
                sum += s.partitions().size();
                union.addAll(s.partitions());
            }
            return sum == PARTITIONS && union.size() == PARTITIONS;
        });
    }

    private void awaitDelivered(String what, List<Stream> streams, long count) {
        await(what).atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> {
            Set<Long> values = new HashSet<>();
            streams.forEach(s -> values.addAll(s.values()));
            for (long v = 0; v < count; v++) {
                if (!values.contains(v)) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Values 0, 1, 2, ... value i to partition i % 12, synchronously or from a background thread. */
    static final class Producer implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final AtomicLong next = new AtomicLong();
        private final AtomicLong sentInBackground = new AtomicLong();
        private BackgroundFailures.Task task;

        Producer(String bootstrap) {
            producer = new KafkaProducer<>(
                    Map.of(
                            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            bootstrap,
                            ProducerConfig.ACKS_CONFIG,
                            "all",
                            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                            false,
                            ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                            1),
                    new StringSerializer(),
                    new StringSerializer());
        }

        /** Sends {@code count} more values and waits for their acknowledgements. */
        synchronized void sendSync(int count) throws Exception {
            for (int i = 0; i < count; i++) {
                send();
            }
            producer.flush();
        }

        private void send() throws Exception {
            long v = next.get();
            producer.send(new ProducerRecord<>(TOPIC, (int) (v % PARTITIONS), null, Long.toString(v)))
                    .get(30, TimeUnit.SECONDS);
            next.incrementAndGet();
        }

        /** Sends values from a background task, one every 10 ms, each acknowledged before the next. */
        void startBackground(BackgroundFailures background) {
            task = background.startUntilStopped("group-sse-producer", t -> {
                while (!t.stopRequested()) {
                    synchronized (this) {
                        send();
                    }
                    sentInBackground.incrementAndGet();
                    Thread.sleep(10);
                }
            });
        }

        /** Stops the background task; it must have sent something and ended without failure. */
        void stopBackground(BackgroundFailures background) throws InterruptedException {
            task.stop(Duration.ofSeconds(60));
            background.check();
            assertThat(sentInBackground.get())
                    .as("values the background producer sent while the streams changed hands")
                    .isPositive();
        }

        long sent() {
            return next.get();
        }

        @Override
        public void close() throws InterruptedException {
            if (task != null) {
                task.stop(Duration.ofSeconds(60)); // before the client closes under it
            }
            producer.close(Duration.ofSeconds(10));
        }
    }

    /** The assigned/revoked events of every stream, in the order received. */
    static final class Log {
        private final List<String[]> entries = new ArrayList<>();
        private final List<JsonNode> data = new ArrayList<>();

        synchronized void add(String stream, String event, JsonNode node) {
            entries.add(new String[] {stream, event});
            data.add(node);
        }

        synchronized void assertExclusive() {
            Map<Integer, String> owner = new HashMap<>();
            for (int i = 0; i < entries.size(); i++) {
                String stream = entries.get(i)[0];
                String event = entries.get(i)[1];
                if (event.equals("closed")) {
                    owner.values().removeIf(stream::equals);
                    continue;
                }
                for (JsonNode p : data.get(i).path("partitions")) {
                    int partition = p.path("partition").asInt();
                    if (event.equals("assigned")) {
                        assertThat(owner.get(partition))
                                .as(
                                        "partition %d assigned to %s (event %d) while held by another stream",
                                        partition, stream, i)
                                .isNull();
                        owner.put(partition, stream);
                    } else {
                        assertThat(owner.get(partition))
                                .as("partition %d revoked from %s (event %d)", partition, stream, i)
                                .isEqualTo(stream);
                        owner.remove(partition);
                    }
                }
            }
        }
    }

    /**
     * One group SSE stream read on its own thread, a task of the test's {@link BackgroundFailures}:
     * strict framing ({@link SseFrameReader}), JSON data, a group stream's events only; the stream
     * may end cleanly at any time, and any other way only once the test closed it or killed its
     * gateway ({@link #markClosed()}).
     */
    static final class Stream implements AutoCloseable {
        /** The events a group stream sends. */
        private static final Set<String> EVENTS = Set.of("record", "assigned", "revoked", "gap", "error");

        final String name;
        private final HttpClient client;
        private final InputStream body;
        private final Log log;
        private final BackgroundFailures.Task task;
        private final List<long[]> records = new ArrayList<>();
        private final List<String> ids = new ArrayList<>();
        private final Set<Long> values = new HashSet<>();
        private final Set<Integer> partitions = new HashSet<>();
        private final AtomicBoolean closed = new AtomicBoolean();
        private final AtomicInteger badValues = new AtomicInteger();

        private Stream(BackgroundFailures background, String name, HttpClient client, InputStream body, Log log) {
            this.name = name;
            this.client = client;
            this.body = body;
            this.log = log;
            this.task = background.start("stream-" + name, t -> read());
        }

        static Stream open(BackgroundFailures background, String name, String url, String lastEventId, Log log)
                throws Exception {
            Stream s = tryOpen(background, name, url, lastEventId, log);
            assertThat(s).as("%s: %s answered 200", name, url).isNotNull();
            return s;
        }

        /** The stream, or null when the gateway did not answer 200 (logged). */
        static Stream tryOpen(BackgroundFailures background, String name, String url, String lastEventId, Log log)
                throws Exception {
            HttpClient client = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            var request = HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream");
            if (lastEventId != null) {
                request.header("Last-Event-ID", lastEventId);
            }
            HttpResponse<InputStream> r = client.send(request.GET().build(), HttpResponse.BodyHandlers.ofInputStream());
            if (r.statusCode() != 200) {
                String body;
                try (InputStream in = r.body()) {
                    body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                GroupSseIT.log.info("{}: {} {}", name, r.statusCode(), body);
                client.shutdownNow();
                return null;
            }
            return new Stream(background, name, client, r.body(), log);
        }

        /**
         * Opens the stream and waits until it holds partitions; null when the gateway refused it or
         * the stream ended first (a static member whose previous incarnation the group still holds).
         */
        static Stream tryJoin(BackgroundFailures background, String name, String url, String lastEventId, Log log)
                throws Exception {
            Stream s = tryOpen(background, name, url, lastEventId, log);
            if (s == null) {
                return null;
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (s.partitions().isEmpty() && !s.ended() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (s.partitions().isEmpty()) {
                s.close();
                return null;
            }
            return s;
        }

        boolean ended() {
            return !task.isAlive();
        }

        private void read() throws IOException {
            try (var reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                var frames = new SseFrameReader(reader);
                Optional<SseClient.Event> e;
                while ((e = frames.nextEvent()).isPresent()) {
                    if (!EVENTS.contains(e.get().name())) {
                        throw new AssertionError(name + ": an event a group stream does not send: " + e.get());
                    }
                    handle(
                            e.get().name(),
                            e.get().id().orElse(null),
                            JSON.readTree(e.get().data()));
                }
            } catch (IOException e) {
                if (!closed.get()) {
                    throw new IOException(name + ": the stream ended without the gateway closing it cleanly", e);
                }
            }
        }

        private synchronized void handle(String event, String id, JsonNode data) {
            if (closed.get() && !event.equals("record")) {
                return;
            }
            switch (event) {
                case "record" -> {
                    int partition = data.path("partition").asInt();
                    long offset = data.path("offset").asLong();
                    long value = Long.parseLong(data.path("value").asString());
                    if (value % PARTITIONS != partition || value / PARTITIONS != offset) {
                        badValues.incrementAndGet();
                    }
                    records.add(new long[] {partition, offset});
                    ids.add(id);
                    values.add(value);
                }
                case "assigned" -> {
                    data.path("partitions")
                            .forEach(p -> partitions.add(p.path("partition").asInt()));
                    log.add(name, event, data);
                }
                case "revoked" -> {
                    data.path("partitions")
                            .forEach(p -> partitions.remove(p.path("partition").asInt()));
                    log.add(name, event, data);
                }
                default -> GroupSseIT.log.info("{}: {} {}", name, event, data); // gap, error
            }
        }

        synchronized Set<Integer> partitions() {
            return Set.copyOf(partitions);
        }

        synchronized List<long[]> records() {
            return List.copyOf(records);
        }

        synchronized List<String> ids() {
            return List.copyOf(ids);
        }

        synchronized Set<Long> values() {
            return Set.copyOf(values);
        }

        synchronized String lastId() {
            return ids.isEmpty() ? null : ids.getLast();
        }

        int badValues() {
            return badValues.get();
        }

        /** From now on the stream holds nothing as far as the test knows (a closed entry in the log). */
        synchronized void markClosed() {
            if (closed.compareAndSet(false, true)) {
                partitions.clear();
                log.add(name, "closed", null);
            }
        }

        @Override
        public void close() {
            markClosed();
            client.shutdownNow();
            try {
                body.close();
            } catch (Exception ignored) {
                // already gone
            }
            try {
                task.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
