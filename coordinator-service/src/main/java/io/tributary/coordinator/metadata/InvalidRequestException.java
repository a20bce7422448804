package io.tributary.coordinator.metadata;

/** A command is malformed against the current state (bad name, duplicate replicas, an ISR outside the replicas, an election that is not allowed...). */
public final class InvalidRequestException extends MetadataException {

    public InvalidRequestException(String message) {
        super(message);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.INVALID_REQUEST;
    }
}
