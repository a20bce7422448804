package io.tributary.gateway.sse;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.BackgroundFailures;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class GroupStreamStateTest {

    private static final String ID = "wE3gVQ8uQ4yq1mY3cS3h0A";
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final GroupStreamState state = new GroupStreamState(new StreamBuffer(1 << 20), Map.of("orders", ID), 9);

    private static RecordEvent record(String text) {
        return RecordEvent.record(json(text));
    }

    private static byte[] json(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** What the writer does: takes every frame, "writes" it, reports the marks. */
    private List<String> writeAll() throws InterruptedException {
        List<String> frames = new ArrayList<>();
        List<Object> marks = new ArrayList<>();
        Optional<StreamBuffer.Entry> e;
        while ((e = state.buffer().pollEntry(Duration.ZERO)).isPresent()) {
            frames.add(new String(e.get().frame(), StandardCharsets.UTF_8));
            marks.add(e.get().mark());
        }
        state.flushed(marks);
        return frames;
    }

    @Test
    void aTombstoneIsADeleteEventWithTheCursorAfterItAsItsId() throws InterruptedException {
        state.assign(Map.of(P0, 10L));
        ConsumerRecord<byte[], byte[]> tombstone =
                new ConsumerRecord<>("orders", 0, 10, "k".getBytes(StandardCharsets.UTF_8), (byte[]) null);

        assertThat(state.deliverWaiting(P0, 10, RecordEvent.of(tombstone), Duration.ZERO))
                .isTrue();

        String frame = writeAll().getFirst();
        assertThat(frame).startsWith("event: delete\nid: g1.").doesNotContain("value", "tombstone");
        assertThat(frame)
                .endsWith("\ndata: {\"topic\":\"orders\",\"partition\":0,\"offset\":10,"
                        + "\"timestamp\":null,\"key\":\"k\",\"headers\":{}}\n\n");
        String id = frame.lines()
                .filter(l -> l.startsWith("id: "))
                .findFirst()
                .orElseThrow()
                .substring(4);
        assertThat(GroupCursorCodec.decode(id).nextOffset(ID, 0)).isEqualTo(11);
        assertThat(state.written()).containsEntry(P0, 11L);
    }

    @Test
    void eachRecordIdIsTheCursorAfterItAndWrittenMovesOnlyWhenFlushed() throws InterruptedException {
        state.assign(Map.of(P0, 10L, P1, 5L));
        assertThat(state.deliverWaiting(P0, 10, record("{}"), Duration.ZERO)).isTrue();
        assertThat(state.deliverWaiting(P1, 5, record("{}"), Duration.ZERO)).isTrue();

        assertThat(state.written()).containsEntry(P0, 10L).containsEntry(P1, 5L);
        List<String> frames = writeAll();
        assertThat(state.written()).containsEntry(P0, 11L).containsEntry(P1, 6L);

        String lastId = frames.get(1)
                .lines()
                .filter(l -> l.startsWith("id: "))
                .findFirst()
                .orElseThrow()
                .substring(4);
        GroupCursor c = GroupCursorCodec.decode(lastId);
        assertThat(c.lineage()).isEqualTo(9);
        assertThat(c.nextOffset(ID, 0)).isEqualTo(11);
        assertThat(c.nextOffset(ID, 1)).isEqualTo(6);
    }

    @Test
    void duplicatesAndPartitionsNotHeldAreNotDelivered() throws InterruptedException {
        state.assign(Map.of(P0, 10L));
        assertThat(state.deliverWaiting(P0, 9, record("{}"), Duration.ZERO)).isTrue();
        assertThat(state.deliverWaiting(P1, 0, record("{}"), Duration.ZERO)).isTrue();
        assertThat(writeAll()).isEmpty();
    }

    @Test
    void aRevokedPartitionWaitsForItsRecordsToBeWrittenAndReturnsTheWrittenPosition() throws InterruptedException {
        state.assign(Map.of(P0, 0L, P1, 0L));
        state.deliverWaiting(P0, 0, record("{}"), Duration.ZERO);
        state.deliverWaiting(P0, 1, record("{}"), Duration.ZERO);

        assertThat(state.awaitWritten(List.of(P0), Duration.ZERO)).isFalse();
        assertThat(state.awaitWritten(List.of(P1), Duration.ZERO)).isTrue();
        writeAll();
        assertThat(state.awaitWritten(List.of(P0), Duration.ZERO)).isTrue();

        assertThat(state.revoke(List.of(P0))).isEqualTo(Map.of(P0, 2L));
        assertThat(state.delivered()).containsOnlyKeys(P1);
        assertThat(state.cursor().nextOffset(ID, 0)).isNull();
    }

    @Test
    void aClosedStreamStopsWaitingAndAControlEventCountsOnceFlushed() throws InterruptedException {
        state.assign(Map.of(P0, 0L));
        var background = new BackgroundFailures();
        BackgroundFailures.Task writer = background.start("writer", task -> {
            while (!state.buffer().isDrained()) {
                Optional<StreamBuffer.Entry> e = state.buffer().pollEntry(Duration.ofMillis(50));
                e.ifPresent(x -> state.flushed(java.util.Arrays.asList(x.mark())));
            }
        });
        assertThat(state.controlWritten(SseFrames.control("revoked", json("{}")), Duration.ofSeconds(30)))
                .isTrue();
        state.deliverWaiting(P0, 0, record("{}"), Duration.ZERO);
        state.buffer().abort();
        state.wake();
        assertThat(state.awaitWritten(List.of(P0), Duration.ofSeconds(30))).isTrue();
        writer.join(Duration.ofSeconds(30));
        background.check();
    }
}
