package io.tributary.gateway.groups;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.tributary.gateway.admin.TopicNames;
import io.tributary.gateway.consume.SseProperties;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.sse.GroupCursor;
import io.tributary.gateway.sse.GroupCursorCodec;
import io.tributary.gateway.sse.GroupStreamState;
import io.tributary.gateway.sse.MalformedCursorException;
import io.tributary.gateway.sse.RecordEvent;
import io.tributary.gateway.sse.SseFrames;
import io.tributary.gateway.sse.StreamBuffer;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/groups/{group}/events}: an SSE stream that is one member of a consumer group. The
 * stream's consumer ({@code group.protocol=consumer}, KIP-848) joins when the stream opens and leaves
 * when it ends; the group coordinator assigns partitions across all streams of the group, on every
 * gateway replica. Two virtual threads per stream: the request's thread writes frames to the client
 * and reports what it flushed; the stream's reader ({@link GroupStream}) owns the consumer.
 */
@RestController
public class GroupStreamController {

    private static final Logger log = LoggerFactory.getLogger(GroupStreamController.class);

    /** Longest group id and member name accepted (Kafka has no limit; a URL and a header do). */
    static final int MAX_NAME_LENGTH = 255;

    /** Makes a group consumer: (group, member) to a consumer; {@code from} earliest or latest. */
    public interface ConsumerFactory {
        Consumer<byte[], byte[]> create(String group, Optional<String> member);
    }

    /** Draws the lineage of a client's first stream. */
    private static final java.security.SecureRandom LINEAGES = new java.security.SecureRandom();

    private final Admin admin;
    private final ConsumerFactory consumers;
    private final SseProperties sse;
    private final GroupsProperties limits;
    private final Duration clusterTimeout;
    private final GatewayMetrics metrics;
    private final Semaphore slots;
    private final Set<GroupStream> open = ConcurrentHashMap.newKeySet();

    /** How often a request taking over a member's stream checks whether the old one has ended. */
    private static final Duration TAKE_OVER_POLL = Duration.ofMillis(20);

    public GroupStreamController(
            Admin admin,
            ConsumerFactory consumers,
            SseProperties sse,
            GroupsProperties limits,
            Duration clusterTimeout,
            GatewayMetrics metrics) {
        this.admin = admin;
        this.consumers = consumers;
        this.sse = sse;
        this.limits = limits;
        this.clusterTimeout = clusterTimeout;
        this.metrics = metrics;
        this.slots = new Semaphore(limits.maxStreams());
    }

    @Operation(operationId = "streamGroupEvents", summary = "Server-Sent Events as a member of a consumer group")
    @GetMapping(path = "/v1/groups/{group}/events")
    public void events(
            @PathVariable("group") String group,
            @RequestParam(name = "topics") String topics,
            @RequestParam(name = "member", required = false) String member,
            @RequestParam(name = "commit", required = false) String commit,
            @RequestParam(name = "from", required = false) String from,
            @RequestParam(name = "cursor", required = false) String cursor,
            @Parameter(name = "Last-Event-ID", in = ParameterIn.HEADER)
                    @RequestHeader(name = "Last-Event-ID", required = false)
                    String lastEventId,
            HttpServletResponse response)
            throws IOException {
        requireName("group", group);
        List<String> topicList = topics(topics);
        Optional<String> memberName = Optional.ofNullable(member).map(String::strip);
        memberName.ifPresent(m -> requireName("member", m));
        GroupStream.CommitMode mode = commitMode(commit);
        boolean earliest = fromEarliest(from);
        GroupCursor resume = resumeCursor(lastEventId, cursor);
        Map<String, String> topicIds = topicIds(topicList);
        Set<String> ids = new java.util.HashSet<>(topicIds.values());
        for (String id : resume.nextOffsets().keySet()) {
            if (!ids.contains(id)) {
                throw new ProblemException(
                        ProblemType.CURSOR_TOPIC_CHANGED,
                        ("The cursor names a topic (id %s) that is not one of %s now (a topic was deleted and"
                                        + " created again, or topics= changed). Open the stream without a cursor.")
                                .formatted(id, topicList));
            }
        }
        if (memberName.isPresent()) {
            takeOver(group, memberName.get());
        }
        if (!slots.tryAcquire()) {
            throw new ProblemException(
                    ProblemType.TOO_MANY_GROUP_STREAMS,
                    "This gateway has %d group streams open, its limit (tributary.gateway.groups.max-streams); retry shortly."
                            .formatted(limits.maxStreams()));
        }
        metrics.groupStreamsChanged(1);
        try {
            configureGroup(group);
            stream(group, memberName, topicList, topicIds, resume, mode, earliest, response);
        } finally {
            metrics.groupStreamsChanged(-1);
            slots.release();
        }
    }

