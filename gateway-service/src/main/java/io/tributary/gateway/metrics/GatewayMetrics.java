package io.tributary.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.gateway.problem.ProblemType;

/**
 * Counters of what the gateway did. Thread-safe (Micrometer's counters are).
 *
 * <ul>
 *   <li>{@code tributary.gateway.produced.records} (tags {@code topic}, {@code acks}): records the
 *       cluster accepted through the gateway.
 *   <li>{@code tributary.gateway.consumed.records} (tags {@code topic}, {@code via}={@code fetch}):
 *       records handed to clients.
 *   <li>{@code tributary.gateway.errors} (tags {@code type}, the problem's short name, and {@code
 *       status}): problems answered, whole requests and single records of a batch alike.
 *   <li>{@code tributary.gateway.sse.active.streams} (gauge): SSE streams open now.
 *   <li>{@code tributary.gateway.sse.slow.closes}: SSE streams closed because their client read too
 *       slowly (their buffer stayed full for the slow-client timeout).
 * </ul>
 */
public final class GatewayMetrics {

    private final MeterRegistry registry;
    private final java.util.concurrent.atomic.AtomicInteger activeStreams =
            new java.util.concurrent.atomic.AtomicInteger();

    public GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        io.micrometer.core.instrument.Gauge.builder("tributary.gateway.sse.active.streams", activeStreams::get)
                .description("SSE streams open now")
                .register(registry);
    }

    /** An SSE stream opened ({@code +1}) or ended ({@code -1}). */
    public void streamsChanged(int delta) {
        activeStreams.addAndGet(delta);
    }

    /** SSE streams open now. */
    public int activeStreams() {
        return activeStreams.get();
    }

    /** An SSE stream was closed because its client read too slowly. */
    public void slowClose(String topic) {
        Counter.builder("tributary.gateway.sse.slow.closes")
                .description("SSE streams closed because their client fell behind")
                .tag("topic", topic)
                .register(registry)
                .increment();
    }

    public void produced(String topic, String acks, long records) {
        Counter.builder("tributary.gateway.produced.records")
                .description("Records the cluster accepted through the gateway")
                .baseUnit("records")
                .tag("topic", topic)
                .tag("acks", acks)
                .register(registry)
                .increment(records);
    }

    public void consumed(String topic, String via, long records) {
        Counter.builder("tributary.gateway.consumed.records")
                .description("Records the gateway handed to clients")
                .baseUnit("records")
                .tag("topic", topic)
                .tag("via", via)
                .register(registry)
                .increment(records);
    }

    public void error(ProblemType type) {
        Counter.builder("tributary.gateway.errors")
                .description("Problems the gateway answered, by problem type")
                .tag("type", type.slug())
                .tag("status", Integer.toString(type.status()))
                .register(registry)
                .increment();
    }
}
