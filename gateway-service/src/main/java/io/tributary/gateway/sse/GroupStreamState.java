package io.tributary.gateway.sse;

import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.TopicPartition;

/**
 * A group stream's positions: for each partition the group assigned to the stream, the next offset
 * put in the buffer ({@code delivered}) and the next offset written and flushed to the client
 * ({@code written}, what {@code commit=auto} commits). Each record event's id is the {@link
 * GroupCursor} of the delivered positions after it, put in the buffer under this lock, so the id is
 * exact whatever else happens; each record frame is marked with the position it moves to, and the
 * writer reports the marks it flushed ({@link #flushed}).
 *
 * <p>Invariants: {@code written <= delivered} for every assigned partition; a partition leaves both
 * maps only through {@link #revoke} (the caller first waits until {@code written == delivered} or
 * gives the stream up); records of a partition not assigned are not delivered. Thread-safe: the
 * reader (the consumer's thread) delivers, assigns and revokes; the writer reports flushes.
 */
public final class GroupStreamState {

    /** The mark of a control frame: the {@code seq}-th control event of the stream. */
    public record Control(long seq) {}

    /** The mark of a record frame: once written, {@code partition}'s written position is {@code nextOffset}. */
    public record Written(TopicPartition partition, long nextOffset) {}

    private static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private final StreamBuffer buffer;
    private final Map<String, String> topicIds;
    private final long lineage;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition flushedCondition = lock.newCondition();
    private final TreeMap<TopicPartition, Long> delivered = new TreeMap<>(ORDER);
    private final HashMap<TopicPartition, Long> written = new HashMap<>();
    private String closedBy;
    private boolean writerDone;
    private long controlsPut;
    private long controlsFlushed;

    /**
     * @param topicIds the stream's topics: name to id (22 base64url characters)
     * @param lineage the stream lineage ({@link GroupCursor#lineage()}) its ids carry
     */
    public GroupStreamState(StreamBuffer buffer, Map<String, String> topicIds, long lineage) {
        this.buffer = buffer;
        this.lineage = lineage;
        this.topicIds = Map.copyOf(topicIds);
    }

    public StreamBuffer buffer() {
        return buffer;
    }

    /** The stream's topics: name to id. */
    public Map<String, String> topicIds() {
        return topicIds;
    }

    /** The partitions assigned to the stream now, with their delivered positions. */
    public SortedMap<TopicPartition, Long> delivered() {
        lock.lock();
        try {
            return new TreeMap<>(delivered);
        } finally {
            lock.unlock();
        }
    }

    /** The written (and flushed) positions of the partitions assigned now. */
    public Map<TopicPartition, Long> written() {
        lock.lock();
        try {
            return new HashMap<>(written);
        } finally {
            lock.unlock();
        }
    }

    /** The position of every assigned partition as an event id would carry it. */
    public GroupCursor cursor() {
        lock.lock();
        try {
            return cursorOf(delivered);
        } finally {
            lock.unlock();
        }
    }

    private GroupCursor cursorOf(Map<TopicPartition, Long> positions) {
        TreeMap<String, SortedMap<Integer, Long>> byTopic = new TreeMap<>();
        positions.forEach((tp, next) -> byTopic.computeIfAbsent(topicIds.get(tp.topic()), k -> new TreeMap<>())
                .put(tp.partition(), next));
        return new GroupCursor(lineage, byTopic);
    }

