package io.tributary.coordinator.metadata;

/** The replication factor is below 1, above the number of registered brokers (or no broker is live), or differs between partitions of one topic. */
public final class InvalidReplicationFactorException extends MetadataException {

    public InvalidReplicationFactorException(String message) {
        super(message);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.INVALID_REPLICATION_FACTOR;
    }
}
