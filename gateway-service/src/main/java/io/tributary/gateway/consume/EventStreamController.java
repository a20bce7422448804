package io.tributary.gateway.consume;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.tributary.gateway.admin.TopicNames;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.record.Timestamps;
import io.tributary.gateway.sse.CursorCodec;
import io.tributary.gateway.sse.MalformedCursorException;
import io.tributary.gateway.sse.RecordEvent;
import io.tributary.gateway.sse.SharedTailReaders;
import io.tributary.gateway.sse.SseFrames;
import io.tributary.gateway.sse.StreamBuffer;
import io.tributary.gateway.sse.StreamCursor;
import io.tributary.gateway.sse.StreamState;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * {@code GET /v1/topics/{topic}/events}: a topic's records as Server-Sent Events, without a group.
 *
 * <p>Each stream has two threads, both virtual: the request's thread writes frames from the stream's
 * {@link StreamBuffer} to the client (a heartbeat after {@code heartbeat-interval} without one), and
 * the stream's own reader, which reads the partitions that are behind their end: it borrows a
 * consumer from this controller's own {@link ConsumerPool} for one poll of at most {@code poll-wait}
 * and gives it back, so only {@code consumers} threads are ever blocked inside kafka-clients. A
 * partition the own reader finds at its end is handed to its {@link SharedTailReaders shared tail
 * reader}, which fetches it once for every stream there; while all its partitions are shared, the
 * own reader waits parked (no platform thread, no poll). When the buffer stays full for {@code
 * slow-client-timeout}, or a write to the client blocks for {@code write-timeout}, the stream is
 * closed and counted ({@code slow_client}); the client resumes from its last event id. Every event
 * id is the whole position ({@link CursorCodec}, {@link StreamState}), so nothing is kept between
 * requests.
 */
@RestController
public class EventStreamController {

    private static final Logger log = LoggerFactory.getLogger(EventStreamController.class);
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final Admin admin;
    private final ConsumerPool pool;
    private final SseProperties limits;
    private final Duration clusterTimeout;
    private final GatewayMetrics metrics;
    private final Semaphore slots;
    private final SharedTailReaders shared;
    private final TableReaders tables;
    private final Set<StreamState> open = ConcurrentHashMap.newKeySet();

    public EventStreamController(
            Admin admin,
            ConsumerPool pool,
            SharedTailReaders shared,
            TableReaders tables,
            SseProperties limits,
            Duration clusterTimeout,
            GatewayMetrics metrics) {
        this.admin = admin;
        this.pool = pool;
        this.shared = shared;
        this.tables = tables;
        this.limits = limits;
        this.clusterTimeout = clusterTimeout;
        this.metrics = metrics;
        this.slots = new Semaphore(limits.maxStreams());
    }

    /** Closes this controller's consumers (at shutdown). */
    public void close() {
        pool.close();
    }

    @Operation(operationId = "streamEvents", summary = "Server-Sent Events of a topic")
    @GetMapping(path = "/v1/topics/{topic}/events")
    public void events(
            @PathVariable("topic") String topic,
            @RequestParam(name = "partitions", required = false) String partitions,
            @RequestParam(name = "from", required = false) String from,
            @RequestParam(name = "cursor", required = false) String cursor,
            @Parameter(name = "Last-Event-ID", in = ParameterIn.HEADER)
                    @RequestHeader(name = "Last-Event-ID", required = false)
                    String lastEventId,
            @RequestParam(name = "snapshot", required = false) String snapshot,
            HttpServletResponse response)
            throws IOException {
        TopicNames.requireValid(topic);
        Optional<StreamCursor> resume = resumeCursor(lastEventId, cursor);
        boolean withSnapshot = SnapshotPhase.requested(snapshot, from, resume.isPresent());
        if (!slots.tryAcquire()) {
            throw new ProblemException(
                    ProblemType.TOO_MANY_STREAMS,
                    "This gateway has %d streams open, its limit; retry shortly.".formatted(limits.maxStreams()));
        }
        metrics.streamsChanged(1);
        Optional<SnapshotPhase> phase = Optional.empty();
        try {
            if (withSnapshot) {
                // the table's vector is the partitions' ends now: the live events start there
                TableReaders.Lease lease = tables.acquire();
                phase = Optional.of(new SnapshotPhase(lease, limits.slowClientTimeout(), metrics));
                StreamCursor vector = startingCursor(topic, partitions, "latest", resume);
                stream(topic, vector, false, response, phase);
            } else {
                StreamCursor start = startingCursor(topic, partitions, from, resume);
                // from=latest: the positions are the partitions' ends, looked up just now
                boolean atEnd =
                        resume.isEmpty() && (from == null || from.strip().equals("latest"));
                stream(topic, start, atEnd, response, Optional.empty());
            }
        } finally {
            phase.ifPresent(SnapshotPhase::abandon);
            metrics.streamsChanged(-1);
            slots.release();
        }
    }

