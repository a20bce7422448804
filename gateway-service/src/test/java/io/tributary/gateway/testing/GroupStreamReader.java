package io.tributary.gateway.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 */
public final class GroupStreamReader implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A record as a stream delivered it. */
    public record Record(String topic, int partition, long offset, String value, String id) {}

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
    private final Thread thread;
    private final List<Record> records = new ArrayList<>();
    private final Set<String> assignment = new HashSet<>();
    private final List<JsonNode> assignedEvents = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private String lastId;
    private volatile boolean ended;
    private boolean closedByTest;

    private GroupStreamReader(String name, SseClient client, Log log) {
        this.name = name;
        this.client = client;
        this.log = log;
        this.thread = Thread.ofVirtual().name("reader-" + name).start(this::read);
    }

    /** Opens a group stream and starts reading it; fails when the answer is not 200. */
    public static GroupStreamReader open(String name, int port, String pathAndQuery, Log log, String... headers) {
        SseClient client = SseClient.open(port, pathAndQuery, headers);
        if (client.status() != 200) {
            String body = client.body();
            client.close();
            throw new AssertionError(name + ": " + client.status() + " " + body);
        }
        return new GroupStreamReader(name, client, log);
    }

    private void read() {
        try {
            while (true) {
                Optional<SseClient.Event> e = client.next();
                if (e.isEmpty()) {
                    break;
                }
                JsonNode data = JSON.readTree(e.get().data());
                synchronized (this) {
                    switch (e.get().name()) {
                        case "record" -> {
                            records.add(new Record(
                                    data.path("topic").asText(),
                                    data.path("partition").asInt(),
                                    data.path("offset").asLong(),
                                    data.path("value").asText(),
                                    e.get().id().orElseThrow()));
                            lastId = e.get().id().orElseThrow();
                        }
                        case "assigned" -> {
                            data.path("partitions").forEach(p -> assignment.add(key(p)));
                            assignedEvents.add(data);
                        }
                        case "revoked" -> data.path("partitions").forEach(p -> assignment.remove(key(p)));
                        case "error" -> errors.add(data.toString());
                        default -> {}
                    }
                    log.add(name, e.get().name(), data);
                }
            }
        } catch (AssertionError | Exception e) {
            // the socket was closed by the test, or the stream ended
        } finally {
            ended = true;
        }
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
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
