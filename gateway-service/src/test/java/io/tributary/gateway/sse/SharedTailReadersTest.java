package io.tributary.gateway.sse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shared tail readers over kafka-clients' {@link MockConsumer}: one consumer for every stream of
 * a partition, joining through the history, detaching a stream without room, dropping a partition
 * whose offset went out of range, and ending a reader with its last stream.
 */
class SharedTailReadersTest {

    private static final String TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA";
    private static final TopicPartition TP = new TopicPartition("t", 0);

    /** A mock consumer whose empty polls pause briefly, as a real one waits (no busy loop). */
    static final class PacedConsumer extends MockConsumer<byte[], byte[]> {
        PacedConsumer() {
            super("none");
        }

        @Override
        public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            ConsumerRecords<byte[], byte[]> r = super.poll(timeout);
            if (r.isEmpty()) {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return r;
        }
    }

    private final List<PacedConsumer> consumers = new ArrayList<>();
    private final AtomicInteger fetches = new AtomicInteger();
    private SharedTailReaders readers;

    private SharedTailReaders readers(long historyBytes) {
        readers = new SharedTailReaders(
                () -> {
                    PacedConsumer c = new PacedConsumer();
                    synchronized (consumers) {
                        consumers.add(c);
                    }
                    return c;
                },
                1,
                Duration.ofMillis(10),
                historyBytes,
                r -> RecordEvent.record(("{\"o\":" + r.offset() + "}").getBytes(StandardCharsets.UTF_8)),
                new SharedTailReaders.Listener() {
                    @Override
                    public void fetched() {
                        fetches.incrementAndGet();
                    }

                    @Override
                    public void delivered(String topic, int records) {}
                });
        return readers;
    }

    @AfterEach
    void close() {
        if (readers != null) {
            readers.close();
        }
    }

    private static StreamState stream(long offset, long bufferBytes) {
        return new StreamState(
                "t", new StreamCursor(TOPIC_ID, new TreeMap<>(Map.of(0, offset))), new StreamBuffer(bufferBytes));
    }

    private PacedConsumer consumer() {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            synchronized (consumers) {
                return consumers.size() == 1 && consumers.get(0).assignment().contains(TP);
            }
        });
        synchronized (consumers) {
            return consumers.get(0);
        }
    }

    private static void add(PacedConsumer c, long from, long to) {
        for (long o = from; o < to; o++) {
            c.addRecord(new ConsumerRecord<>("t", 0, o, new byte[0], new byte[] {1}));
        }
    }

    /** The offsets of the records in the stream's buffer, with each id checked against them. */
    private static List<Long> drain(StreamState s, int count) throws InterruptedException {
        List<Long> offsets = new ArrayList<>();
        while (offsets.size() < count) {
            Optional<byte[]> f = s.buffer().poll(Duration.ofSeconds(10));
            assertThat(f).as("frame %d of %d", offsets.size(), count).isPresent();
            String text = new String(f.get(), StandardCharsets.UTF_8);
            long o = Long.parseLong(text.replaceAll("(?s).*\"o\":(\\d+).*", "$1"));
            String id = text.replaceAll("(?s).*id: ([^\\n]+)\\n.*", "$1");
            assertThat(CursorCodec.decode(id).nextOffsets()).isEqualTo(Map.of(0, o + 1));
            offsets.add(o);
        }
        return offsets;
    }

    private static List<Long> range(long from, long to) {
        List<Long> r = new ArrayList<>();
        for (long o = from; o < to; o++) {
            r.add(o);
        }
        return r;
    }

    @Test
    void oneConsumerFeedsEveryStreamAndAStreamJustBehindJoinsThroughTheHistory() throws Exception {
        readers(1 << 20);
        StreamState a = stream(0, 1 << 20);
        StreamState b = stream(0, 1 << 20);
        assertThat(readers.attach(a, 0, 0)).isTrue();
        assertThat(readers.attach(b, 0, 0)).isTrue();
        PacedConsumer c = consumer();
        add(c, 0, 5);
        assertThat(drain(a, 5)).isEqualTo(range(0, 5));
        assertThat(drain(b, 5)).isEqualTo(range(0, 5));

        // a stream at offset 2 joins: 2..4 replayed from the history, then live records
        StreamState late = stream(2, 1 << 20);
        assertThat(readers.attach(late, 0, 2)).isTrue();
        assertThat(drain(late, 3)).isEqualTo(range(2, 5));
        add(c, 5, 8);
        assertThat(drain(a, 3)).isEqualTo(range(5, 8));
        assertThat(drain(late, 3)).isEqualTo(range(5, 8));
        assertThat(consumers).hasSize(1);
        assertThat(readers.readers()).isEqualTo(1);
        assertThat(readers.attachedStreams()).isEqualTo(3);
        assertThat(fetches.get()).isPositive();

        // the reader ends with its last stream
        readers.detachAll(a);
        readers.detachAll(b);
        assertThat(readers.readers()).isEqualTo(1);
        readers.detachAll(late);
        assertThat(readers.readers()).isZero();
        assertThat(late.attachedPartitions()).isEmpty();
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> c.assignment().isEmpty());
    }

    @Test
    void aStreamBeyondTheHistoryOrAheadOfTheReaderKeepsReadingOnItsOwn() throws Exception {
        readers(20); // two records' JSON of {"o":N}
        StreamState a = stream(0, 1 << 20);
        assertThat(readers.attach(a, 0, 0)).isTrue();
        PacedConsumer c = consumer();
        add(c, 0, 10);
        drain(a, 10);
        assertThat(readers.attach(stream(0, 1 << 20), 0, 0)).as("long gone").isFalse();
        assertThat(readers.attach(stream(11, 1 << 20), 0, 11)).as("ahead").isFalse();
        StreamState near = stream(9, 1 << 20);
        assertThat(readers.attach(near, 0, 9)).isTrue();
        assertThat(drain(near, 1)).containsExactly(9L);
    }

    @Test
    void aStreamWithoutRoomIsDetachedAndTheOthersGoOn() throws Exception {
        readers(1 << 20);
        StreamState fast = stream(0, 1 << 20);
        StreamState full = stream(0, 1); // room for one frame only, never read
        assertThat(readers.attach(fast, 0, 0)).isTrue();
        assertThat(readers.attach(full, 0, 0)).isTrue();
        PacedConsumer c = consumer();
        add(c, 0, 20);
        assertThat(drain(fast, 20)).isEqualTo(range(0, 20));
        assertThat(full.attachedPartitions()).isEmpty();
        assertThat(full.ownPositions()).isEqualTo(Map.of(0, 1L)); // it got record 0, resumes at 1
        assertThat(readers.attachedStreams()).isEqualTo(1);
    }

    @Test
    void anOffsetOutOfRangeHandsThePartitionBackToItsStreams() throws Exception {
        readers(1 << 20);
        StreamState a = stream(0, 1 << 20);
        assertThat(readers.attach(a, 0, 0)).isTrue();
        PacedConsumer c = consumer();
        c.setPollException(new OffsetOutOfRangeException(Map.of(TP, 0L)));
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> a.attachedPartitions().isEmpty());
        assertThat(readers.readers()).isZero();
        assertThat(a.awaitOwnPartitions(Duration.ZERO)).isEqualTo(Map.of(0, 0L));
    }
}