    /** Partitions newly assigned to the stream, each starting at its offset (delivered and written alike). */
    public void assign(Map<TopicPartition, Long> starts) {
        lock.lock();
        try {
            for (Map.Entry<TopicPartition, Long> e : starts.entrySet()) {
                if (!topicIds.containsKey(e.getKey().topic())) {
                    throw new IllegalStateException("not a topic of this stream: " + e.getKey());
                }
                delivered.put(e.getKey(), e.getValue());
                written.put(e.getKey(), e.getValue());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Partitions taken from the stream: they leave the positions (and later event ids). Returns
     * their written positions, the ones to commit so that the next owner starts exactly after what
     * this stream's client received.
     */
    public Map<TopicPartition, Long> revoke(Collection<TopicPartition> partitions) {
        lock.lock();
        try {
            Map<TopicPartition, Long> result = new HashMap<>();
            for (TopicPartition tp : partitions) {
                Long w = written.remove(tp);
                delivered.remove(tp);
                if (w != null) {
                    result.put(tp, w);
                }
            }
            return result;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Puts the record at {@code offset} of {@code partition} (its JSON) in the buffer with the cursor
     * after it as its id, waiting up to {@code timeout} for room. True when delivered, a duplicate
     * (below the position) or of a partition not assigned now (dropped); false when there was no room
     * in time (the client is too slow) or the stream is closed.
     */
    public boolean deliverWaiting(TopicPartition partition, long offset, RecordEvent event, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int size;
            lock.lock();
            try {
                if (buffer.isClosed()) {
                    return false;
                }
                Long next = delivered.get(partition);
                if (next == null || offset < next) {
                    return true;
                }
                delivered.put(partition, offset + 1);
                byte[] frame = event.frame(GroupCursorCodec.encode(cursorOf(delivered)));
                if (buffer.offer(frame, new Written(partition, offset + 1), Duration.ZERO)) {
                    return true;
                }
                delivered.put(partition, next);
                size = frame.length;
            } finally {
                lock.unlock();
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !buffer.awaitRoom(size, Duration.ofNanos(left))) {
                return false;
            }
        }
    }

    /**
     * A control event without an id ({@code assigned}, {@code revoked}), then waits until it is
     * written and flushed to the client, each at most {@code timeout}. True when written, or when the
     * stream is closed (nothing more will be written); false when the client is too slow.
     */
    public boolean controlWritten(byte[] frame, Duration timeout) throws InterruptedException {
        long seq;
        lock.lock();
        try {
            seq = ++controlsPut;
        } finally {
            lock.unlock();
        }
        if (!controlWaiting(frame, new Control(seq), timeout)) {
            return buffer.isClosed();
        }
        long waitNs = timeout.toNanos();
        lock.lock();
        try {
            while (controlsFlushed < seq && !buffer.isClosed()) {
                if (waitNs <= 0) {
                    return false;
                }
                waitNs = flushedCondition.awaitNanos(waitNs);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A control event without an id ({@code gap}), waiting up to
     * {@code timeout} for room; when {@code moveTo} is given, the partition's position moves there
     * with it (a {@code gap}). False when there was no room in time or the stream is closed.
     */
    public boolean controlWaiting(byte[] frame, Object moveTo, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            lock.lock();
            try {
                if (buffer.isClosed()) {
                    return false;
                }
                if (buffer.offer(frame, moveTo, Duration.ZERO)) {
                    if (moveTo instanceof Written w && delivered.containsKey(w.partition())) {
                        delivered.put(w.partition(), w.nextOffset());
                    }
                    return true;
                }
            } finally {
                lock.unlock();
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !buffer.awaitRoom(frame.length, Duration.ofNanos(left))) {
                return false;
            }
        }
    }

    /** The writer wrote and flushed the frames with these marks (nulls ignored). */
    public void flushed(List<Object> marks) {
        lock.lock();
        try {
            for (Object m : marks) {
                if (m instanceof Written w && written.containsKey(w.partition())) {
                    written.merge(w.partition(), w.nextOffset(), Math::max);
                } else if (m instanceof Control c) {
                    controlsFlushed = Math.max(controlsFlushed, c.seq());
                }
            }
            flushedCondition.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until everything delivered of {@code partitions} is written, at most {@code timeout}.
     * True when it is, or the stream is closed (nothing more will be written); false on timeout.
     */
    public boolean awaitWritten(Collection<TopicPartition> partitions, Duration timeout) throws InterruptedException {
        long waitNs = timeout.toNanos();
        lock.lock();
        try {
            while (!allWritten(partitions) && !buffer.isClosed()) {
                if (waitNs <= 0) {
                    return false;
                }
                waitNs = flushedCondition.awaitNanos(waitNs);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    private boolean allWritten(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            Long d = delivered.get(tp);
            if (d != null && !d.equals(written.get(tp))) {
                return false;
            }
        }
        return true;
    }

    /** Records that the gateway ends this stream for {@code reason}; true only the first time. */
    public boolean closeFor(String reason) {
        lock.lock();
        try {
            if (closedBy != null) {
                return false;
            }
            closedBy = reason;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The writer ended: nothing more will be written (the written positions are final). */
    public void writerFinished() {
        lock.lock();
        try {
            writerDone = true;
            flushedCondition.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the writer ended, at most {@code timeout}; true when it did. */
    public boolean awaitWriterFinished(Duration timeout) throws InterruptedException {
        long waitNs = timeout.toNanos();
        lock.lock();
        try {
            while (!writerDone) {
                if (waitNs <= 0) {
                    return false;
                }
                waitNs = flushedCondition.awaitNanos(waitNs);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes waiters after the buffer closed. */
    public void wake() {
        lock.lock();
        try {
            flushedCondition.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
