package io.tributary.coordinator.metadata;

/** A topic with this name (or topic id) already exists. */
public final class TopicExistsException extends MetadataException {

    public TopicExistsException(String message) {
        super(message);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.TOPIC_EXISTS;
    }
}
