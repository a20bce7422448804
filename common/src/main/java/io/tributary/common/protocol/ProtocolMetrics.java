package io.tributary.common.protocol;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tributary.common.security.sasl.SaslSession;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The listener's meters. Names below are Micrometer's; Prometheus sees them with dots as
 * underscores and the unit suffixes Micrometer adds.
 *
 * <ul>
 *   <li>{@code tributary.protocol.requests{api}}: requests handled, counter
 *   <li>{@code tributary.protocol.errors{api,error}}: error codes in responses (one per partition or
 *       resource that failed, as Kafka counts them), counter
 *   <li>{@code tributary.protocol.request.latency{api}}: from frame read to response written, with a
 *       histogram, timer
 *   <li>{@code tributary.protocol.connections.active}: open connections, gauge
 *   <li>{@code tributary.protocol.connections.accepted}, {@code .refused}: connections taken and
 *       turned away for being over {@code maxConnections}, counters
 *   <li>{@code tributary.protocol.frames.rejected{reason}}: connections closed for a bad frame
 *       ({@code negative_size}, {@code oversized}, {@code malformed}, {@code truncated}), counter
 *   <li>{@code tributary.protocol.sasl.reauthentications{result}}: SASL re-authentications (KIP-368)
 *       that ended, {@code success} or {@code failure}, counter
 *   <li>{@code tributary.protocol.sasl.sessions.expired}: connections closed because a request came
 *       after their SASL session expired without re-authentication, counter
 *   <li>{@code tributary.protocol.connections.muted}, {@code .muted.time}: times a connection was
 *       muted after an answer with {@code throttle_time_ms} (a client over its quota), and for how
 *       long in all (seconds), counters
 *   <li>{@code tributary.protocol.connections.throttled}, {@code .throttled.time}: connections
 *       refused for their IP's {@code connection_creation_rate} (held, then closed), and the time
 *       they were held in all (seconds), counters
 * </ul>
 *
 * Thread-safe.
 */
public final class ProtocolMetrics {

    /** Why a connection was closed for its bytes. */
    public enum FrameRejection {
        NEGATIVE_SIZE,
        OVERSIZED,
        MALFORMED,
        TRUNCATED;

        String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final MeterRegistry registry;
    private final String listener;
    private final AtomicInteger activeConnections = new AtomicInteger();
    private final Counter accepted;
    private final Counter refused;
    private final Counter reauthenticated;
    private final Counter reauthenticationFailed;
    private final Counter expired;
    private final Counter muted;
    private final Counter mutedSeconds;
    private final Counter throttled;
    private final Counter throttledSeconds;
    private final Map<ApiKeys, Counter> requests = new ConcurrentHashMap<>();
    private final Map<ApiKeys, Timer> latency = new ConcurrentHashMap<>();
    private final Map<String, Counter> errors = new ConcurrentHashMap<>();
    private final Map<FrameRejection, Counter> rejections = new ConcurrentHashMap<>();

