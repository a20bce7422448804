package io.tributary.coordinator.metadata;

/**
 * A partition count a topic cannot grow to: not more than it has (partitions are never removed, and a
 * retried addition that was applied already lands here), or above the most partitions a topic may
 * have (Kafka's {@code INVALID_PARTITIONS}).
 */
public final class InvalidPartitionsException extends MetadataException {

    public InvalidPartitionsException(String message) {
        super(message);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.INVALID_PARTITIONS;
    }
}
