package io.tributary.coordinator.transaction;

import java.time.Duration;

/**
 * The transaction coordinator's bounds and timers.
 *
 * @param maxTimeout the longest {@code transaction.timeout.ms} a producer may ask for (Kafka's
 *     {@code transaction.max.timeout.ms}, default 15 minutes); InitProducerId with a longer one is
 *     answered INVALID_TRANSACTION_TIMEOUT
 * @param idExpiration how long a transactional id with no transaction open is kept after its last
 *     change (Kafka's {@code transactional.id.expiration.ms}, default 7 days); then it is forgotten
 *     and its next InitProducerId gets a new producer id
 * @param maxPartitionsPerTransaction the most partitions one transaction may hold (default 10,000;
 *     Kafka has no bound, but every partition is in the replicated record and gets a marker); adding
 *     more is answered POLICY_VIOLATION and the transaction stays as it was
 * @param maxGroupsPerTransaction the most consumer groups one transaction may commit offsets for
 *     (default 100); adding more is answered POLICY_VIOLATION
 * @param markerRetryBackoff how long the coordinator waits for a partition's marker to be
 *     acknowledged before it sends it again (default 500 ms); markers are sent until every one is
 *     acknowledged
 */
public record TransactionConfig(
        Duration maxTimeout,
        Duration idExpiration,
        int maxPartitionsPerTransaction,
        int maxGroupsPerTransaction,
        Duration markerRetryBackoff) {

    /** The defaults. */
    public static final TransactionConfig DEFAULTS =
            new TransactionConfig(Duration.ofMinutes(15), Duration.ofDays(7), 10_000, 100, Duration.ofMillis(500));

    public TransactionConfig {
        if (!maxTimeout.isPositive()
                || maxTimeout.toMillis() > Integer.MAX_VALUE
                || !idExpiration.isPositive()
                || !markerRetryBackoff.isPositive()
                || maxPartitionsPerTransaction < 1
                || maxGroupsPerTransaction < 1) {
            throw new IllegalArgumentException("transaction bounds must be positive (max timeout at most "
                    + Integer.MAX_VALUE + " ms), got " + this);
        }
    }

    /** {@link #maxTimeout} in milliseconds. */
    public int maxTimeoutMs() {
        return (int) maxTimeout.toMillis();
    }
}
