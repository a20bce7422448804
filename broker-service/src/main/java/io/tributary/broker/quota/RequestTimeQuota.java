package io.tributary.broker.quota;

import java.time.Duration;
import java.util.Objects;

/**
 * {@code request_percentage} on this broker, as Kafka's {@code ClientRequestQuotaManager} (KIP-124):
 * the time this broker works on a (user, client id)'s requests, as a percentage of one thread's
 * time, measured like the byte rates ({@link ByteRateQuota}, same entities and precedence, {@code
 * window-count} windows of {@code window-size}): a request worked on for {@code n} ns records
 * {@code n × 100 / 10⁹}, so a rate of 100 is one thread's whole time. Over the quota, the throttle is
 * Kafka's formula, {@code round((rate − quota) / quota × span)}, but at most one window ({@code
 * window-size}), as Kafka bounds request throttles to {@code quota.window.size.seconds}.
 *
 * <p>What counts as worked on is {@link io.tributary.common.protocol.RequestWaits}'s: the handler's
 * time (authorization included), less the time it waited (long polls, replication, metadata,
 * control-plane calls). Kafka counts its network and I/O threads' time on the request; Tributary
 * has no such pools (one virtual thread per connection), and neither counts reading the frame nor
 * writing the answer.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class RequestTimeQuota {

    private static final double PERCENT_PER_NANO = 100.0 / 1_000_000_000L;

    private final ByteRateQuota rate;
    private final long maxThrottleMs;

    /**
     * @param rate the rate of {@code request_percentage} (its key must be that one)
     * @param windowSize the longest throttle: one window, as Kafka
     */
    public RequestTimeQuota(ByteRateQuota rate, Duration windowSize) {
        this.rate = Objects.requireNonNull(rate, "rate");
        this.maxThrottleMs = windowSize.toMillis();
    }

    /**
     * Records {@code workedNanos} for {@code user}'s client {@code clientId} and answers the throttle
     * in ms it earned: 0 within its quota or under none, at most one window.
     */
    public long recordAndGetThrottleMs(String user, String clientId, long workedNanos) {
        return Math.min(maxThrottleMs, rate.recordAndGetThrottleMs(user, clientId, workedNanos * PERCENT_PER_NANO));
    }
}
