package io.tributary.gateway.consume;

import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * At most {@code size} group-less consumers, created on demand and reused. A borrower has the consumer
 * to itself (Kafka consumers are not thread-safe) and gives it back unassigned. Thread-safe.
 */
public final class ConsumerPool implements AutoCloseable {

    private final Supplier<Consumer<byte[], byte[]>> factory;
    private final Semaphore permits;
    private final Duration acquireTimeout;
    private final LinkedBlockingQueue<Consumer<byte[], byte[]>> idle = new LinkedBlockingQueue<>();
    private final List<Consumer<byte[], byte[]>> all = new ArrayList<>();
    private final String slotName;
    private volatile boolean closed;

    public ConsumerPool(Supplier<Consumer<byte[], byte[]>> factory, int size, Duration acquireTimeout) {
        this(factory, size, acquireTimeout, "fetch");
    }

    /** A pool whose 429 names its slots {@code slotName} ("Every table slot ..."). */
    public ConsumerPool(
            Supplier<Consumer<byte[], byte[]>> factory, int size, Duration acquireTimeout, String slotName) {
        this.slotName = slotName;
        if (size < 1) {
            throw new IllegalArgumentException("pool size must be positive: " + size);
        }
        this.factory = factory;
        this.permits = new Semaphore(size, true);
        this.acquireTimeout = acquireTimeout;
    }

    /** Borrows a consumer; 429 {@code too-many-requests} when none frees up within the acquire timeout. */
    public Consumer<byte[], byte[]> acquire() {
        try {
            if (closed || !permits.tryAcquire(acquireTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new ProblemException(
                        ProblemType.TOO_MANY_REQUESTS,
                        "Every %s slot of this gateway is busy; retry shortly.".formatted(slotName));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(
                    ProblemType.TOO_MANY_REQUESTS, "Interrupted while waiting for a %s slot.".formatted(slotName));
        }
        Consumer<byte[], byte[]> c = idle.poll();
        if (c == null) {
            try {
                c = factory.get();
            } catch (RuntimeException e) {
                permits.release();
                throw e;
            }
            synchronized (all) {
                all.add(c);
            }
        }
        return c;
    }

    /** Gives {@code consumer} back, unassigned; a consumer that cannot be reset is closed instead. */
    public void release(Consumer<byte[], byte[]> consumer) {
        try {
            consumer.assign(List.of());
            idle.add(consumer);
        } catch (RuntimeException e) {
            discard(consumer);
        } finally {
            permits.release();
        }
    }

    /** The number of consumers created so far (at most the pool size). */
    public int created() {
        synchronized (all) {
            return all.size();
        }
    }

    private void discard(Consumer<byte[], byte[]> consumer) {
        synchronized (all) {
            all.remove(consumer);
        }
        try {
            consumer.close(Duration.ZERO);
        } catch (RuntimeException ignored) {
            // it is being thrown away because it is broken
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (all) {
            for (Consumer<byte[], byte[]> c : all) {
                c.close(Duration.ofSeconds(1));
            }
            all.clear();
        }
    }
}