    private void stream(
            String topic,
            StreamCursor start,
            boolean atEnd,
            HttpServletResponse response,
            Optional<SnapshotPhase> snapshot)
            throws IOException {
        response.setStatus(200);
        response.setContentType("text/event-stream");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Accel-Buffering", "no");
        OutputStream out = response.getOutputStream();

        // Registered before the first byte reaches the client: a client that sees the stream open
        // can count on closeAllStreams (shutdown) to end it.
        StreamState stream = new StreamState(
                topic, start, new StreamBuffer(limits.bufferSize().toBytes()));
        StreamBuffer buffer = stream.buffer();
        open.add(stream);
        Thread reader = Thread.ofVirtual().name("sse-" + topic).start(() -> {
            if (atEnd) {
                // join the shared readers at once, without a first poll of its own
                start.nextOffsets().forEach((p, o) -> shared.attach(stream, p, o));
            }
            read(stream, snapshot);
        });
        try {
            out.write(SseFrames.retry(limits.retry().toMillis()));
            out.flush();
            while (true) {
                Optional<byte[]> frame = buffer.poll(limits.heartbeatInterval());
                if (frame.isPresent()) {
                    out.write(frame.get());
                    Optional<byte[]> more;
                    while ((more = buffer.poll(Duration.ZERO)).isPresent()) {
                        out.write(more.get());
                    }
                } else if (buffer.isDrained()) {
                    break;
                } else {
                    out.write(SseFrames.heartbeat());
                }
                out.flush();
            }
        } catch (IOException | RuntimeException clientGone) {
            if (timedOut(clientGone)) {
                // the client read nothing for write-timeout: Tomcat gave up the blocked write
                closeFor(stream, GatewayMetrics.SLOW_CLIENT);
                log.info("SSE stream of {} closed: a write to its client blocked too long", topic);
            } else {
                closeFor(stream, GatewayMetrics.CLIENT_CLOSED);
                log.debug("SSE client of {} left: {}", topic, clientGone.toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            open.remove(stream);
            stream.close();
            reader.interrupt();
        }
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** Counts that the gateway ends {@code stream} for {@code reason}, once per stream. */
    private void closeFor(StreamState stream, String reason) {
        if (stream.closeFor(reason)) {
            metrics.streamClosed(stream.topic(), reason);
        }
    }

    /**
     * Ends every open stream (counted as {@code shutdown}): each writes what it has and ends, so its
     * client reconnects, with its last event id, to a gateway that is not stopping. Called before
     * the web server's graceful shutdown, which would otherwise wait for streams that never end.
     */
    public void closeAllStreams() {
        for (StreamState s : List.copyOf(open)) {
            closeFor(s, GatewayMetrics.SHUTDOWN);
            s.close();
        }
    }

    /**
     * The stream's own reader: polls the partitions that are behind the tail from the stream's
     * position, hands those that reach the tail to their shared reader, and waits (parked) while
     * every partition is fed by shared readers; until the stream is closed.
     */
    private void read(StreamState stream, Optional<SnapshotPhase> snapshot) {
        String topic = stream.topic();
        try {
            if (snapshot.isPresent() && !snapshot.get().run(stream)) {
                if (!stream.buffer().isClosed()) {
                    closeFor(stream, GatewayMetrics.SLOW_CLIENT);
                    log.info("SSE stream of {} closed: its client fell behind during the snapshot", topic);
                }
                return;
            }
            while (!stream.buffer().isClosed()) {
                TreeMap<Integer, Long> own = stream.awaitOwnPartitions(limits.heartbeatInterval());
                if (own.isEmpty()) {
                    continue;
                }
                if (!pollOnce(stream, own)) {
                    if (!stream.buffer().isClosed()) {
                        closeFor(stream, GatewayMetrics.SLOW_CLIENT);
                        log.info("SSE stream of {} closed: its client fell behind", topic);
                    }
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ProblemException e) {
            if (!stream.buffer().isClosed()) {
                closeFor(stream, GatewayMetrics.ERROR);
            }
            offerQuietly(stream.buffer(), SseFrames.control("error", problemJson(e.type(), e.getMessage(), Map.of())));
        } catch (RuntimeException e) {
            if (!stream.buffer().isClosed()) {
                log.warn("SSE stream of {} failed", topic, e);
                closeFor(stream, GatewayMetrics.ERROR);
            }
            offerQuietly(
                    stream.buffer(),
                    SseFrames.control(
                            "error", problemJson(ProblemType.INTERNAL_ERROR, "The stream failed; resume.", Map.of())));
        } finally {
            stream.buffer().close();
            shared.detachAll(stream);
            stream.close();
        }
    }

    /**
     * One poll, with a borrowed consumer, of the partitions the stream reads on its own ({@code own},
     * at their next offsets); the records go into the stream's buffer, and the partitions this poll
     * found at their end attach to their shared reader. False when the client is too slow (the
     * buffer stayed full for {@code slow-client-timeout}) or the stream closed.
     */
    private boolean pollOnce(StreamState stream, TreeMap<Integer, Long> own) throws InterruptedException {
        String topic = stream.topic();
        Consumer<byte[], byte[]> consumer;
        try {
            consumer = pool.acquire();
        } catch (ProblemException busy) {
            return true; // every consumer is polling for another stream; try again
        }
        List<Integer> atTail = new ArrayList<>();
        try {
            List<TopicPartition> tps = new ArrayList<>();
            own.keySet().forEach(p -> tps.add(new TopicPartition(topic, p)));
            consumer.assign(tps);
            own.forEach((p, o) -> consumer.seek(new TopicPartition(topic, p), o));
            ConsumerRecords<byte[], byte[]> polled;
            try {
                polled = consumer.poll(limits.pollWait());
                metrics.upstreamFetch("own");
            } catch (OffsetOutOfRangeException e) {
                return outOfRange(consumer, stream, e);
            }
            int count = 0;
            for (TopicPartition tp : polled.partitions()) {
                for (ConsumerRecord<byte[], byte[]> r : polled.records(tp)) {
                    if (!stream.deliverWaiting(
                            tp.partition(), r.offset(), RecordEvent.of(r), limits.slowClientTimeout())) {
                        metrics.consumed(topic, "sse", count);
                        return false;
                    }
                    count++;
                }
            }
            if (count > 0) {
                metrics.consumed(topic, "sse", count);
            }
            for (TopicPartition tp : tps) {
                OptionalLong lag = consumer.currentLag(tp);
                if (lag.isPresent() && lag.getAsLong() == 0) {
                    atTail.add(tp.partition());
                }
            }
        } catch (KafkaException e) {
            throw KafkaProblems.toProblem(e);
        } finally {
            pool.release(consumer);
        }
        StreamCursor now = stream.cursor();
        for (int p : atTail) {
            shared.attach(stream, p, now.nextOffsets().get(p));
        }
        return true;
    }

    /** A {@code gap} event for each partition whose position retention removed; past the end: error. */
    private boolean outOfRange(Consumer<byte[], byte[]> consumer, StreamState stream, OffsetOutOfRangeException e)
            throws InterruptedException {
        Map<TopicPartition, Long> starts =
                consumer.beginningOffsets(e.offsetOutOfRangePartitions().keySet(), clusterTimeout);
        for (var entry : e.offsetOutOfRangePartitions().entrySet()) {
            TopicPartition tp = entry.getKey();
            long offset = entry.getValue();
            long logStart = starts.get(tp);
            if (offset >= logStart) {
                throw new ProblemException(
                        ProblemType.OFFSET_BEYOND_LOG_END,
                        "Offset %d of %s is past the end of the log.".formatted(offset, tp));
            }
            byte[] gap = SseFrames.control(
                    "gap",
                    problemJson(
                            ProblemType.OFFSET_BELOW_LOG_START,
                            "Offsets %d to %d of %s were removed by retention; the stream continues at %d."
                                    .formatted(offset, logStart - 1, tp, logStart),
                            Map.of("partition", tp.partition(), "offset", offset, "log_start_offset", logStart)));
            if (!stream.controlWaiting(gap, tp.partition(), logStart, limits.slowClientTimeout())) {
                return false;
            }
        }
        return true;
    }

    private static void offerQuietly(StreamBuffer buffer, byte[] frame) {
        try {
            buffer.offer(frame, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Last-Event-ID, else cursor; 400 {@code invalid-parameter} naming the one that is malformed. */
    private static Optional<StreamCursor> resumeCursor(String lastEventId, String cursor) {
        String name = "Last-Event-ID";
        String text = lastEventId;
        if (text == null || text.isBlank()) {
            name = "cursor";
            text = cursor;
        }
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(CursorCodec.decode(text.strip()));
        } catch (MalformedCursorException e) {
            throw ProblemException.invalidParameter(
                    name, "%s is not a stream cursor (an SSE event id): %s.".formatted(name, e.getMessage()));
        }
    }

    private StreamCursor startingCursor(
            String topic, String partitionsParam, String from, Optional<StreamCursor> resume) {
        TopicDescription description = StreamTopics.describe(admin, topic, clusterTimeout);
        String topicId = description.topicId().toString();
        int count = description.partitions().size();
        if (resume.isPresent()) {
            StreamCursor c = resume.get();
            if (!c.topicId().equals(topicId)) {
                throw new ProblemException(
                        ProblemType.CURSOR_TOPIC_CHANGED,
                        ("The cursor is for another topic named '%s' (id %s); the topic now has id %s (it was"
                                        + " deleted and created again). Start a new stream with from=.")
                                .formatted(topic, c.topicId(), topicId));
            }
            int last = c.nextOffsets().lastKey();
            if (last >= count) {
                throw new ProblemException(
                        ProblemType.PARTITION_NOT_FOUND,
                        "Topic '%s' has partitions 0 to %d; the cursor names partition %d."
                                .formatted(topic, count - 1, last));
            }
            return c;
        }
        List<TopicPartition> tps = new ArrayList<>();
        for (int p : StreamTopics.partitions(partitionsParam, count)) {
            tps.add(new TopicPartition(topic, p));
        }
        Map<TopicPartition, Long> offsets = positions(tps, from == null ? "latest" : from.strip());
        TreeMap<Integer, Long> next = new TreeMap<>();
        offsets.forEach((tp, o) -> next.put(tp.partition(), o));
        return new StreamCursor(topicId, next);
    }

    private Map<TopicPartition, Long> positions(List<TopicPartition> tps, String from) {
        OptionalLong time = OptionalLong.empty();
        if (!from.equals("earliest") && !from.equals("latest")) {
            time = Timestamps.parse(from);
            if (time.isEmpty()) {
                throw ProblemException.invalidParameter(
                        "from",
                        "from must be earliest, latest, an RFC 3339 time or epoch milliseconds, got '%s'."
                                .formatted(from));
            }
        }
        Consumer<byte[], byte[]> consumer = pool.acquire();
        try {
            if (from.equals("earliest")) {
                return consumer.beginningOffsets(tps, clusterTimeout);
            }
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps, clusterTimeout);
            if (time.isEmpty()) {
                return ends;
            }
            Map<TopicPartition, Long> query = new java.util.HashMap<>();
            long t = time.getAsLong();
            tps.forEach(tp -> query.put(tp, t));
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, clusterTimeout);
            Map<TopicPartition, Long> result = new java.util.HashMap<>();
            for (TopicPartition tp : tps) {
                OffsetAndTimestamp ot = found.get(tp);
                result.put(tp, ot == null ? ends.get(tp) : ot.offset());
            }
            return result;
        } catch (KafkaException e) {
            throw KafkaProblems.toProblem(e);
        } finally {
            pool.release(consumer);
        }
    }

    private static byte[] problemJson(ProblemType type, String detail, Map<String, Object> extensions) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out)) {
            g.writeStartObject();
            g.writeStringProperty("type", type.uri().toString());
            g.writeStringProperty("title", type.title());
            g.writeNumberProperty("status", type.status());
            g.writeStringProperty("detail", detail);
            for (String key : new java.util.TreeSet<>(extensions.keySet())) {
                g.writeNumberProperty(key, ((Number) extensions.get(key)).longValue());
            }
            g.writeEndObject();
        }
        return out.toByteArray();
    }
}
