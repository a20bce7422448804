package io.tributary.coordinator.metadata;

/** The named topic (or partition of it) does not exist. */
public final class UnknownTopicException extends MetadataException {

    public UnknownTopicException(String message) {
        super(message);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.UNKNOWN_TOPIC;
    }
}
