package io.tributary.coordinator.metadata;

/**
 * Bounds on what a client may ask of the metadata state machine, checked by {@link CommandValidator}
 * on the Raft leader before a command is appended (never while applying: a limit changed in one
 * coordinator's config must not make voters disagree about the log).
 *
 * @param maxCommandBytes the largest encoded command accepted (default 1 MiB: a create of hundreds of
 *     topics fits; a log entry much larger slows every follower's catch-up)
 * @param maxPartitionsPerTopic the most partitions one topic may have (default 10,000)
 * @param maxProducerIdsPerBlock the most producer ids one allocation may take (default 10,000: ten
 *     of Kafka's 1,000-id blocks; a broker asks again when its block runs out, so a larger block
 *     only saves a Raft write per that many new idempotent producers)
 */
public record MetadataLimits(int maxCommandBytes, int maxPartitionsPerTopic, int maxProducerIdsPerBlock) {

    /** The documented defaults. */
    public static final MetadataLimits DEFAULTS = new MetadataLimits(1 << 20, 10_000, 10_000);

    public MetadataLimits {
        if (maxCommandBytes < 64) {
            throw new IllegalArgumentException("maxCommandBytes must be 64 or more, got " + maxCommandBytes);
        }
        if (maxPartitionsPerTopic < 1) {
            throw new IllegalArgumentException("maxPartitionsPerTopic must be 1 or more, got " + maxPartitionsPerTopic);
        }
        if (maxProducerIdsPerBlock < 1) {
            throw new IllegalArgumentException(
                    "maxProducerIdsPerBlock must be 1 or more, got " + maxProducerIdsPerBlock);
        }
    }
}
