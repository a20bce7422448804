package io.tributary.gateway.groups;

import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.sse.GroupCursor;
import io.tributary.gateway.sse.GroupStreamState;
import io.tributary.gateway.sse.RecordEvent;
import io.tributary.gateway.sse.SseFrames;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * One group stream's reader: the thread that owns the stream's {@link Consumer} (a member of the
 * group), polls it, puts records in the stream's buffer, answers rebalances with {@code assigned}
 * and {@code revoked} events, and commits. Nothing else touches the consumer: manual commits are
 * queued here ({@link #commit}) and done between polls.
 *
 * <p>Positions: a partition assigned to the stream starts at the client's cursor ({@code
 * Last-Event-ID}) when the cursor names it, unless the committed offset was committed by another
 * stream lineage (commits carry the lineage as metadata) and is ahead: then at the committed
 * offset. So a client resuming gets exactly what follows its last event (even what its earlier
 * connection wrote, and committed, but the client never read), and nothing another member committed
 * since comes again. Otherwise at the committed offset, else at {@code from} ({@code earliest} or
 * {@code latest}). A cursor position is used once: a partition revoked and assigned again starts
 * at its committed offset.
 *
 * <p>Commits, {@code auto}: after each poll, the positions written and flushed to the client (never
 * what was only polled or is still buffered), when they moved; a revoked partition's written
 * position, synchronously, before the revocation completes; all written positions when the stream
 * ends. {@code manual}: what the client posts, for partitions the stream holds, up to what it
 * delivered.
 */
final class GroupStream implements ConsumerRebalanceListener {

    private static final Logger log = LoggerFactory.getLogger(GroupStream.class);
    private static final JsonFactory JSON = JsonFactory.builder().build();

    /** How a stream commits. */
    enum CommitMode {
        AUTO,
        MANUAL
    }

    /** A manual commit waiting for the reader thread. */
    record PendingCommit(Map<TopicPartition, Long> offsets, boolean onlyHeld, CompletableFuture<CommitResult> result) {}

    /** What a manual commit did: the offsets committed, and those skipped because the stream does not hold them. */
    record CommitResult(Map<TopicPartition, Long> committed, Set<TopicPartition> notAssigned) {}

    /** Settings of one stream. */
    record Settings(
            Duration pollWait,
            Duration slowClientTimeout,
            Duration clusterTimeout,
            Duration closeTimeout,
            CommitMode commitMode,
            boolean fromEarliest) {}

    private final String group;
    private final Optional<String> member;
    private final List<String> topics;
    private final Consumer<byte[], byte[]> consumer;
    private final GroupStreamState state;
    private final Settings settings;
    private final GatewayMetrics metrics;
    private final Function<ConsumerRecord<byte[], byte[]>, RecordEvent> events;
    private final Map<TopicPartition, Long> resume;
    private final String commitMetadata;
    private final ConcurrentLinkedQueue<PendingCommit> commits = new ConcurrentLinkedQueue<>();
    /** Per held partition, the offset the coordinator confirmed committed (reader thread only). */
    private final Map<TopicPartition, Long> confirmed = new HashMap<>();

    /** Asynchronous auto commits sent and not answered yet (reader thread only). */
    private int commitsInFlight;

    private volatile String memberId = "";
    private volatile int memberEpoch = -1;
    private volatile boolean ended;

    GroupStream(
            String group,
            Optional<String> member,
            List<String> topics,
            Consumer<byte[], byte[]> consumer,
            GroupStreamState state,
            GroupCursor resumeFrom,
            Map<String, String> topicIdsByName,
            Settings settings,
            GatewayMetrics metrics,
            Function<ConsumerRecord<byte[], byte[]>, RecordEvent> events) {
        this.group = group;
        this.member = member;
        this.topics = List.copyOf(topics);
        this.consumer = consumer;
        this.state = state;
        this.settings = settings;
        this.metrics = metrics;
        this.events = events;
        this.resume = new HashMap<>();
        this.commitMetadata = resumeFrom.commitMetadata();
        topicIdsByName.forEach((name, id) -> {
            SortedMap<Integer, Long> p = resumeFrom.nextOffsets().get(id);
            if (p != null) {
                p.forEach((partition, next) -> resume.put(new TopicPartition(name, partition), next));
            }
        });
    }

    String group() {
        return group;
    }

    Optional<String> member() {
        return member;
    }

    /** The Kafka member id, once the consumer joined (empty before). */
    String memberId() {
        return memberId;
    }

