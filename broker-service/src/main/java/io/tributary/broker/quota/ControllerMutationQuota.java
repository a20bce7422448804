package io.tributary.broker.quota;

import io.tributary.broker.cluster.ClusterQuotas;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.security.quota.QuotaKey;
import java.time.InstantSource;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * {@code controller_mutation_rate} on this broker, as Kafka's {@code ControllerMutationQuotaManager}
 * (KIP-599): the partitions a (user, client id) creates (CreateTopics), adds (CreatePartitions) or
 * deletes (DeleteTopics) a second, for the same entity and precedence as the byte rates ({@link
 * QuotaResolver}), counted in a {@link TokenBucket} per (user, client id) sharing the quota.
 *
 * <p>Each request gets its {@link MutationPermits} ({@link #permitsFor}), strict or permissive by
 * its version, as Kafka:
 *
 * <ul>
 *   <li><b>strict</b> (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+: clients that know
 *       THROTTLING_QUOTA_EXCEEDED): a topic is refused with THROTTLING_QUOTA_EXCEEDED when the
 *       bucket is already below zero; otherwise its partitions are taken, even if that takes the
 *       bucket below zero. A refusal sets the answer's {@code throttle_time_ms} to the time the
 *       bucket needs to come back to zero;
 *   <li><b>permissive</b> (older versions): every topic is accepted and its partitions taken; when
 *       that leaves the bucket below zero the answer's {@code throttle_time_ms} is that time.
 * </ul>
 *
 * The listener mutes the connection for the answer's {@code throttle_time_ms}, as for byte rates.
 * A client under no quota is not counted. At most {@link QuotaConfig#maxTrackedClients()} buckets
 * are kept; past it the one idle longest is forgotten.
 *
 * <p>Thread-safety: thread-safe; each bucket is updated under its own lock.
 */
public final class ControllerMutationQuota {

    /** What the quota records, for meters. */
    public interface Listener {
        /** A topic's {@code partitions} were taken (accepted) or refused, and the throttle that followed. */
        void recorded(int partitions, boolean refused, long throttleMs);

        Listener NONE = (partitions, refused, throttle) -> {};
    }

    /** One request's view of the quota: strict or permissive, and the throttle it has earned. */
    public static final class MutationPermits {
        private final ControllerMutationQuota quota;
        private final Optional<QuotaResolver.Resolved> resolved;
        private final boolean strict;
        private long throttleMs;

        private MutationPermits(
                ControllerMutationQuota quota, Optional<QuotaResolver.Resolved> resolved, boolean strict) {
            this.quota = quota;
            this.resolved = resolved;
            this.strict = strict;
        }

        /**
         * Takes {@code partitions} permits for one topic: false when the topic is refused
         * (THROTTLING_QUOTA_EXCEEDED, strict requests only), true when it may go ahead.
         */
        public boolean tryTake(int partitions) {
            if (resolved.isEmpty() || partitions <= 0) {
                return true;
            }
            long earned = quota.take(resolved.get(), partitions, strict);
            if (earned < 0) {
                throttleMs = Math.max(throttleMs, -earned);
                return false;
            }
            throttleMs = Math.max(throttleMs, earned);
            return true;
        }

        /** The request's {@code throttle_time_ms}: 0 unless a topic was refused or (permissive) went over. */
        public int throttleTimeMs() {
            return (int) Math.min(Integer.MAX_VALUE, throttleMs);
        }
    }

    private record Tags(String user, String clientId) {}

    private final QuotaConfig config;
    private final Supplier<ClusterQuotas> quotas;
    private final InstantSource clock;
    private final Listener listener;
    private final Map<Tags, TokenBucket> buckets = new ConcurrentHashMap<>();

    public ControllerMutationQuota(
            QuotaConfig config, Supplier<ClusterQuotas> quotas, InstantSource clock, Listener listener) {
        this.config = Objects.requireNonNull(config, "config");
        this.quotas = Objects.requireNonNull(quotas, "quotas");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** No quota: every mutation accepted, never throttled. */
    public static ControllerMutationQuota unlimited() {
        return new ControllerMutationQuota(
                QuotaConfig.DEFAULTS, () -> ClusterQuotas.EMPTY, InstantSource.system(), Listener.NONE);
    }

    /**
     * The permits of one request from {@code request}'s principal and client id; strict from
     * version {@code strictSinceVersion} of its API on.
     */
    public MutationPermits permitsFor(KafkaRequest request, short strictSinceVersion) {
        String user = request.connection().principal().name();
        String clientId =
                request.header().clientId() == null ? "" : request.header().clientId();
        return new MutationPermits(
                this,
                QuotaResolver.resolve(quotas.get(), QuotaKey.CONTROLLER_MUTATION_RATE, user, clientId),
                request.header().apiVersion() >= strictSinceVersion);
    }

    /** How many buckets are kept. */
    public int trackedClients() {
        return buckets.size();
    }

    /** Takes permits: the throttle it earned (≥ 0) when accepted, minus the throttle when refused. */
    private long take(QuotaResolver.Resolved q, int partitions, boolean strict) {
        long nowMs = clock.millis();
        double windowsSeconds = config.windowCount() * config.windowSize().toMillis() / 1000.0;
        TokenBucket bucket = bucketOf(new Tags(q.user(), q.clientId()), windowsSeconds, q.bound(), nowMs);
        long result;
        synchronized (bucket) {
            double before = bucket.tokens(q.bound(), nowMs);
            if (strict && before < 0) {
                result = -Math.max(1, TokenBucket.throttleMs(before, q.bound()));
            } else {
                bucket.take(partitions, q.bound(), nowMs);
                result = strict ? 0 : TokenBucket.throttleMs(bucket.tokens(q.bound(), nowMs), q.bound());
            }
        }
        listener.recorded(partitions, result < 0, Math.abs(result));
        return result;
    }

    private TokenBucket bucketOf(Tags tags, double windowsSeconds, double quota, long nowMs) {
        return IdleEviction.stateOf(
                buckets,
                tags,
                config.maxTrackedClients(),
                TokenBucket::lastMs,
                () -> new TokenBucket(windowsSeconds, quota, nowMs));
    }
}
