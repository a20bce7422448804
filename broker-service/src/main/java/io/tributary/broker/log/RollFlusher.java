package io.tributary.broker.log;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background thread that fsyncs rolled segments off the append path (Kafka's roll schedules
 * the same flush on its log scheduler): {@link PartitionLog} hands it one task per roll, and the
 * task moves the recovery point once the closed segments are durable. One per broker, shared by its
 * partition logs; tasks run one at a time, in submission order, on the platform thread {@value
 * #THREAD_NAME}.
 *
 * <p>At most {@code queueCapacity} tasks wait; when the queue is full, or after {@link #close()},
 * the rolling thread runs the flush itself, as before this flusher existed (back-pressure: a disk
 * slower than the appends slows the appends instead of piling up unflushed segments).
 */
public final class RollFlusher implements Executor, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RollFlusher.class);

    /** The flusher thread's name. */
    public static final String THREAD_NAME = "segment-roll-flusher";

    /**
     * The default bound on waiting roll flushes: each is at most one segment (1 GiB by default) of
     * dirty pages, so 16 leaves room for a burst of rolls across partitions without letting the
     * page cache hold an unbounded backlog.
     */
    public static final int DEFAULT_QUEUE_CAPACITY = 16;

    /** How long {@link #close()} waits for the queued flushes before giving up on them. */
    private static final long CLOSE_WAIT_MINUTES = 5;

    private final ThreadPoolExecutor executor;

    /** Starts the flusher thread; {@code queueCapacity} flushes may wait for it. */
    public RollFlusher(int queueCapacity) {
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be at least 1: " + queueCapacity);
        }
        this.executor = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queueCapacity),
                Thread.ofPlatform().name(THREAD_NAME).daemon(true).factory(),
                // Full or closed: the caller flushes synchronously (never drops a flush).
                (task, pool) -> task.run());
    }

    @Override
    public void execute(Runnable task) {
        executor.execute(task);
    }

    /**
     * Stops accepting flushes (later ones run on the caller) and waits for the queued ones. A log
     * closed before this already included its pending flushes in its own final flush; their tasks
     * then only see the log closed and return.
     */
    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(CLOSE_WAIT_MINUTES, TimeUnit.MINUTES)) {
                log.warn("Roll flushes still running after {} minutes; not waiting longer", CLOSE_WAIT_MINUTES);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
