package io.tributary.common.protocol;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The time a request spends waiting rather than being worked on: parked on a long-poll Fetch's
 * {@code max_wait_ms}, on an acks=all Produce's replication, on the cluster metadata a topic write
 * waits for, on the coordinators' answer to a control-plane call. The code that waits reports it
 * ({@link #waited}); {@link #measure} runs a request and tells its time apart from its waits. Kafka
 * holds no request thread during such waits (its purgatories, its forwarding to the controller), so
 * its {@code request_percentage} quota counts none of them; this is how Tributary, whose requests
 * each keep their connection's thread while they wait, counts none either.
 *
 * <p>Thread-safety: a measure belongs to the thread that runs it (a thread-local, restored when
 * the measure ends, so measures nest); {@link #waited} outside a measure does nothing.
 */
public final class RequestWaits {

    private static final ThreadLocal<AtomicLong> WAITED = new ThreadLocal<>();

    /** What {@link #measure} ran: its result, and the nanoseconds it took, waits apart. */
    public record Measured<T>(T result, long elapsedNanos, long waitedNanos) {

        /** The time worked on the request: elapsed less waited, never below 0. */
        public long workedNanos() {
            return Math.max(0, elapsedNanos - waitedNanos);
        }
    }

    private RequestWaits() {}

    /** Runs {@code work} on this thread and measures it. */
    public static <T> Measured<T> measure(Supplier<T> work) {
        AtomicLong waited = new AtomicLong();
        AtomicLong outer = WAITED.get();
        WAITED.set(waited);
        long start = System.nanoTime();
        try {
            T result = work.get();
            return new Measured<>(result, System.nanoTime() - start, waited.get());
        } finally {
            if (outer == null) {
                WAITED.remove();
            } else {
                WAITED.set(outer);
                outer.addAndGet(waited.get());
            }
        }
    }

    /** Reports {@code nanos} this thread spent waiting, to the measure it runs in, if any. */
    public static void waited(long nanos) {
        AtomicLong waited = WAITED.get();
        if (nanos > 0 && waited != null) {
            waited.addAndGet(nanos);
        }
    }
}
