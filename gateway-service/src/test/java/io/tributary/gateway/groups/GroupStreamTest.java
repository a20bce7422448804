package io.tributary.gateway.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.testing.BackgroundFailures;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.sse.GroupCursor;
import io.tributary.gateway.sse.GroupStreamState;
import io.tributary.gateway.sse.RecordEvent;
import io.tributary.gateway.sse.StreamBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A group stream's reader against kafka-clients' {@link MockConsumer}, with the test as the writer
 * (it decides what is "flushed to the client"): {@code commit=auto} commits what was flushed and
 * never what was only polled, and a revocation waits for the client before it commits.
 */
class GroupStreamTest {

    private static final String ID = "wE3gVQ8uQ4yq1mY3cS3h0A";
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    /** Offsets committed, as the coordinator would keep them (the mock forgets unassigned ones). */
    private final Map<TopicPartition, OffsetAndMetadata> commits = new java.util.concurrent.ConcurrentHashMap<>();

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest") {
        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
            super.commitSync(offsets, timeout);
            commits.putAll(offsets);
        }

        @Override
        public synchronized void commitAsync(
                Map<TopicPartition, OffsetAndMetadata> offsets,
                org.apache.kafka.clients.consumer.OffsetCommitCallback callback) {
            commits.putAll(offsets);
            super.commitAsync(offsets, callback);
        }
    };
    private final GroupStreamState state = new GroupStreamState(new StreamBuffer(1 << 20), Map.of("orders", ID), 7);
    private final GroupStream stream = new GroupStream(
            "g",
            Optional.empty(),
            List.of("orders"),
            consumer,
            state,
            GroupCursor.empty(7),
            Map.of("orders", ID),
            new GroupStream.Settings(
                    Duration.ofMillis(10),
                    Duration.ofSeconds(60),
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(5),
                    GroupStream.CommitMode.AUTO,
                    true),
            new GatewayMetrics(new SimpleMeterRegistry()),
            r -> RecordEvent.record(("{\"offset\":" + r.offset() + "}").getBytes(StandardCharsets.UTF_8)));
    /** The writer's and the stream's reader's failures: checked after each test. */
    @RegisterExtension
    final BackgroundFailures background = new BackgroundFailures();

    private final Writer writer = new Writer();
    private BackgroundFailures.Task reader;

    /** The client side: takes every frame; control frames are flushed at once, records when released. */
    private final class Writer {
        final List<String> frames = new ArrayList<>();
        final List<Object> held = new ArrayList<>();
        volatile boolean holdRecords = true;
        final BackgroundFailures.Task task = background.start("writer", t -> run());

        void run() {
            try {
                while (!state.buffer().isDrained()) {
                    Optional<StreamBuffer.Entry> e = state.buffer().pollEntry(Duration.ofMillis(20));
                    synchronized (this) {
                        if (e.isPresent()) {
                            frames.add(new String(e.get().frame(), StandardCharsets.UTF_8));
                            if (e.get().mark() instanceof GroupStreamState.Written && holdRecords) {
                                held.add(e.get().mark());
                                continue;
                            }
                            state.flushed(java.util.Arrays.asList(e.get().mark()));
                        }
                    }
                }
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            } finally {
                state.writerFinished();
            }
        }

        /** Flushes the first {@code n} held record frames. */
        synchronized void flush(int n) {
            List<Object> now = new ArrayList<>(held.subList(0, n));
            held.subList(0, n).clear();
            state.flushed(now);
        }

        synchronized int heldCount() {
            return held.size();
        }

        synchronized List<String> events() {
            return frames.stream().map(f -> f.lines().findFirst().orElse("")).toList();
        }
    }

    private void start(List<TopicPartition> assignment, int recordsPerPartition) {
        consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        consumer.schedulePollTask(() -> {
            consumer.rebalance(assignment);
            for (TopicPartition tp : assignment) {
                for (int i = 0; i < recordsPerPartition; i++) {
                    consumer.addRecord(new ConsumerRecord<>(tp.topic(), tp.partition(), i, null, new byte[] {1}));
                }
            }
        });
        reader = background.start("group-stream", t -> stream.run());
    }

    private long committed(TopicPartition tp) {
        OffsetAndMetadata o = commits.get(tp);
        return o == null ? -1 : o.offset();
    }

    @AfterEach
    void end() throws InterruptedException {
        state.buffer().abort();
        stream.wakeup();
        if (reader != null) {
            reader.join(Duration.ofSeconds(30));
        }
        writer.task.join(Duration.ofSeconds(30));
    }

    @Test
    void autoCommitCommitsWhatWasFlushedNeverWhatWasOnlyPolled() {
        start(List.of(P0), 5);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> writer.heldCount() == 5);

        writer.flush(2);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> committed(P0) >= 2);
        assertThat(committed(P0))
                .as("three records polled, in the buffer, not flushed")
                .isEqualTo(2);
        assertThat(commits.get(P0).metadata())
                .as("commits carry the stream lineage")
                .isEqualTo(GroupCursor.empty(7).commitMetadata());

        writer.flush(3);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> committed(P0) == 5);
    }

    @Test
    void aRevocationWritesTheRecordsOfThePartitionThenRevokedThenCommits() {
        start(List.of(P0, P1), 3);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> writer.heldCount() == 6);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> committed(P0) == 0);
        consumer.schedulePollTask(() -> consumer.rebalance(List.of(P1)));

        writer.flush(6); // the client receives what was waiting; only now can the revocation go on
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> writer.events().contains("event: revoked"));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> committed(P0) == 3);

        List<String> events = writer.events();
        int revoked = events.indexOf("event: revoked");
        assertThat(events.subList(0, revoked))
                .filteredOn("event: record"::equals)
                .hasSize(6);
        assertThat(writer.frames.get(revoked)).contains("\"partition\":0,\"offset\":3");
        assertThat(state.delivered()).containsOnlyKeys(P1);
    }
}
