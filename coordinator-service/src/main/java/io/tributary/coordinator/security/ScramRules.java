package io.tributary.coordinator.security;

import io.tributary.common.security.sasl.ScramKeys;

/**
 * The bounds a SCRAM credential change must respect before it is written, beyond the state machine's
 * own ({@link io.tributary.coordinator.metadata.MetadataLimits#maxScramUsers()}, which is also here so
 * that a change past it is refused per user, as Kafka answers per user).
 *
 * @param maxUsers the most users with credentials ({@code tributary.coordinator.metadata.max-scram-users})
 * @param maxUserNameLength the longest user name, in characters ({@code
 *     tributary.coordinator.security.max-scram-user-name-length}; Kafka has no bound but its request
 *     size)
 * @param minIterations the fewest iterations a credential may have (Kafka: 4096, also the least a
 *     kafka-clients SCRAM client accepts, so no lower value is allowed)
 * @param maxIterations the most (Kafka: 16384; at most 1,000,000: each PLAIN check against a SCRAM
 *     credential costs one hash of that many iterations on the broker)
 */
public record ScramRules(int maxUsers, int maxUserNameLength, int minIterations, int maxIterations) {

    /** Kafka's bounds, and 10,000 users of at most 1,000 characters. */
    public static final ScramRules DEFAULTS =
            new ScramRules(10_000, 1000, ScramKeys.MIN_ITERATIONS, ScramKeys.MAX_ITERATIONS);

    /** The largest {@link #maxIterations} allowed. */
    public static final int ITERATIONS_CEILING = 1_000_000;

    public ScramRules {
        if (maxUsers < 1) {
            throw new IllegalArgumentException("maxUsers must be 1 or more, got " + maxUsers);
        }
        if (maxUserNameLength < 1) {
            throw new IllegalArgumentException("maxUserNameLength must be 1 or more, got " + maxUserNameLength);
        }
        if (minIterations < ScramKeys.MIN_ITERATIONS || maxIterations < minIterations) {
            throw new IllegalArgumentException("SCRAM iterations must be %d <= min <= max, got %d..%d"
                    .formatted(ScramKeys.MIN_ITERATIONS, minIterations, maxIterations));
        }
        if (maxIterations > ITERATIONS_CEILING) {
            throw new IllegalArgumentException(
                    "SCRAM max iterations must be at most %d, got %d".formatted(ITERATIONS_CEILING, maxIterations));
        }
    }
}
