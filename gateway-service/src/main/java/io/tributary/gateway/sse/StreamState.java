package io.tributary.gateway.sse;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One SSE stream's position and who feeds each of its partitions: the stream's own reader (a
 * partition behind the tail, read through the consumer pool) or the partition's {@link
 * SharedTailReaders shared tail reader} (a partition at the tail, {@code attached}).
 *
 * <p>Every event is put in the stream's {@link StreamBuffer} together with its id under this
 * stream's lock, and the id is the cursor after exactly the events before it in the buffer: so
 * events of different partitions, put in by different threads, never carry a stale position, and
 * resuming from any id is exact. {@link #deliver} never waits (a shared reader must never wait for
 * one client); the own reader waits for room outside the lock ({@link #deliverWaiting}).
 *
 * <p>Lock order: a shared reader's lock, then this lock; this lock is never held while calling out.
 * Thread-safe.
 */
public final class StreamState {

    /** What {@link #deliver} did. */
    public enum Outcome {
        /** In the buffer, the position moved past it. */
        DELIVERED,
        /** Already delivered (its offset is below the partition's position): skipped. */
        DUPLICATE,
        /** The buffer had no room: nothing changed. */
        NO_ROOM,
        /** The stream is closed: nothing changed. */
        CLOSED
    }

    // tryDeliver's answers other than a frame size
    private static final long DELIVERED = 0;
    private static final long DUPLICATE = -1;
    private static final long CLOSED = -2;

    private final String topic;
    private final StreamBuffer buffer;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ownChanged = lock.newCondition();
    private final Set<Integer> attached = new HashSet<>();
    private StreamCursor cursor;
    private String closedBy;

    public StreamState(String topic, StreamCursor start, StreamBuffer buffer) {
        this.topic = topic;
        this.cursor = start;
        this.buffer = buffer;
    }

    public String topic() {
        return topic;
    }

    public String topicId() {
        return cursor.topicId();
    }

    public StreamBuffer buffer() {
        return buffer;
    }

    /** The position now (every partition's next offset). */
    public StreamCursor cursor() {
        lock.lock();
        try {
            return cursor;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Puts the record at {@code offset} of {@code partition} (its JSON) in the buffer with the cursor
     * after it as its id, unless it was delivered already. Never waits.
     */
    public Outcome deliver(int partition, long offset, RecordEvent event) {
        long r = tryDeliver(partition, offset, event);
        return r == DELIVERED
                ? Outcome.DELIVERED
                : r == DUPLICATE ? Outcome.DUPLICATE : r == CLOSED ? Outcome.CLOSED : Outcome.NO_ROOM;
    }

    /** {@link #deliver}; on no room, the frame's size in bytes (positive), else one of the constants. */
    private long tryDeliver(int partition, long offset, RecordEvent event) {
        lock.lock();
        try {
            if (buffer.isClosed()) {
                return CLOSED;
            }
            if (offset < cursor.nextOffsets().get(partition)) {
                return DUPLICATE;
            }
            StreamCursor after = cursor.with(partition, offset + 1);
            byte[] frame = event.frame(CursorCodec.encode(after));
            if (!offerNow(frame)) {
                return buffer.isClosed() ? CLOSED : frame.length;
            }
            cursor = after;
            return DELIVERED;
        } finally {
            lock.unlock();
        }
    }

    /**
     * As {@link #deliver}, waiting up to {@code timeout} for room. False when there was no room in
     * time (the client is too slow) or the stream is closed; true when delivered or a duplicate.
     */
    public boolean deliverWaiting(int partition, long offset, RecordEvent event, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long r = tryDeliver(partition, offset, event);
            if (r == DELIVERED || r == DUPLICATE) {
                return true;
            }
            if (r == CLOSED) {
                return false;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !buffer.awaitRoom(r, Duration.ofNanos(left))) {
                return false;
            }
        }
    }

    /**
     * A control event without an id ({@code gap}) that moves {@code partition} to {@code nextOffset},
     * waiting up to {@code timeout} for room; false as {@link #deliverWaiting}.
     */
    public boolean controlWaiting(byte[] frame, int partition, long nextOffset, Duration timeout)
            throws InterruptedException {
        return offerWaiting(frame, partition, nextOffset, timeout);
    }

    /**
     * Puts {@code frame} (an event without an id, such as a snapshot's record) in the buffer without
     * moving the position, waiting up to {@code timeout} for room; false as {@link #deliverWaiting}.
     */
    public boolean offerWaiting(byte[] frame, Duration timeout) throws InterruptedException {
        return offerWaiting(frame, -1, 0, timeout);
    }

    /** Offers {@code frame}, then moves {@code partition} (unless negative) to {@code nextOffset}. */
    private boolean offerWaiting(byte[] frame, int partition, long nextOffset, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            lock.lock();
            try {
                if (buffer.isClosed()) {
                    return false;
                }
                if (offerNow(frame)) {
                    if (partition >= 0) {
                        cursor = cursor.with(partition, nextOffset);
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

    private boolean offerNow(byte[] frame) {
        try {
            return buffer.offer(frame, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The partitions the stream's own reader reads now, with their next offsets (may be empty). */
    public TreeMap<Integer, Long> ownPositions() {
        lock.lock();
        try {
            TreeMap<Integer, Long> own = new TreeMap<>(cursor.nextOffsets());
            own.keySet().removeAll(attached);
            return own;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits (parked, no platform thread) until some partition is the own reader's again or the
     * stream closed, at most {@code timeout}; returns {@link #ownPositions()}.
     */
    public TreeMap<Integer, Long> awaitOwnPartitions(Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            long waitNs = timeout.toNanos();
            while (attached.size() == cursor.nextOffsets().size() && !buffer.isClosed() && waitNs > 0) {
                waitNs = ownChanged.awaitNanos(waitNs);
            }
            return ownPositions();
        } finally {
            lock.unlock();
        }
    }

    /** Marks {@code partition} as fed by its shared reader (called by the reader, under its lock). */
    void attached(int partition) {
        lock.lock();
        try {
            attached.add(partition);
        } finally {
            lock.unlock();
        }
    }

    /** {@code partition} goes back to the own reader (the shared one dropped it); wakes the own reader. */
    void detached(int partition) {
        lock.lock();
        try {
            attached.remove(partition);
            ownChanged.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The partitions fed by shared readers now. */
    public Set<Integer> attachedPartitions() {
        lock.lock();
        try {
            return Set.copyOf(attached);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Records that the gateway ends this stream for {@code reason} (a metric's label); true only the
     * first time, so a stream is counted once whichever thread notices first.
     */
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

    /** Closes the buffer and wakes the own reader. */
    public void close() {
        buffer.close();
        lock.lock();
        try {
            ownChanged.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
