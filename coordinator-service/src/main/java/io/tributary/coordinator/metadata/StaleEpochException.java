package io.tributary.coordinator.metadata;

/**
 * A command was made against an older leader epoch, partition epoch or broker incarnation than the
 * current one, or against another revision of a transactional id than the stored one.
 */
public final class StaleEpochException extends MetadataException {

    public StaleEpochException(String message) {
        super(message);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.STALE_EPOCH;
    }
}
