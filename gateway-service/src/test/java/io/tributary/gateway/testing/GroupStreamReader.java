package io.tributary.gateway.testing;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.common.testing.BackgroundFailures;
import io.tributary.gateway.testing.SseFrameReader.MalformedFrameException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads one group SSE stream on its own thread and keeps what came: records (partition, offset,
 * value, id), {@code assigned} / {@code revoked} events, and every event in a log shared by the
 * readers of one test ({@link Log}), in the order the readers received them. Thread-safe.
 *
 * <p>The reading thread runs through the test's {@link BackgroundFailures}, and everything but a
 * clean end or the test's own {@link #close()} is a failure there: a frame that breaks the SSE
 * framing ({@link SseFrameReader}), an event a group stream does not send (its events are {@code
 * record}, {@code assigned}, {@code revoked}, {@code gap} and {@code error}), data that is not JSON,
 * a record without its id, topic, partition or offset, a stream cut in the middle of a frame or a
 * connection that broke before the gateway ended the stream cleanly. A malformed frame is a failure
 * even when the test closes the stream at the same moment; only the way the connection ends is
 * excused by the test's close.
 */
public final class GroupStreamReader implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** How long the reading thread may take to notice its socket closed. */
    private static final Duration JOIN_AFTER_CLOSE = Duration.ofSeconds(30);

    /**
     * A record as a stream delivered it: an {@code event: record}, or an {@code event: delete} (a
     * tombstone: {@code value} is null).
     */
    public record Record(String topic, int partition, long offset, String value, String id, String event) {}

    /** One event of one stream in a test's shared log. */
    public record Entry(long seq, String stream, String event, JsonNode data) {}

    /** The events of all readers of a test, in the order received. */
    public static final class Log {
        private final AtomicLong seq = new AtomicLong();
        private final List<Entry> entries = new ArrayList<>();

        synchronized void add(String stream, String event, JsonNode data) {
            entries.add(new Entry(seq.incrementAndGet(), stream, event, data));
        }

        public synchronized List<Entry> entries() {
            return List.copyOf(entries);
        }
    }

    private final String name;
    private final SseClient client;
    private final Log log;
    private final BackgroundFailures.Task task;
    private final List<Record> records = new ArrayList<>();
    private final Set<String> assignment = new HashSet<>();
    private final List<JsonNode> assignedEvents = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private String lastId;
    private volatile boolean ended;
    private boolean closedByTest;

    private GroupStreamReader(String name, SseClient client, Log log, BackgroundFailures background) {
        this.name = name;
        this.client = client;
        this.log = log;
        this.task = background.start("reader-" + name, t -> read());
    }

    /**
     * Opens a group stream and starts reading it, its failures reported to {@code background};
     * fails when the answer is not 200.
     */
    public static GroupStreamReader open(
            BackgroundFailures background, String name, int port, String pathAndQuery, Log log, String... headers) {
        SseClient client = SseClient.open(port, pathAndQuery, headers);
        if (client.status() != 200) {
            String body = client.body();
            client.close();
            throw new AssertionError(name + ": " + client.status() + " " + body);
        }
        return new GroupStreamReader(name, client, log, background);
    }

    private void read() throws IOException {
        try {
            while (true) {
                Optional<SseClient.Event> e = client.nextEvent();
                if (e.isEmpty()) {
                    return;
                }
                handle(e.get());
            }
        } catch (IOException e) {
            if (!closedByTest()) {
                throw new IOException(name + ": the stream ended without the gateway closing it cleanly", e);
            }
        } finally {
            ended = true;
        }
    }

    private void handle(SseClient.Event e) {
        JsonNode data;
        try {
            data = JSON.readTree(e.data());
        } catch (JacksonException notJson) {
            throw new MalformedFrameException(name + ": the data of " + e + " is not JSON: " + notJson.getMessage());
        }
        synchronized (this) {
            switch (e.name()) {
                case "record", "delete" -> {
                    if (e.id().isEmpty()
                            || !data.path("topic").isTextual()
                            || !data.path("partition").isInt()
                            || !data.path("offset").isIntegralNumber()) {
                        throw new MalformedFrameException(
                                name + ": a record without its id, topic, partition or offset: " + e);
                    }
                    boolean delete = e.name().equals("delete");
                    if (delete && (data.has("value") || data.has("value_b64"))) {
                        throw new MalformedFrameException(name + ": a delete event with a value: " + e);
                    }
                    records.add(new Record(
                            data.path("topic").asText(),
                            data.path("partition").asInt(),
                            data.path("offset").asLong(),
                            delete ? null : data.path("value").asText(),
                            e.id().get(),
                            e.name()));
                    lastId = e.id().get();
                }
                case "assigned" -> {
                    data.path("partitions").forEach(p -> assignment.add(key(p)));
                    assignedEvents.add(data);
                }
                case "revoked" -> data.path("partitions").forEach(p -> assignment.remove(key(p)));
                case "error" -> errors.add(data.toString());
                case "gap" -> {}
                default -> throw new MalformedFrameException(name + ": an event a group stream does not send: " + e);
            }
            log.add(name, e.name(), data);
        }
    }

    private synchronized boolean closedByTest() {
        return closedByTest;
    }

    private static String key(JsonNode p) {
        return p.path("topic").asText() + "-" + p.path("partition").asInt();
    }

    public String name() {
        return name;
    }

    public synchronized List<Record> records() {
        return List.copyOf(records);
    }

    /** The partitions ({@code topic-partition}) this stream holds now, by its events. */
    public synchronized Set<String> assignment() {
        return Set.copyOf(assignment);
    }

    public synchronized List<JsonNode> assignedEvents() {
        return List.copyOf(assignedEvents);
    }

    public synchronized List<String> errors() {
        return List.copyOf(errors);
    }

    /** The id of the last record event, or null. */
    public synchronized String lastId() {
        return lastId;
    }

    /** True once the reading thread is done: the stream ended, cleanly or not, or the test closed it. */
    public boolean ended() {
        return ended;
    }

    /** Values per partition, in the order received. */
    public synchronized Map<Integer, List<Long>> offsetsByPartition() {
        Map<Integer, List<Long>> out = new HashMap<>();
        records.forEach(
                r -> out.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.offset()));
        return out;
    }

    /**
     * Cuts the connection (as a crashing client would) and waits for the reading thread. The shared
     * log gets a {@code closed} entry: from then on the stream holds nothing as far as its client
     * knows (the gateway revokes its partitions without the client seeing it).
     */
    @Override
    public void close() {
        synchronized (this) {
            if (!closedByTest) {
                closedByTest = true;
                log.add(name, "closed", JSON.createObjectNode());
            }
        }
        client.close();
        try {
            task.join(JOIN_AFTER_CLOSE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
