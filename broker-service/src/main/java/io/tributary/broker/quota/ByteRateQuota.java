package io.tributary.broker.quota;

import io.tributary.broker.cluster.ClusterQuotas;
import io.tributary.common.security.quota.QuotaKey;
import java.time.InstantSource;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One byte-rate quota type ({@code producer_byte_rate} or {@code consumer_byte_rate}) on this broker,
 * as Kafka's {@code ClientQuotaManager}: each (user, client id) under a quota ({@link
 * QuotaResolver}) has a rate ({@link RateWindows}) its bytes are recorded in; once the rate, with
 * the bytes just recorded, is above the quota, the client is throttled for {@code round((rate −
 * quota) / quota × span)} ms, {@code span} being the time the rate was measured over: as long as it
 * takes for the rate to come back down to the quota if the client sends nothing more.
 *
 * <p>{@link RequestTimeQuota} measures {@code request_percentage} with one too: its values are then
 * percents of a thread's second rather than bytes.
 *
 * <p>A client under no quota is not measured. At most {@link QuotaConfig#maxTrackedClients()} rates
 * are kept; past it the one idle longest is forgotten.
 *
 * <p>Thread-safety: thread-safe; each rate is updated under its own lock.
 */
public final class ByteRateQuota {

    /** What the quota records, for meters. */
    public interface Listener {
        /** A client's bytes were recorded (the rate now), and the throttle it got (0: none). */
        void recorded(QuotaKey key, double ratePerSecond, long throttleMs);

        Listener NONE = (key, rate, throttle) -> {};
    }

    private record Tags(String user, String clientId) {}

    private final QuotaKey key;
    private final QuotaConfig config;
    private final Supplier<ClusterQuotas> quotas;
    private final InstantSource clock;
    private final Listener listener;
    private final Map<Tags, RateWindows> rates = new ConcurrentHashMap<>();

    public ByteRateQuota(
            QuotaKey key, QuotaConfig config, Supplier<ClusterQuotas> quotas, InstantSource clock, Listener listener) {
        if (key.type() != QuotaKey.ValueType.LONG && key != QuotaKey.REQUEST_PERCENTAGE) {
            throw new IllegalArgumentException(key + " is not a rate of bytes or of request time");
        }
        this.key = key;
        this.config = Objects.requireNonNull(config, "config");
        this.quotas = Objects.requireNonNull(quotas, "quotas");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Records {@code bytes} for {@code user}'s client {@code clientId} and answers the throttle time
     * in ms it earned (0 when within its quota, or under none).
     */
    public long recordAndGetThrottleMs(String user, String clientId, double bytes) {
        Optional<QuotaResolver.Resolved> resolved = QuotaResolver.resolve(quotas.get(), key, user, clientId);
        if (resolved.isEmpty()) {
            return 0;
        }
        QuotaResolver.Resolved q = resolved.get();
        long nowMs = clock.millis();
        RateWindows rate = rateOf(new Tags(q.user(), q.clientId()), nowMs);
        double measured;
        long span;
        synchronized (rate) {
            rate.record(bytes, nowMs);
            measured = rate.ratePerSecond(nowMs);
            span = rate.spanMs(nowMs);
        }
        long throttleMs = throttleMs(measured, q.bound(), span);
        listener.recorded(key, measured, throttleMs);
        return throttleMs;
    }

    /**
     * The most bytes {@code user}'s client {@code clientId} may take at once: its quota times the
     * time of {@code window-count − 1} windows (Kafka's {@code getMaxValueInQuotaWindow}), so one
     * answer never earns a throttle the client cannot come back from; unbounded without a quota.
     */
    public long maxBytesInWindow(String user, String clientId) {
        return QuotaResolver.resolve(quotas.get(), key, user, clientId)
                .map(q -> (long) Math.min(
                        Long.MAX_VALUE,
                        q.bound()
                                * (config.windowCount() - 1)
                                * config.windowSize().toMillis()
                                / 1000.0))
                .orElse(Long.MAX_VALUE);
    }

    /** Takes back bytes recorded for a client whose answer then carried none (Kafka's unrecord). */
    public void unrecord(String user, String clientId, long bytes) {
        QuotaResolver.resolve(quotas.get(), key, user, clientId).ifPresent(q -> {
            RateWindows rate = rates.get(new Tags(q.user(), q.clientId()));
            if (rate != null) {
                synchronized (rate) {
                    rate.record(-bytes, clock.millis());
                }
            }
        });
    }

    /**
     * Kafka's throttle time: 0 within the quota, else {@code round((rate − quota) / quota × span)},
     * at most {@link Integer#MAX_VALUE}.
     */
    static long throttleMs(double ratePerSecond, double quota, long spanMs) {
        if (ratePerSecond <= quota) {
            return 0;
        }
        return Math.min(Integer.MAX_VALUE, Math.round((ratePerSecond - quota) / quota * spanMs));
    }

    /** How many client rates are kept. */
    public int trackedClients() {
        return rates.size();
    }

    private RateWindows rateOf(Tags tags, long nowMs) {
        return IdleEviction.stateOf(
                rates,
                tags,
                config.maxTrackedClients(),
                RateWindows::lastRecordMs,
                () -> new RateWindows(config.windowCount(), config.windowSize().toMillis(), nowMs));
    }
}
