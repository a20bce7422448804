package io.tributary.broker.log.cleaner;

import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Bounds the log cleaner's disk I/O (Kafka's {@code log.cleaner.io.max.bytes.per.second}): a token
 * bucket of bytes, filled at {@code bytesPerSecond} up to one second's worth (the largest burst).
 * The cleaner takes the bytes of every read and write ({@link #acquire}) after doing it; when the
 * bucket is short, the bucket goes into debt and the caller sleeps until the debt is repaid, so over
 * any stretch of {@code t} seconds at most {@code bytesPerSecond * (t + 1)} bytes pass, plus the last read or
 * write (the one that went into debt).
 *
 * <p>The clock and the sleep are given (a test drives both; the broker sleeps on the cleaner's stop
 * signal, so that a stop wakes a throttled pass). An interrupted or stopped sleep returns early: the
 * caller checks its own stop flag next.
 *
 * <p>Thread-safe: the cleaner threads share one throttle, as Kafka's threads share one throttler,
 * so that the bound is the broker's, not each thread's. The bucket is taken under a lock; the sleep
 * is not, so a thread sleeping off its debt does not hold the others, and each thread that takes
 * bytes while the bucket is in debt sleeps until the whole debt up to its own bytes is repaid.
 */
public final class IoThrottle {

    /** Sleeps, or returns earlier when woken (a stop); never throws. */
    @FunctionalInterface
    public interface Sleeper {
        void sleepNanos(long nanos);
    }

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long bytesPerSecond;
    private final InstantSource clock;
    private final Sleeper sleeper;
    private final Object lock = new Object();
    /** Under {@link #lock}. */
    private double tokens;
    /** Under {@link #lock}. */
    private long lastRefillNanos;
    /** Under {@link #lock}. */
    private long throttledNanos;

    private IoThrottle(long bytesPerSecond, InstantSource clock, Sleeper sleeper) {
        this.bytesPerSecond = bytesPerSecond;
        this.clock = clock;
        this.sleeper = sleeper;
        this.tokens = bytesPerSecond;
        this.lastRefillNanos = nanos(clock.instant());
    }

    /** A throttle of {@code bytesPerSecond} when given, else none (every acquire returns at once). */
    public static IoThrottle of(OptionalLong bytesPerSecond, InstantSource clock, Sleeper sleeper) {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(sleeper, "sleeper");
        if (bytesPerSecond.isPresent() && bytesPerSecond.getAsLong() < 1) {
            throw new IllegalArgumentException(
                    "log.cleaner.io.max.bytes.per.second must be positive: " + bytesPerSecond.getAsLong());
        }
        return new IoThrottle(bytesPerSecond.orElse(Long.MAX_VALUE), clock, sleeper);
    }

    /** No limit. */
    public static IoThrottle unlimited() {
        return of(OptionalLong.empty(), InstantSource.fixed(Instant.EPOCH), nanos -> {});
    }

    /** Takes {@code bytes} just read or written, sleeping while the bucket is in debt. */
    public void acquire(long bytes) {
        if (bytesPerSecond == Long.MAX_VALUE || bytes <= 0) {
            return;
        }
        long sleep;
        synchronized (lock) {
            refill();
            tokens -= bytes;
            if (tokens >= 0) {
                return;
            }
            sleep = (long) Math.ceil(-tokens * NANOS_PER_SECOND / bytesPerSecond);
            throttledNanos += sleep;
        }
        sleeper.sleepNanos(sleep);
    }

    /** The nanoseconds slept so far, by all the threads together. */
    public long throttledNanos() {
        synchronized (lock) {
            return throttledNanos;
        }
    }

    /** Under {@link #lock}. */
    private void refill() {
        long now = nanos(clock.instant());
        long elapsed = Math.max(0, now - lastRefillNanos);
        lastRefillNanos = now;
        tokens = Math.min(bytesPerSecond, tokens + (double) elapsed * bytesPerSecond / NANOS_PER_SECOND);
    }

    /** {@code instant} in nanoseconds since the epoch. */
    static long nanos(Instant instant) {
        return instant.getEpochSecond() * NANOS_PER_SECOND + instant.getNano();
    }
}
