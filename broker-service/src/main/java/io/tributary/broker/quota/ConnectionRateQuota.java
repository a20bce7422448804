package io.tributary.broker.quota;

import io.tributary.broker.cluster.ClusterQuotas;
import io.tributary.common.protocol.ConnectionAdmission;
import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaEntityType;
import io.tributary.common.security.quota.QuotaKey;
import java.net.InetAddress;
import java.time.InstantSource;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * {@code connection_creation_rate} on this broker, as Kafka's {@code ConnectionQuotas} (KIP-612):
 * the quota of a connection's IP is the IP's own, else the default IP's; each IP under one has its
 * own rate of new connections ({@link RateWindows}: {@code window-count} windows of {@code
 * window-size}). A connection that takes the rate above the quota is refused: it is not counted, and
 * the listener holds it unread for {@code round((rate − quota) / quota × span)} ms, at most one
 * window, then closes it (Kafka's formula and bound). An IP's quota is looked up by the address as
 * Java writes it ({@code 127.0.0.1}; IPv6 in full, lower case).
 *
 * <p>At most {@link QuotaConfig#maxTrackedClients()} IP rates are kept; past it the one idle longest
 * is forgotten.
 *
 * <p>Thread-safety: thread-safe; each rate is updated under its own lock.
 */
public final class ConnectionRateQuota implements ConnectionAdmission {

    /** What the quota records, for meters. */
    public interface Listener {
        /** A connection was counted (throttle 0) or refused (its throttle). */
        void recorded(double ratePerSecond, long throttleMs);

        Listener NONE = (rate, throttle) -> {};
    }

    private static final QuotaEntity DEFAULT_IP = new QuotaEntity(Map.of(QuotaEntityType.IP, Optional.empty()));

    private final QuotaConfig config;
    private final Supplier<ClusterQuotas> quotas;
    private final InstantSource clock;
    private final Listener listener;
    private final Map<String, RateWindows> rates = new ConcurrentHashMap<>();

    public ConnectionRateQuota(
            QuotaConfig config, Supplier<ClusterQuotas> quotas, InstantSource clock, Listener listener) {
        this.config = Objects.requireNonNull(config, "config");
        this.quotas = Objects.requireNonNull(quotas, "quotas");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    @Override
    public long throttleMs(InetAddress address) {
        ClusterQuotas current = quotas.get();
        if (current.byEntity().isEmpty()) {
            return 0;
        }
        String ip = address.getHostAddress();
        Optional<Double> bound = current.value(
                        new QuotaEntity(Map.of(QuotaEntityType.IP, Optional.of(ip))), QuotaKey.CONNECTION_CREATION_RATE)
                .or(() -> current.value(DEFAULT_IP, QuotaKey.CONNECTION_CREATION_RATE));
        if (bound.isEmpty()) {
            return 0;
        }
        long nowMs = clock.millis();
        RateWindows rate = rateOf(ip, nowMs);
        double measured;
        long throttleMs;
        synchronized (rate) {
            rate.record(1, nowMs);
            measured = rate.ratePerSecond(nowMs);
            throttleMs = Math.min(
                    config.windowSize().toMillis(),
                    ByteRateQuota.throttleMs(measured, bound.get(), rate.spanMs(nowMs)));
            if (throttleMs > 0) {
                rate.record(-1, nowMs);
            }
        }
        listener.recorded(measured, throttleMs);
        return throttleMs;
    }

    /** How many IP rates are kept. */
    public int trackedClients() {
        return rates.size();
    }

    private RateWindows rateOf(String ip, long nowMs) {
        return IdleEviction.stateOf(
                rates,
                ip,
                config.maxTrackedClients(),
                RateWindows::lastRecordMs,
                () -> new RateWindows(config.windowCount(), config.windowSize().toMillis(), nowMs));
    }
}
