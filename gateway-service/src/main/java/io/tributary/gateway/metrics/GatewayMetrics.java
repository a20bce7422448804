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
 *   <li>{@code tributary.gateway.consumed.records} (tags {@code topic}, {@code via}: {@code fetch},
 *       {@code sse}, {@code group}, or {@code table} for tables and SSE snapshots): records handed to
 *       clients.
 *   <li>{@code tributary.gateway.errors} (tags {@code type}, the problem's short name, and {@code
 *       status}): problems answered, whole requests and single records of a batch alike.
 *   <li>{@code tributary.gateway.sse.active.streams} (gauge): SSE streams open now.
 *   <li>{@code tributary.sse.streams.closed} (tags {@code reason}, {@code topic}; Prometheus
 *       {@code tributary_sse_streams_closed_total}, the name the alerts use): SSE streams the gateway
 *       closed, by reason: {@code slow_client} (the buffer stayed full for the slow-client timeout,
 *       or a write to the client blocked for the write timeout), {@code shutdown} (the gateway is
 *       stopping), {@code error} (the cluster failed the stream), {@code client_closed} (the client
 *       went away). Each stream that ends is counted once, under the first reason noticed.
 *   <li>{@code tributary.gateway.group.streams} (gauge): consumer-group SSE streams open now
 *       (each one member of its group).
 *   <li>{@code tributary.gateway.group.streams.closed} (tag {@code reason}, as above): group streams
 *       the gateway ended.
 *   <li>{@code tributary.gateway.group.commits} (tag {@code kind}: {@code auto}, written positions
 *       after a poll or at the end; {@code revoke}, a revoked partition's written position; {@code
 *       manual}, a client's {@code POST .../commits}): offset commits of group streams.
 *   <li>{@code tributary.gateway.group.rebalance.partitions} (tag {@code event}: {@code assigned},
 *       {@code revoked}): partitions moved to or from group streams.
 *   <li>{@code tributary.sse.shared.readers} (gauge): partitions read by a shared tail reader now.
 *   <li>{@code tributary.sse.shared.streams} (gauge): stream partitions fed by a shared reader now.
 *   <li>{@code tributary.gateway.idempotency.claims} (tag {@code outcome}: {@code execute}, {@code
 *       takeover}, {@code replay}, {@code in_progress}, {@code reused}): decided claims of {@code
 *       Idempotency-Key}s. {@code tributary.gateway.idempotency.scans}: decisions that needed a scan
 *       of the idempotency log (the cache was full). {@code tributary.gateway.idempotency.cached.keys}
 *       (gauge): keys in this replica's cache.
 *   <li>{@code tributary.sse.upstream.fetches} (tag {@code mode}: {@code shared}, a shared reader's
 *       poll, or {@code own}, a stream's own poll behind the tail): polls of the cluster for SSE.
 * </ul>
 */
public final class GatewayMetrics {

    private final MeterRegistry registry;
    private final java.util.concurrent.atomic.AtomicInteger activeStreams =
            new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger groupStreams =
            new java.util.concurrent.atomic.AtomicInteger();

    public GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        io.micrometer.core.instrument.Gauge.builder("tributary.gateway.sse.active.streams", activeStreams::get)
                .description("SSE streams open now")
                .register(registry);
        upstreamFetches("shared");
        upstreamFetches("own");
        io.micrometer.core.instrument.Gauge.builder("tributary.gateway.group.streams", groupStreams::get)
                .description("Consumer-group SSE streams (group members) open now")
                .register(registry);
        for (String kind : new String[] {"auto", "revoke", "manual"}) {
            groupCommits(kind);
        }
    }

    /** A group stream opened ({@code +1}) or ended ({@code -1}). */
    public void groupStreamsChanged(int delta) {
        groupStreams.addAndGet(delta);
    }

    /** Group streams open now. */
    public int groupStreams() {
        return groupStreams.get();
    }

    /** The gateway ended a group stream for {@code reason} (the SSE reasons). */
    public void groupStreamClosed(String reason) {
        Counter.builder("tributary.gateway.group.streams.closed")
                .description("Consumer-group SSE streams that ended, by reason")
                .tag("reason", reason)
                .register(registry)
                .increment();
    }

    /** A commit of a group stream: {@code auto} (written positions), {@code revoke}, {@code manual}. */
    public void groupCommit(String kind) {
        groupCommits(kind).increment();
    }

    private Counter groupCommits(String kind) {
        return Counter.builder("tributary.gateway.group.commits")
                .description("Offset commits of consumer-group SSE streams, by kind")
                .tag("kind", kind)
                .register(registry);
    }

    /** Partitions {@code assigned} to or {@code revoked} from group streams. */
    public void groupRebalance(String event, int partitions) {
        Counter.builder("tributary.gateway.group.rebalance.partitions")
                .description("Partitions assigned to or revoked from consumer-group SSE streams")
                .tag("event", event)
                .register(registry)
                .increment(partitions);
    }

    /** An SSE stream opened ({@code +1}) or ended ({@code -1}). */
    public void streamsChanged(int delta) {
        activeStreams.addAndGet(delta);
    }

    /** SSE streams open now. */
    public int activeStreams() {
        return activeStreams.get();
    }

    /** Reasons for {@link #streamClosed}. */
    public static final String SLOW_CLIENT = "slow_client";

    public static final String SHUTDOWN = "shutdown";
    public static final String ERROR = "error";
    public static final String CLIENT_CLOSED = "client_closed";

    /** A group stream ended because a newer stream of the same {@code member=} opened on this replica. */
    public static final String REPLACED = "replaced";

    /** The gateway closed an SSE stream of {@code topic} for {@code reason}. */
    public void streamClosed(String topic, String reason) {
        Counter.builder("tributary.sse.streams.closed")
                .description("SSE streams that ended, by reason")
                .tag("reason", reason)
                .tag("topic", topic)
                .register(registry)
                .increment();
    }

    /** Registers the shared tail readers' gauges. */
    public void sharedReaders(java.util.function.IntSupplier readers, java.util.function.IntSupplier streams) {
        io.micrometer.core.instrument.Gauge.builder("tributary.sse.shared.readers", readers::getAsInt)
                .description("Partitions read by a shared SSE tail reader now")
                .register(registry);
        io.micrometer.core.instrument.Gauge.builder("tributary.sse.shared.streams", streams::getAsInt)
                .description("SSE stream partitions fed by a shared tail reader now")
                .register(registry);
    }

    /** One poll of the cluster for SSE: {@code mode} {@code shared} or {@code own}. */
    public void upstreamFetch(String mode) {
        upstreamFetches(mode).increment();
    }

    private Counter upstreamFetches(String mode) {
        return Counter.builder("tributary.sse.upstream.fetches")
                .description("Polls of the cluster for SSE streams, by a shared reader or a stream's own")
                .tag("mode", mode)
                .register(registry);
    }

    /** Outcomes of {@code Idempotency-Key} claims, registered up front so each reads 0 before its first. */
    public static final java.util.List<String> IDEMPOTENCY_OUTCOMES =
            java.util.List.of("execute", "takeover", "replay", "in_progress", "reused");

    /** A claim of an {@code Idempotency-Key} was decided: one of {@link #IDEMPOTENCY_OUTCOMES}. */
    public void idempotencyClaim(String outcome) {
        idempotencyClaims(outcome).increment();
    }

    private Counter idempotencyClaims(String outcome) {
        return Counter.builder("tributary.gateway.idempotency.claims")
                .description(
                        "Idempotency-Key claims, by decision: executed, taken over, replayed, in progress (409), reused (422)")
                .tag("outcome", outcome)
                .register(registry);
    }

    /** A claim's decision needed a scan of its idempotency-log partition (the cache had dropped live keys). */
    public void idempotencyScan() {
        Counter.builder("tributary.gateway.idempotency.scans")
                .description("Idempotency-log partition scans: decisions the bounded cache could not make")
                .register(registry)
                .increment();
    }

    /** Registers the gauge of the keys in this replica's idempotency cache. */
    public void idempotencyCache(java.util.function.IntSupplier keys) {
        io.micrometer.core.instrument.Gauge.builder("tributary.gateway.idempotency.cached.keys", keys::getAsInt)
                .description("Idempotency keys in this replica's cache of the idempotency log")
                .register(registry);
        IDEMPOTENCY_OUTCOMES.forEach(this::idempotencyClaims);
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
