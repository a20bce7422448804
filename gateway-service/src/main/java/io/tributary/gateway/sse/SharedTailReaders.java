package io.tributary.gateway.sse;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One upstream fetch for every SSE stream at the tail of a partition: a <em>shared tail reader</em>
 * per (topic, partition) reads the partition once and hands each record to every stream attached to
 * it.
 *
 * <p>A stream reads a partition on its own (through the consumer pool) while it is behind; when its
 * own read finds it at the end of the partition it {@link #attach attaches} here, and from then on
 * the partition's shared reader feeds it. The shared readers are spread over {@code shards}
 * consumers, each with one virtual thread: the shard's consumer is assigned every partition that has
 * a reader in that shard, so one broker fetch serves every stream of every such partition. A shard
 * with no partitions waits on a lock (no thread blocked in kafka-clients, no platform thread); a
 * partition's reader ends when its last stream leaves.
 *
 * <p>A stream joins at its own position: exactly the reader's, or within the reader's recent
 * history ({@code historyBytes} of the latest records per partition), which is replayed to it
 * first; otherwise it keeps reading on its own and tries again later. A reader never waits for a
 * stream: a stream whose buffer has no room for the next record is detached, its partition goes back
 * to its own reader (which applies the slow-client rule), and the others go on. Offsets out of range
 * or any cluster error detach the partition's streams the same way (their own readers report gaps
 * and errors).
 *
 * <p>Memory: per partition with a reader, at most {@code historyBytes} of records plus one fetch
 * ({@code fetch.max.bytes} of the shard's consumer). Thread-safe.
 */
public final class SharedTailReaders implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SharedTailReaders.class);

    /** A short pause after a cluster error before a shard polls again (no tight loop). */
    private static final Duration ERROR_PAUSE = Duration.ofMillis(200);

    private final Shard[] shards;
    private final Function<ConsumerRecord<byte[], byte[]>, RecordEvent> events;
    private final Duration pollWait;
    private final long historyBytes;
    private final Listener listener;
    private final AtomicLong fetches = new AtomicLong();

    /**
     * @param consumers makes a shard's consumer (group-less, {@code auto.offset.reset=none})
     * @param shards how many consumers (and threads) the readers are spread over
     * @param pollWait one poll's wait for records
     * @param historyBytes the most bytes of recent records kept per partition for streams joining late
     * @param json a record's JSON (the SSE {@code data:} line)
     * @param listener told of upstream polls and deliveries (metrics)
     */
    public SharedTailReaders(
            Supplier<Consumer<byte[], byte[]>> consumers,
            int shards,
            Duration pollWait,
            long historyBytes,
            Function<ConsumerRecord<byte[], byte[]>, RecordEvent> events,
            Listener listener) {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be positive: " + shards);
        }
        this.shards = new Shard[shards];
        for (int i = 0; i < shards; i++) {
            this.shards[i] = new Shard(i, consumers);
        }
        this.events = events;
        this.pollWait = pollWait;
        this.historyBytes = historyBytes;
        this.listener = listener;
    }

    /**
     * Attaches {@code partition} of {@code stream}, whose next offset there is {@code offset}: from
     * now on its shared reader feeds it. False when the reader is elsewhere (beyond its history) or
     * the stream had no room for the history: the stream keeps reading on its own.
     */
    public boolean attach(StreamState stream, int partition, long offset) {
        TopicPartition tp = new TopicPartition(stream.topic(), partition);
        return shard(tp).attach(stream, tp, offset);
    }

    /** Detaches every partition of {@code stream} (it ended). */
    public void detachAll(StreamState stream) {
        for (int p : stream.attachedPartitions()) {
            TopicPartition tp = new TopicPartition(stream.topic(), p);
            shard(tp).detach(stream, tp);
        }
    }

    /** Partitions with a shared reader now. */
    public int readers() {
        int n = 0;
        for (Shard s : shards) {
            n += s.count(null, false);
        }
        return n;
    }

    /** Partitions of {@code topic} with a shared reader now. */
    public int readers(String topic) {
        int n = 0;
        for (Shard s : shards) {
            n += s.count(topic, false);
        }
        return n;
    }

    /** Stream partitions fed by shared readers now. */
    public int attachedStreams() {
        int n = 0;
        for (Shard s : shards) {
            n += s.count(null, true);
        }
        return n;
    }

    /** Stream partitions of {@code topic} fed by shared readers now. */
    public int attachedStreams(String topic) {
        int n = 0;
        for (Shard s : shards) {
            n += s.count(topic, true);
        }
        return n;
    }

    /** Upstream polls made by the shared readers so far. */
    public long fetches() {
        return fetches.get();
    }

    /** Stops every shard and closes their consumers; attached streams go back to their own readers. */
    @Override
    public void close() {
        for (Shard s : shards) {
            s.close();
        }
    }

    private Shard shard(TopicPartition tp) {
        return shards[Math.floorMod(tp.hashCode(), shards.length)];
    }

    /** Told of what the shared readers do (metrics); called from their threads, must not block. */
    public interface Listener {
        /** One upstream poll of a shard's consumer. */
        void fetched();

        /** {@code records} records of {@code topic} put in streams' buffers. */
        void delivered(String topic, int records);
    }

    /** One record kept for streams that join a little behind the reader. */
    private record Kept(long offset, RecordEvent event) {}

    /** A partition's shared reader: its position, its streams and its recent records. */
    private final class Tail {
        final String topicId;
        final Set<StreamState> streams = new LinkedHashSet<>();
        final ArrayDeque<Kept> history = new ArrayDeque<>();
        long historyStart;
        long historyUsed;
        long position;
        boolean seeked;

        Tail(String topicId, long position) {
            this.topicId = topicId;
            this.position = position;
            this.historyStart = position;
        }

        void keep(long offset, RecordEvent event) {
            history.addLast(new Kept(offset, event));
            historyUsed += event.data().length;
            while (historyUsed > historyBytes && !history.isEmpty()) {
                Kept gone = history.pollFirst();
                historyUsed -= gone.event().data().length;
                historyStart = gone.offset() + 1;
            }
        }
    }

    private final class Shard {
        final int index;
        final Supplier<Consumer<byte[], byte[]>> factory;
        final ReentrantLock lock = new ReentrantLock();
        final Condition work = lock.newCondition();
        final Map<TopicPartition, Tail> tails = new HashMap<>();
        boolean assignmentChanged;
        boolean closed;
        Consumer<byte[], byte[]> consumer;
        Thread thread;

        Shard(int index, Supplier<Consumer<byte[], byte[]>> factory) {
            this.index = index;
            this.factory = factory;
        }

        boolean attach(StreamState stream, TopicPartition tp, long offset) {
            boolean created = false;
            lock.lock();
            try {
                if (closed) {
                    return false;
                }
                Tail tail = tails.get(tp);
                if (tail == null) {
                    tail = new Tail(stream.topicId(), offset);
                    tails.put(tp, tail);
                    assignmentChanged = true;
                    created = true;
                } else if (!tail.topicId.equals(stream.topicId())
                        || offset < tail.historyStart
                        || offset > tail.position) {
                    return false;
                }
                for (Kept k : tail.history) {
                    if (k.offset() >= offset) {
                        StreamState.Outcome o = stream.deliver(tp.partition(), k.offset(), k.event());
                        if (o == StreamState.Outcome.NO_ROOM || o == StreamState.Outcome.CLOSED) {
                            return false;
                        }
                    }
                }
                stream.attached(tp.partition());
                tail.streams.add(stream);
                startIfIdle();
                work.signalAll();
            } finally {
                if (created) {
                    Tail t = tails.get(tp);
                    if (t != null && t.streams.isEmpty()) {
                        tails.remove(tp);
                    }
                }
                lock.unlock();
            }
            if (created) {
                wakeConsumer();
            }
            return true;
        }

        void detach(StreamState stream, TopicPartition tp) {
            lock.lock();
            try {
                Tail tail = tails.get(tp);
                if (tail != null && tail.streams.remove(stream)) {
                    stream.detached(tp.partition());
                    if (tail.streams.isEmpty()) {
                        tails.remove(tp);
                        assignmentChanged = true;
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        int count(String topic, boolean streams) {
            lock.lock();
            try {
                int n = 0;
                for (var e : tails.entrySet()) {
                    if (topic == null || e.getKey().topic().equals(topic)) {
                        n += streams ? e.getValue().streams.size() : 1;
                    }
                }
                return n;
            } finally {
                lock.unlock();
            }
        }

        /** Under the lock. */
        private void startIfIdle() {
            if (thread == null) {
                thread = Thread.ofVirtual().name("sse-shared-" + index).start(this::run);
            }
        }

        private void wakeConsumer() {
            Consumer<byte[], byte[]> c;
            lock.lock();
            try {
                c = consumer;
            } finally {
                lock.unlock();
            }
            if (c != null) {
                c.wakeup();
            }
        }

        private void run() {
            try {
                while (true) {
                    Map<TopicPartition, Tail> polled = new HashMap<>();
                    Map<TopicPartition, Long> seeks = new HashMap<>();
                    List<TopicPartition> assignment = null;
                    Consumer<byte[], byte[]> c;
                    lock.lock();
                    try {
                        while (tails.isEmpty() && !closed) {
                            if (assignmentChanged && consumer != null) {
                                break; // unassign everything before waiting
                            }
                            work.await();
                        }
                        if (closed) {
                            return;
                        }
                        if (consumer == null) {
                            consumer = factory.get();
                        }
                        c = consumer;
                        if (assignmentChanged) {
                            assignment = new ArrayList<>(tails.keySet());
                            assignmentChanged = false;
                        }
                        for (var e : tails.entrySet()) {
                            if (!e.getValue().seeked) {
                                seeks.put(e.getKey(), e.getValue().position);
                                e.getValue().seeked = true;
                            }
                            polled.put(e.getKey(), e.getValue());
                        }
                    } finally {
                        lock.unlock();
                    }
                    if (assignment != null) {
                        c.assign(assignment);
                    }
                    seeks.forEach(c::seek);
                    if (polled.isEmpty()) {
                        continue;
                    }
                    pollOnce(c, polled);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.warn("shared SSE reader {} failed; its streams read on their own", index, e);
                dropAll();
            } finally {
                lock.lock();
                try {
                    thread = null;
                    if (!closed && !tails.isEmpty()) {
                        startIfIdle();
                    }
                } finally {
                    lock.unlock();
                }
            }
        }

        private void pollOnce(Consumer<byte[], byte[]> c, Map<TopicPartition, Tail> polled)
                throws InterruptedException {
            ConsumerRecords<byte[], byte[]> records;
            Map<TopicPartition, Long> positions = new HashMap<>();
            try {
                records = c.poll(pollWait);
                fetches.incrementAndGet();
                listener.fetched();
                for (TopicPartition tp : polled.keySet()) {
                    try {
                        positions.put(tp, c.position(tp, Duration.ZERO));
                    } catch (KafkaException unknown) {
                        // no position known yet: keep the reader's own
                    }
                }
            } catch (WakeupException e) {
                return; // the assignment changed
            } catch (OffsetOutOfRangeException e) {
                lock.lock();
                try {
                    for (TopicPartition tp : e.offsetOutOfRangePartitions().keySet()) {
                        drop(tp);
                    }
                } finally {
                    lock.unlock();
                }
                return;
            } catch (KafkaException e) {
                if (e.getCause() instanceof InterruptedException
                        || Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException();
                }
                log.info("shared SSE reader {}: {}; its streams read on their own", index, e.toString());
                dropAll();
                Thread.sleep(ERROR_PAUSE);
                return;
            }
            lock.lock();
            try {
                for (var e : polled.entrySet()) {
                    TopicPartition tp = e.getKey();
                    Tail tail = e.getValue();
                    if (tails.get(tp) != tail) {
                        continue; // dropped (or dropped and started again) while polling
                    }
                    int delivered = 0;
                    for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
                        if (r.offset() < tail.position) {
                            continue;
                        }
                        RecordEvent event = events.apply(r);
                        tail.keep(r.offset(), event);
                        tail.position = r.offset() + 1;
                        var it = tail.streams.iterator();
                        while (it.hasNext()) {
                            StreamState s = it.next();
                            StreamState.Outcome o = s.deliver(tp.partition(), r.offset(), event);
                            if (o == StreamState.Outcome.DELIVERED) {
                                delivered++;
                            } else if (o == StreamState.Outcome.NO_ROOM || o == StreamState.Outcome.CLOSED) {
                                it.remove();
                                s.detached(tp.partition());
                            }
                        }
                    }
                    if (delivered > 0) {
                        listener.delivered(tp.topic(), delivered);
                    }
                    Long pos = positions.get(tp);
                    if (pos != null && pos > tail.position) {
                        tail.position = pos; // past control records (transaction markers)
                        if (tail.history.isEmpty()) {
                            tail.historyStart = pos;
                        }
                    }
                    if (tail.streams.isEmpty()) {
                        tails.remove(tp);
                        assignmentChanged = true;
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        /** Under the lock: the partition's streams go back to their own readers. */
        private void drop(TopicPartition tp) {
            Tail tail = tails.remove(tp);
            if (tail != null) {
                assignmentChanged = true;
                for (StreamState s : tail.streams) {
                    s.detached(tp.partition());
                }
            }
        }

        private void dropAll() {
            lock.lock();
            try {
                for (TopicPartition tp : new ArrayList<>(tails.keySet())) {
                    drop(tp);
                }
            } finally {
                lock.unlock();
            }
        }

        void close() {
            Thread t;
            Consumer<byte[], byte[]> c;
            lock.lock();
            try {
                closed = true;
                for (TopicPartition tp : new ArrayList<>(tails.keySet())) {
                    drop(tp);
                }
                work.signalAll();
                t = thread;
                c = consumer;
            } finally {
                lock.unlock();
            }
            if (c != null) {
                c.wakeup();
            }
            if (t != null) {
                try {
                    t.join(Duration.ofSeconds(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (c != null) {
                try {
                    c.close(Duration.ofSeconds(1));
                } catch (RuntimeException ignored) {
                    // closing at shutdown
                }
            }
        }
    }
}
