package io.tributary.gateway.sse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** A stream's position moves with exactly the events put in its buffer, whoever puts them. */
class StreamStateTest {

    private static final String TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA";

    private static StreamState stream(int partitions, long bufferBytes) {
        TreeMap<Integer, Long> start = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            start.put(p, 1_000_000L + p);
        }
        return new StreamState("t", new StreamCursor(TOPIC_ID, start), new StreamBuffer(bufferBytes));
    }

    private static String idOf(byte[] frame) {
        String text = new String(frame, StandardCharsets.UTF_8);
        return text.replaceAll("(?s).*id: ([^\\n]+)\\n.*", "$1");
    }

    @Test
    void eachIdIsThePositionAfterExactlyTheEventsBeforeIt() throws Exception {
        StreamState s = stream(2, 1 << 20);
        RecordEvent json = RecordEvent.record("{}".getBytes(StandardCharsets.UTF_8));
        assertThat(s.deliver(0, 1_000_000L, json)).isEqualTo(StreamState.Outcome.DELIVERED);
        assertThat(s.deliver(1, 1_000_005L, json)).isEqualTo(StreamState.Outcome.DELIVERED); // a gap in offsets
        assertThat(s.deliver(0, 1_000_000L, json)).isEqualTo(StreamState.Outcome.DUPLICATE);
        assertThat(CursorCodec.decode(idOf(s.buffer().poll(Duration.ZERO).orElseThrow()))
                        .nextOffsets())
                .containsExactlyEntriesOf(new TreeMap<>(Map.of(0, 1_000_001L, 1, 1_000_001L)));
        assertThat(CursorCodec.decode(idOf(s.buffer().poll(Duration.ZERO).orElseThrow()))
                        .nextOffsets())
                .containsExactlyEntriesOf(new TreeMap<>(Map.of(0, 1_000_001L, 1, 1_000_006L)));
        assertThat(s.buffer().poll(Duration.ZERO)).isEmpty();
    }

    @Test
    void withoutRoomNothingMovesAndAWaitingDeliveryGoesInWhenTheClientReads() throws Exception {
        // many partitions: the id is far larger than the record, so the wait must be for the frame
        StreamState s = stream(500, 4096);
        RecordEvent json = RecordEvent.record("{\"v\":1}".getBytes(StandardCharsets.UTF_8));
        assertThat(s.deliver(0, 1_000_000L, json)).isEqualTo(StreamState.Outcome.DELIVERED);
        assertThat(s.deliver(1, 1_000_001L, json)).isEqualTo(StreamState.Outcome.NO_ROOM);
        assertThat(s.cursor().nextOffsets().get(1)).isEqualTo(1_000_001L);
        assertThat(s.deliverWaiting(1, 1_000_001L, json, Duration.ZERO)).isFalse();

        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return s.deliverWaiting(1, 1_000_001L, json, Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        s.buffer().poll(Duration.ZERO).orElseThrow(); // the client reads the first event
        assertThat(waiting.get()).isTrue();
        assertThat(s.cursor().nextOffsets().get(1)).isEqualTo(1_000_002L);
    }

    @Test
    void aTombstoneIsADeleteEventWithoutAValueWhoseIdMovesThePositionAsARecordDoes() throws Exception {
        StreamState s = stream(1, 1 << 20);
        ConsumerRecord<byte[], byte[]> tombstone =
                new ConsumerRecord<>("t", 0, 1_000_000L, "k".getBytes(StandardCharsets.UTF_8), (byte[]) null);

        assertThat(s.deliver(0, 1_000_000L, RecordEvent.of(tombstone))).isEqualTo(StreamState.Outcome.DELIVERED);

        String frame = new String(s.buffer().poll(Duration.ZERO).orElseThrow(), StandardCharsets.UTF_8);
        String id = idOf(frame.getBytes(StandardCharsets.UTF_8));
        assertThat(frame)
                .isEqualTo("event: delete\nid: " + id + "\ndata: {\"topic\":\"t\",\"partition\":0,\"offset\":1000000,"
                        + "\"timestamp\":null,\"key\":\"k\",\"headers\":{}}\n\n");
        assertThat(CursorCodec.decode(id).nextOffsets()).containsEntry(0, 1_000_001L);
        assertThat(s.cursor().nextOffsets()).containsEntry(0, 1_000_001L);
    }

    @Test
    void aClosedStreamTakesNothing() throws Exception {
        StreamState s = stream(1, 1 << 20);
        s.close();
        assertThat(s.deliver(0, 1_000_000L, RecordEvent.record(new byte[] {'1'})))
                .isEqualTo(StreamState.Outcome.CLOSED);
        assertThat(s.deliverWaiting(0, 1_000_000L, RecordEvent.record(new byte[] {'1'}), Duration.ofSeconds(1)))
                .isFalse();
        assertThat(s.closeFor("shutdown")).isTrue();
        assertThat(s.closeFor("slow_client")).isFalse();
    }
}
