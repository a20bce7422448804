package io.tributary.gateway.sse;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The frames of one SSE stream between the thread that reads them from the cluster and the thread
 * that writes them to the client, bounded in bytes: the most memory a stream holds. One frame larger
 * than the capacity is still taken when the buffer is empty (a record may be up to the cluster's
 * limit). Locks, not monitors, so waiting virtual threads release their carrier. Thread-safe.
 */
public final class StreamBuffer {

    private final long capacityBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();
    private final ArrayDeque<Entry> frames = new ArrayDeque<>();
    private long usedBytes;
    private boolean closed;

    public StreamBuffer(long capacityBytes) {
        if (capacityBytes < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
    }

    /**
     * A frame and what the writer should note once it is written ({@code mark}, opaque to the
     * buffer, may be null): a group stream marks each record frame with the position it moves to.
     */
    public record Entry(byte[] frame, Object mark) {}

    /**
     * Adds {@code frame}, waiting at most {@code timeout} for room. False when there was no room in
     * time (the client is too slow) or the buffer is closed.
     */
    public boolean offer(byte[] frame, Duration timeout) throws InterruptedException {
        return offer(frame, null, timeout);
    }

    /** As {@link #offer(byte[], Duration)}, with a {@code mark} that {@link #pollEntry} hands back. */
    public boolean offer(byte[] frame, Object mark, Duration timeout) throws InterruptedException {
        long waitNs = timeout.toNanos();
        lock.lock();
        try {
            while (!closed && !frames.isEmpty() && usedBytes + frame.length > capacityBytes) {
                if (waitNs <= 0) {
                    return false;
                }
                waitNs = notFull.awaitNanos(waitNs);
            }
            if (closed) {
                return false;
            }
            frames.addLast(new Entry(frame, mark));
            usedBytes += frame.length;
            notEmpty.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits at most {@code timeout} until a frame of {@code bytes} would fit (or the buffer is empty,
     * which takes any frame, or closed). True when it would fit or the buffer is closed; false when
     * the time ran out. Adds nothing: the caller offers (without waiting) afterwards.
     */
    public boolean awaitRoom(long bytes, Duration timeout) throws InterruptedException {
        long waitNs = timeout.toNanos();
        lock.lock();
        try {
            while (!closed && !frames.isEmpty() && usedBytes + bytes > capacityBytes) {
                if (waitNs <= 0) {
                    return false;
                }
                waitNs = notFull.awaitNanos(waitNs);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next frame, waiting at most {@code timeout}; empty when none came in time or when the buffer
     * is closed and drained.
     */
    public Optional<byte[]> poll(Duration timeout) throws InterruptedException {
        return pollEntry(timeout).map(Entry::frame);
    }

    /** As {@link #poll}, with the frame's mark. */
    public Optional<Entry> pollEntry(Duration timeout) throws InterruptedException {
        long waitNs = timeout.toNanos();
        lock.lock();
        try {
            while (frames.isEmpty() && !closed && waitNs > 0) {
                waitNs = notEmpty.awaitNanos(waitNs);
            }
            Entry f = frames.pollFirst();
            if (f != null) {
                usedBytes -= f.frame().length;
                notFull.signalAll();
            }
            return Optional.ofNullable(f);
        } finally {
            lock.unlock();
        }
    }

    /** No more frames will be added; waiters wake up. Frames already in stay readable. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            notEmpty.signalAll();
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the buffer and drops the frames not yet taken: the stream ends without writing them
     * (a group stream whose partitions were taken away from a client too slow to receive them).
     */
    public void abort() {
        lock.lock();
        try {
            closed = true;
            frames.clear();
            usedBytes = 0;
            notEmpty.signalAll();
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /** Closed and nothing left to read. */
    public boolean isDrained() {
        lock.lock();
        try {
            return closed && frames.isEmpty();
        } finally {
            lock.unlock();
        }
    }
}
