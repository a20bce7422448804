package io.tributary.broker.log;

import java.time.Duration;
import java.util.Objects;

/**
 * Bounds of a partition's idempotent-producer state (see {@link ProducerState}).
 *
 * @param rebuildBytes when a log opens, the batch headers of its newest segments holding at least
 *     this many bytes are read to rebuild the producer state; the work is one 61-byte read per batch
 *     in that window
 * @param expiration a producer not heard from for this long is forgotten (Kafka's {@code
 *     producer.id.expiration.ms}, 1 day)
 */
public record ProducerStateConfig(long rebuildBytes, Duration expiration) {

    /**
     * 64 MiB: far more than the in-flight batches of every active producer (at most five requests
     * each, retried within seconds), while a rebuild reads at most a few thousand headers for
     * batches of typical (16 KiB) size.
     */
    public static final long DEFAULT_REBUILD_BYTES = 64L * 1024 * 1024;

    public static final Duration DEFAULT_EXPIRATION = Duration.ofDays(1);

    public ProducerStateConfig {
        Objects.requireNonNull(expiration, "expiration");
        if (rebuildBytes < 0) {
            throw new IllegalArgumentException("rebuildBytes must not be negative: " + rebuildBytes);
        }
        if (expiration.isNegative() || expiration.isZero()) {
            throw new IllegalArgumentException("expiration must be positive: " + expiration);
        }
    }

    public static ProducerStateConfig defaults() {
        return new ProducerStateConfig(DEFAULT_REBUILD_BYTES, DEFAULT_EXPIRATION);
    }
}
