package io.tributary.coordinator.metadata;

/** The broker id is not registered. */
public final class UnknownBrokerException extends MetadataException {

    public UnknownBrokerException(String message) {
        super(message);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.UNKNOWN_BROKER;
    }
}