    GroupStreamState state() {
        return state;
    }

    CommitMode commitMode() {
        return settings.commitMode;
    }

    /** Whether {@code name} is this stream's member: its {@code member=} (instance id) or its Kafka member id. */
    boolean isMember(String name) {
        return member.map(name::equals).orElse(false) || (!memberId.isEmpty() && memberId.equals(name));
    }

    /**
     * Hands a manual commit to the reader thread. {@code onlyHeld}: partitions the stream does not
     * hold are skipped (a cursor); otherwise they fail the whole commit.
     */
    CompletableFuture<CommitResult> commit(Map<TopicPartition, Long> offsets, boolean onlyHeld) {
        CompletableFuture<CommitResult> result = new CompletableFuture<>();
        if (ended) {
            result.completeExceptionally(notConnected());
            return result;
        }
        commits.add(new PendingCommit(Map.copyOf(offsets), onlyHeld, result));
        if (ended) {
            failPending();
        }
        return result;
    }

    private ProblemException notConnected() {
        return new ProblemException(
                ProblemType.MEMBER_NOT_CONNECTED,
                "The stream of this member in group '%s' has ended; nothing was committed.".formatted(group));
    }

    /** The reader loop; returns when the stream ends (closed buffer, slow client, error). */
    void run() {
        try {
            consumer.subscribe(topics, this);
            while (!state.buffer().isClosed()) {
                ConsumerRecords<byte[], byte[]> polled;
                try {
                    polled = consumer.poll(settings.pollWait);
                } catch (OffsetOutOfRangeException e) {
                    if (!outOfRange(e)) {
                        slowClient();
                        break;
                    }
                    continue;
                }
                if (!deliver(polled)) {
                    slowClient();
                    break;
                }
                serveCommits();
                autoCommit();
            }
        } catch (WakeupException | InterruptException e) {
            // the gateway is stopping
            Thread.interrupted();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (UnreleasedInstanceIdException | FencedInstanceIdException e) {
            endWithError(
                    ProblemType.MEMBER_IN_USE,
                    "Member '%s' of group '%s' is connected elsewhere (another stream with the same member); this stream ends."
                            .formatted(member.orElse(memberId), group));
        } catch (ProblemException e) {
            endWithError(e.type(), e.getMessage());
        } catch (KafkaException e) {
            log.warn("Group stream of {} failed: {}", group, e.toString());
            endWithError(
                    io.tributary.gateway.problem.KafkaProblems.toProblem(e).type(),
                    "The group stream failed (" + e.getMessage() + "); resume.");
        } catch (RuntimeException e) {
            log.warn("Group stream of {} failed", group, e);
            endWithError(ProblemType.INTERNAL_ERROR, "The group stream failed; resume.");
        } finally {
            ended = true;
            state.buffer().close();
            state.wake();
            failPending();
            try {
                // the written positions are final only once the writer stopped
                state.awaitWriterFinished(settings.closeTimeout);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finalCommitAndLeave();
        }
    }

    private void slowClient() {
        if (state.closeFor(GatewayMetrics.SLOW_CLIENT)) {
            metrics.groupStreamClosed(GatewayMetrics.SLOW_CLIENT);
            log.info("Group stream of {} closed: its client fell behind", group);
        }
    }

    /**
     * Ends this stream because a newer stream of the same static member opened on this replica (its
     * client reconnected before this one noticed the old connection was gone): an {@code error}
     * event {@code member-in-use} is the last frame, what was written is committed (auto), and the
     * consumer leaves as a static member does, so the newer stream's consumer takes over the
     * assignment.
     */
    void replaced() {
        try {
            state.buffer()
                    .offer(
                            SseFrames.control(
                                    "error",
                                    problemJson(
                                            ProblemType.MEMBER_IN_USE,
                                            "A newer stream of member '%s' of group '%s' opened on this gateway; this one ends."
                                                    .formatted(member.orElse(memberId), group))),
                            Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        end(GatewayMetrics.REPLACED);
    }

    /**
     * Ends this stream from outside its threads, counted once under {@code reason}: the writer sends
     * what the buffer holds and stops, and the reader commits (auto) and leaves the group.
     */
    void end(String reason) {
        if (state.closeFor(reason)) {
            metrics.groupStreamClosed(reason);
        }
        state.buffer().close();
        state.wake();
        wakeup();
    }

    private void endWithError(ProblemType type, String detail) {
        if (state.closeFor(GatewayMetrics.ERROR)) {
            metrics.groupStreamClosed(GatewayMetrics.ERROR);
        }
        try {
            state.buffer().offer(SseFrames.control("error", problemJson(type, detail)), Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean deliver(ConsumerRecords<byte[], byte[]> polled) throws InterruptedException {
        for (TopicPartition tp : polled.partitions()) {
            int count = 0;
            for (ConsumerRecord<byte[], byte[]> r : polled.records(tp)) {
                if (!state.deliverWaiting(tp, r.offset(), events.apply(r), settings.slowClientTimeout)) {
                    metrics.consumed(tp.topic(), "group", count);
                    // a closed stream ends the loop by itself; otherwise the client is too slow
                    return state.buffer().isClosed();
                }
                count++;
            }
            metrics.consumed(tp.topic(), "group", count);
        }
        return true;
    }

    /** A {@code gap} event for each partition whose position retention removed; past the end: error. */
    private boolean outOfRange(OffsetOutOfRangeException e) throws InterruptedException {
        Map<TopicPartition, Long> starts =
                consumer.beginningOffsets(e.offsetOutOfRangePartitions().keySet(), settings.clusterTimeout);
        for (var entry : e.offsetOutOfRangePartitions().entrySet()) {
            TopicPartition tp = entry.getKey();
            long offset = entry.getValue();
            long logStart = starts.get(tp);
            if (offset >= logStart) {
                throw new ProblemException(
                        ProblemType.OFFSET_BEYOND_LOG_END,
                        "Offset %d of %s is past the end of the log.".formatted(offset, tp));
            }
            consumer.seek(tp, logStart);
            byte[] gap = SseFrames.control("gap", gapJson(tp, offset, logStart));
            if (!state.controlWaiting(gap, new GroupStreamState.Written(tp, logStart), settings.slowClientTimeout)) {
                return false;
            }
        }
        return true;
    }

    private void serveCommits() {
        PendingCommit c;
        while ((c = commits.poll()) != null) {
            try {
                c.result().complete(commitNow(c));
            } catch (ProblemException e) {
                c.result().completeExceptionally(e);
            } catch (KafkaException e) {
                c.result().completeExceptionally(commitFailed(e));
            }
        }
    }

    private CommitResult commitNow(PendingCommit c) {
        SortedMap<TopicPartition, Long> held = state.delivered();
        Map<TopicPartition, Long> toCommit = new HashMap<>();
        Set<TopicPartition> notAssigned = new HashSet<>();
        for (Map.Entry<TopicPartition, Long> e : c.offsets().entrySet()) {
            Long delivered = held.get(e.getKey());
            if (delivered == null) {
                notAssigned.add(e.getKey());
            } else if (e.getValue() > delivered) {
                throw new ProblemException(
                        ProblemType.INVALID_COMMIT,
                        "Offset %d of %s is past what this stream delivered (next offset %d); commit the offset after the last record processed."
                                .formatted(e.getValue(), e.getKey(), delivered));
            } else {
                toCommit.put(e.getKey(), e.getValue());
            }
        }
        if (!notAssigned.isEmpty() && !c.onlyHeld()) {
            throw new ProblemException(
                    ProblemType.PARTITION_NOT_ASSIGNED,
                    "This member of group '%s' does not hold %s now; nothing was committed."
                            .formatted(group, new java.util.TreeSet<>(toNames(notAssigned))));
        }
        if (!toCommit.isEmpty()) {
            consumer.commitSync(offsets(toCommit), settings.clusterTimeout);
            metrics.groupCommit("manual");
        }
        return new CommitResult(toCommit, notAssigned);
    }

    private static List<String> toNames(Set<TopicPartition> tps) {
        return tps.stream().map(TopicPartition::toString).toList();
    }

    private ProblemException commitFailed(KafkaException e) {
        return new ProblemException(
                ProblemType.MEMBER_NOT_CONNECTED,
                "The group coordinator refused the commit (%s); the member's assignment may have changed."
                        .formatted(e.getMessage()),
                Map.of(),
                e);
    }

    private void failPending() {
        PendingCommit c;
        while ((c = commits.poll()) != null) {
            c.result().completeExceptionally(notConnected());
        }
    }

    /**
     * commit=auto: the written positions that differ from what the coordinator confirmed, unless a
     * commit is still in flight. A failed commit (say, a stale member epoch during a rebalance)
     * confirms nothing, so the next turn of the loop sends it again.
     */
    private void autoCommit() {
        if (settings.commitMode != CommitMode.AUTO || commitsInFlight > 0) {
            return;
        }
        Map<TopicPartition, Long> moved = new HashMap<>();
        state.written().forEach((tp, o) -> {
            if (!o.equals(confirmed.get(tp))) {
                moved.put(tp, o);
            }
        });
        if (moved.isEmpty()) {
            return;
        }
        commitsInFlight++;
        consumer.commitAsync(offsets(moved), (done, failure) -> {
            commitsInFlight--;
            if (failure != null) {
                log.debug("Auto commit of group {} failed (sent again): {}", group, failure.toString());
            } else {
                confirm(moved);
                metrics.groupCommit("auto");
            }
        });
    }

    /** Notes offsets the coordinator accepted, for partitions the stream still holds. */
    private void confirm(Map<TopicPartition, Long> committed) {
        Set<TopicPartition> held = state.delivered().keySet();
        committed.forEach((tp, o) -> {
            if (held.contains(tp)) {
                confirmed.put(tp, o);
            }
        });
    }

    private void finalCommitAndLeave() {
        try {
            if (settings.commitMode == CommitMode.AUTO) {
                Map<TopicPartition, Long> written = state.written();
                if (!written.isEmpty()) {
                    consumer.commitSync(offsets(written), settings.closeTimeout);
                    metrics.groupCommit("auto");
                }
            }
        } catch (KafkaException e) {
            log.info("Last commit of a group stream of {} failed: {}", group, e.toString());
        }
        try {
            // a member with member= stays in the group for the session timeout (a reconnecting
            // client gets its partitions back); one without leaves now, and its partitions move on
            consumer.close(CloseOptions.timeout(settings.closeTimeout));
        } catch (KafkaException e) {
            log.info("Closing a group consumer of {} failed: {}", group, e.toString());
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        handOver(partitions, false);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        handOver(partitions, true);
    }

    /**
     * Partitions leave the stream: everything delivered of them is written to the client first, then
     * the {@code revoked} event is written, then (auto) their written positions are committed; all
     * before the consumer acknowledges the revocation. A client too slow for that within {@code
     * slow-client-timeout} loses its stream (what it had not received is dropped and not committed).
     * Lost partitions (the member was fenced) are not committed: another member owns them already.
     */
    private void handOver(Collection<TopicPartition> partitions, boolean lost) {
        if (partitions.isEmpty()) {
            return;
        }
        try {
            if (!state.awaitWritten(partitions, settings.slowClientTimeout)) {
                slowClient();
                state.buffer().abort();
            }
            Map<TopicPartition, Long> written = state.revoke(partitions);
            updateMember();
            metrics.groupRebalance("revoked", partitions.size());
            if (!state.controlWritten(
                    SseFrames.control("revoked", revokedJson(partitions, written, lost)), settings.slowClientTimeout)) {
                slowClient();
                state.buffer().abort();
            }
            if (!lost && settings.commitMode == CommitMode.AUTO && !written.isEmpty()) {
                try {
                    consumer.commitSync(offsets(written), settings.clusterTimeout);
                    metrics.groupCommit("revoke");
                } catch (KafkaException e) {
                    log.warn(
                            "Commit of revoked partitions {} of group {} failed: {}",
                            written.keySet(),
                            group,
                            e.toString());
                }
            }
            confirmed.keySet().removeAll(partitions);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        updateMember();
        Map<TopicPartition, Long> starts = new HashMap<>();
        if (!partitions.isEmpty()) {
            Set<TopicPartition> set = new HashSet<>(partitions);
            Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(set, settings.clusterTimeout);
            List<TopicPartition> noPosition = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata c = committed.get(tp);
                Long cursor = resume.remove(tp);
                if (cursor != null) {
                    // the lineage's own commit may be ahead of what its client received: the cursor
                    // wins; another member's commit is never gone back behind
                    boolean own = c == null || commitMetadata.equals(c.metadata());
                    starts.put(tp, own ? cursor : Math.max(cursor, c.offset()));
                } else if (c != null) {
                    starts.put(tp, c.offset());
                } else {
                    noPosition.add(tp);
                }
            }
            if (!noPosition.isEmpty()) {
                Map<TopicPartition, Long> reset = settings.fromEarliest
                        ? consumer.beginningOffsets(noPosition, settings.clusterTimeout)
                        : consumer.endOffsets(noPosition, settings.clusterTimeout);
                starts.putAll(reset);
            }
            starts.forEach(consumer::seek);
            state.assign(starts);
            starts.forEach((tp, start) -> {
                OffsetAndMetadata c = committed.get(tp);
                if (c != null && c.offset() == start) {
                    confirmed.put(tp, start); // nothing to commit until the stream moves on
                }
            });
        }
        metrics.groupRebalance("assigned", partitions.size());
        try {
            if (!state.controlWritten(
                    SseFrames.control("assigned", assignedJson(starts)), settings.slowClientTimeout)) {
                slowClient();
                state.buffer().abort();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void updateMember() {
        try {
            ConsumerGroupMetadata m = consumer.groupMetadata();
            memberId = m.memberId();
            memberEpoch = m.generationId();
        } catch (KafkaException e) {
            // not joined yet
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> offsets(Map<TopicPartition, Long> positions) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        positions.forEach((tp, o) -> out.put(tp, new OffsetAndMetadata(o, commitMetadata)));
        return out;
    }

    private byte[] assignedJson(Map<TopicPartition, Long> starts) {
        return json(g -> {
            memberFields(g);
            g.writeArrayPropertyStart("partitions");
            sorted(starts).forEach((tp, offset) -> {
                g.writeStartObject();
                g.writeStringProperty("topic", tp.topic());
                g.writeNumberProperty("partition", tp.partition());
                g.writeNumberProperty("offset", offset);
                g.writeEndObject();
            });
            g.writeEndArray();
            assignment(g);
        });
    }

    private byte[] revokedJson(Collection<TopicPartition> partitions, Map<TopicPartition, Long> written, boolean lost) {
        Map<TopicPartition, Long> all = new HashMap<>();
        partitions.forEach(tp -> all.put(tp, written.getOrDefault(tp, -1L)));
        return json(g -> {
            memberFields(g);
            g.writeArrayPropertyStart("partitions");
            sorted(all).forEach((tp, offset) -> {
                g.writeStartObject();
                g.writeStringProperty("topic", tp.topic());
                g.writeNumberProperty("partition", tp.partition());
                if (offset >= 0) {
                    g.writeNumberProperty("offset", offset);
                }
                g.writeEndObject();
            });
            g.writeEndArray();
            g.writeBooleanProperty("lost", lost);
            assignment(g);
        });
    }

    private void memberFields(JsonGenerator g) {
        g.writeStringProperty("group", group);
        g.writeStringProperty("member_id", memberId);
        if (member.isPresent()) {
            g.writeStringProperty("member", member.get());
        }
        g.writeNumberProperty("member_epoch", memberEpoch);
        g.writeStringProperty("commit", settings.commitMode.name().toLowerCase(java.util.Locale.ROOT));
    }

    private void assignment(JsonGenerator g) {
        g.writeArrayPropertyStart("assignment");
        for (TopicPartition tp : state.delivered().keySet()) {
            g.writeStartObject();
            g.writeStringProperty("topic", tp.topic());
            g.writeNumberProperty("partition", tp.partition());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    static final java.util.Comparator<TopicPartition> ORDER =
            java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private static SortedMap<TopicPartition, Long> sorted(Map<TopicPartition, Long> positions) {
        TreeMap<TopicPartition, Long> out = new TreeMap<>(ORDER);
        out.putAll(positions);
        return out;
    }

    private byte[] gapJson(TopicPartition tp, long offset, long logStart) {
        return json(g -> {
            ProblemType t = ProblemType.OFFSET_BELOW_LOG_START;
            g.writeStringProperty("type", t.uri().toString());
            g.writeStringProperty("title", t.title());
            g.writeNumberProperty("status", t.status());
            g.writeStringProperty(
                    "detail",
                    "Offsets %d to %d of %s were removed by retention; the stream continues at %d."
                            .formatted(offset, logStart - 1, tp, logStart));
            g.writeStringProperty("topic", tp.topic());
            g.writeNumberProperty("partition", tp.partition());
            g.writeNumberProperty("offset", offset);
            g.writeNumberProperty("log_start_offset", logStart);
        });
    }

    static byte[] problemJson(ProblemType type, String detail) {
        return json(g -> {
            g.writeStringProperty("type", type.uri().toString());
            g.writeStringProperty("title", type.title());
            g.writeNumberProperty("status", type.status());
            g.writeStringProperty("detail", detail);
        });
    }

    private static byte[] json(java.util.function.Consumer<JsonGenerator> body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out)) {
            g.writeStartObject();
            body.accept(g);
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    /** Wakes the reader out of a poll (the gateway is stopping); thread-safe. */
    void wakeup() {
        consumer.wakeup();
    }
}