    private void stream(
            String group,
            Optional<String> member,
            List<String> topics,
            Map<String, String> topicIds,
            GroupCursor resume,
            GroupStream.CommitMode mode,
            boolean earliest,
            HttpServletResponse response)
            throws IOException {
        Consumer<byte[], byte[]> consumer = consumers.create(group, member);
        GroupStreamState state =
                new GroupStreamState(new StreamBuffer(sse.bufferSize().toBytes()), topicIds, resume.lineage());
        GroupStream stream = new GroupStream(
                group,
                member,
                topics,
                consumer,
                state,
                resume,
                topicIds,
                new GroupStream.Settings(
                        sse.pollWait(), sse.slowClientTimeout(), clusterTimeout, limits.closeTimeout(), mode, earliest),
                metrics,
                RecordEvent::of);
        response.setStatus(200);
        response.setContentType("text/event-stream");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Accel-Buffering", "no");
        open.add(stream);
        Thread reader = Thread.ofVirtual().name("sse-group-" + group).start(stream::run);
        StreamBuffer buffer = state.buffer();
        try {
            OutputStream out = response.getOutputStream();
            out.write(SseFrames.retry(sse.retry().toMillis()));
            out.flush();
            List<Object> marks = new ArrayList<>();
            while (true) {
                Optional<StreamBuffer.Entry> entry = buffer.pollEntry(sse.heartbeatInterval());
                if (entry.isPresent()) {
                    marks.clear();
                    out.write(entry.get().frame());
                    marks.add(entry.get().mark());
                    Optional<StreamBuffer.Entry> more;
                    while ((more = buffer.pollEntry(Duration.ZERO)).isPresent()) {
                        out.write(more.get().frame());
                        marks.add(more.get().mark());
                    }
                    out.flush();
                    state.flushed(marks);
                } else if (buffer.isDrained()) {
                    break;
                } else {
                    out.write(SseFrames.heartbeat());
                    out.flush();
                }
            }
        } catch (IOException | RuntimeException clientGone) {
            String reason = timedOut(clientGone) ? GatewayMetrics.SLOW_CLIENT : GatewayMetrics.CLIENT_CLOSED;
            if (state.closeFor(reason)) {
                metrics.groupStreamClosed(reason);
            }
            log.debug("Group stream of {} ended: {}", group, clientGone.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // nothing more reaches the client: frames not written are dropped (and never committed)
            buffer.abort();
            state.writerFinished();
            stream.wakeup();
            try {
                reader.join(limits.closeTimeout().multipliedBy(3));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            open.remove(stream);
        }
    }

    /**
     * The newer stream of a static member wins on this replica: a client that reconnects (an
     * {@code EventSource} after a network drop) usually does so before the gateway notices that the
     * old connection is gone, and a browser's {@code EventSource} gives up for good on a non-2xx
     * answer. So the old stream is ended ({@link GroupStream#replaced}) and this request waits until
     * its consumer has left the group, at most the time a stream takes to close (three close
     * timeouts, plus one write timeout for a last frame to a dead client); if it is still open then,
     * 409 {@code member-in-use}.
     */
    private void takeOver(String group, String member) {
        Optional<GroupStream> old = find(group, member);
        if (old.isEmpty()) {
            return;
        }
        old.get().replaced();
        long waitNanos = limits.closeTimeout()
                .multipliedBy(3)
                .plus(sse.slowClientTimeout())
                .toNanos();
        long start = System.nanoTime();
        try {
            while (open.contains(old.get())) {
                if (System.nanoTime() - start > waitNanos) {
                    throw stillClosing(group, member);
                }
                Thread.sleep(TAKE_OVER_POLL.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw stillClosing(group, member);
        }
    }

    private static ProblemException stillClosing(String group, String member) {
        return new ProblemException(
                ProblemType.MEMBER_IN_USE,
                "Member '%s' of group '%s' has a stream on this gateway that is still closing; retry."
                        .formatted(member, group));
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** The open stream of {@code member} (its {@code member=} or Kafka member id) in {@code group} here. */
    Optional<GroupStream> find(String group, String member) {
        for (GroupStream s : open) {
            if (s.group().equals(group) && s.isMember(member)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /**
     * Ends every open group stream (counted as {@code shutdown}): each writes what it has, commits
     * (auto) what it wrote, and its consumer leaves the group (with {@code member=}, leaves for the
     * session timeout only, so the client reconnecting elsewhere gets its partitions back).
     */
    public void closeAllStreams() {
        for (GroupStream s : List.copyOf(open)) {
            s.end(GatewayMetrics.SHUTDOWN);
        }
    }

    /** Sets the configured session timeout and heartbeat interval on the group (best effort). */
    private void configureGroup(String group) {
        List<AlterConfigOp> ops = new ArrayList<>();
        limits.groupSessionTimeout()
                .ifPresent(d -> ops.add(new AlterConfigOp(
                        new ConfigEntry("consumer.session.timeout.ms", Long.toString(d.toMillis())),
                        AlterConfigOp.OpType.SET)));
        limits.groupHeartbeatInterval()
                .ifPresent(d -> ops.add(new AlterConfigOp(
                        new ConfigEntry("consumer.heartbeat.interval.ms", Long.toString(d.toMillis())),
                        AlterConfigOp.OpType.SET)));
        if (ops.isEmpty()) {
            return;
        }
        try {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops))
                    .all()
                    .get(clusterTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Could not set the session timeout / heartbeat interval of group {}: {}", group, e.toString());
        }
    }

    static void requireName(String parameter, String name) {
        if (name == null
                || name.isBlank()
                || name.length() > MAX_NAME_LENGTH
                || name.chars().anyMatch(Character::isISOControl)) {
            throw ProblemException.invalidParameter(
                    parameter,
                    "%s must be 1 to %d characters without control characters.".formatted(parameter, MAX_NAME_LENGTH));
        }
    }

    private static List<String> topics(String text) {
        if (text == null || text.isBlank()) {
            throw ProblemException.invalidParameter(
                    "topics", "topics is required: the comma-separated topics the group stream reads.");
        }
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (String part : text.split(",", -1)) {
            String name = part.strip();
            if (name.isEmpty()) {
                throw ProblemException.invalidParameter(
                        "topics", "topics must be comma-separated topic names, got '%s'.".formatted(text));
            }
            try {
                TopicNames.requireValid(name);
            } catch (ProblemException e) {
                throw ProblemException.invalidParameter(
                        "topics", "'%s' in topics is not a valid topic name: %s".formatted(name, e.getMessage()));
            }
            names.add(name);
        }
        return List.copyOf(names);
    }

    private static GroupStream.CommitMode commitMode(String commit) {
        if (commit == null || commit.strip().equals("auto")) {
            return GroupStream.CommitMode.AUTO;
        }
        if (commit.strip().equals("manual")) {
            return GroupStream.CommitMode.MANUAL;
        }
        throw ProblemException.invalidParameter("commit", "commit must be auto or manual, got '%s'.".formatted(commit));
    }

    private static boolean fromEarliest(String from) {
        if (from == null || from.strip().equals("latest")) {
            return false;
        }
        if (from.strip().equals("earliest")) {
            return true;
        }
        throw ProblemException.invalidParameter(
                "from", "from must be earliest or latest for a group stream, got '%s'.".formatted(from));
    }

    /** Last-Event-ID, else cursor, else no positions; 400 naming the one that is malformed. */
    private static GroupCursor resumeCursor(String lastEventId, String cursor) {
        String name = "Last-Event-ID";
        String text = lastEventId;
        if (text == null || text.isBlank()) {
            name = "cursor";
            text = cursor;
        }
        if (text == null || text.isBlank()) {
            return GroupCursor.empty(LINEAGES.nextLong());
        }
        try {
            return GroupCursorCodec.decode(text.strip());
        } catch (MalformedCursorException e) {
            throw ProblemException.invalidParameter(
                    name,
                    "%s is not a group stream cursor (an event id of a group stream): %s."
                            .formatted(name, e.getMessage()));
        }
    }

    /** Topic name to id; 404 {@code topic-not-found} naming the first that does not exist. */
    private Map<String, String> topicIds(List<String> topics) {
        Map<String, TopicDescription> found;
        try {
            found = admin.describeTopics(topics).allTopicNames().get(clusterTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while asking the cluster.");
        } catch (Exception e) {
            ProblemException problem = KafkaProblems.toProblem(e);
            if (problem.type() == ProblemType.TOPIC_NOT_FOUND) {
                throw new ProblemException(
                        ProblemType.TOPIC_NOT_FOUND,
                        "A topic of %s does not exist: %s".formatted(topics, problem.getMessage()));
            }
            throw problem;
        }
        Map<String, String> ids = new HashMap<>();
        found.forEach((name, d) -> ids.put(name, d.topicId().toString()));
        return ids;
    }
}