    /**
     * @param registry where the meters go
     * @param listener the listener's name, a tag on every meter (one process may run more than one)
     */
    public ProtocolMetrics(MeterRegistry registry, String listener) {
        this.registry = registry;
        this.listener = listener;
        Gauge.builder("tributary.protocol.connections.active", activeConnections, AtomicInteger::get)
                .description("Open Kafka-protocol connections")
                .tag("listener", listener)
                .register(registry);
        accepted = Counter.builder("tributary.protocol.connections.accepted")
                .description("Kafka-protocol connections accepted")
                .tag("listener", listener)
                .register(registry);
        refused = Counter.builder("tributary.protocol.connections.refused")
                .description("Kafka-protocol connections closed at once because the listener was at maxConnections")
                .tag("listener", listener)
                .register(registry);
        reauthenticated = Counter.builder("tributary.protocol.sasl.reauthentications")
                .description("SASL re-authentications on open connections (KIP-368)")
                .tag("listener", listener)
                .tag("result", "success")
                .register(registry);
        reauthenticationFailed = Counter.builder("tributary.protocol.sasl.reauthentications")
                .description("SASL re-authentications on open connections (KIP-368)")
                .tag("listener", listener)
                .tag("result", "failure")
                .register(registry);
        expired = Counter.builder("tributary.protocol.sasl.sessions.expired")
                .description("Connections closed because a request came after their SASL session expired")
                .tag("listener", listener)
                .register(registry);
        muted = Counter.builder("tributary.protocol.connections.muted")
                .description("Times a connection was muted for a throttled answer (a client over its quota)")
                .tag("listener", listener)
                .register(registry);
        mutedSeconds = Counter.builder("tributary.protocol.connections.muted.time")
                .description("Time connections were muted for throttled answers")
                .baseUnit("seconds")
                .tag("listener", listener)
                .register(registry);
        throttled = Counter.builder("tributary.protocol.connections.throttled")
                .description("Connections refused for their IP's connection_creation_rate quota")
                .tag("listener", listener)
                .register(registry);
        throttledSeconds = Counter.builder("tributary.protocol.connections.throttled.time")
                .description("Time connections refused for their IP's connection rate were held before closing")
                .baseUnit("seconds")
                .tag("listener", listener)
                .register(registry);
        for (FrameRejection reason : FrameRejection.values()) {
            rejections.put(
                    reason,
                    Counter.builder("tributary.protocol.frames.rejected")
                            .description(
                                    "Connections closed because a frame was negative, oversized, truncated or unreadable")
                            .tag("listener", listener)
                            .tag("reason", reason.tag())
                            .register(registry));
        }
    }

    void connectionOpened() {
        accepted.increment();
        activeConnections.incrementAndGet();
    }

    void connectionClosed() {
        activeConnections.decrementAndGet();
    }

    void connectionRefused() {
        refused.increment();
    }

    /** Counts a re-authentication's end (KIP-368): Kafka's successful/failed-reauthentication-total. */
    void reauthentication(SaslSession.Reauthentication outcome) {
        switch (outcome) {
            case SUCCEEDED -> reauthenticated.increment();
            case FAILED -> reauthenticationFailed.increment();
            case NONE -> {
                // not a re-authentication's end
            }
        }
    }

    /** A connection closed because its SASL session expired: Kafka's expired-connections-killed-count. */
    void sessionExpired() {
        expired.increment();
    }

    /** A connection muted for {@code throttleMs} after a throttled answer (Kafka's channel muting). */
    void connectionMuted(int throttleMs) {
        muted.increment();
        mutedSeconds.increment(throttleMs / 1000.0);
    }

    void connectionThrottled(long throttleMs) {
        throttled.increment();
        throttledSeconds.increment(throttleMs / 1000.0);
    }

    void frameRejected(FrameRejection reason) {
        rejections.get(reason).increment();
    }

    Timer.Sample startRequest() {
        return Timer.start(registry);
    }

    void requestCompleted(ApiKeys api, Timer.Sample sample, Map<Errors, Integer> errorCounts) {
        requests.computeIfAbsent(
                        api,
                        key -> Counter.builder("tributary.protocol.requests")
                                .description("Kafka-protocol requests handled")
                                .tag("listener", listener)
                                .tag("api", key.name)
                                .register(registry))
                .increment();
        errorCounts.forEach((error, count) -> {
            if (error != Errors.NONE && count > 0) {
                errors.computeIfAbsent(
                                api.name + '/' + error.name(),
                                key -> Counter.builder("tributary.protocol.errors")
                                        .description("Error codes in Kafka-protocol responses")
                                        .tag("listener", listener)
                                        .tag("api", api.name)
                                        .tag("error", error.name())
                                        .register(registry))
                        .increment(count);
            }
        });
        sample.stop(latency.computeIfAbsent(
                api,
                key -> Timer.builder("tributary.protocol.request.latency")
                        .description("Time from reading a Kafka-protocol request to writing its response")
                        .tag("listener", listener)
                        .tag("api", key.name)
                        .publishPercentileHistogram()
                        .register(registry)));
    }
}
