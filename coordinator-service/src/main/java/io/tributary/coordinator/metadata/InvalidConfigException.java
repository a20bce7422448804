package io.tributary.coordinator.metadata;

/** A topic config key is unknown, or its value has the wrong type or is out of range. */
public final class InvalidConfigException extends MetadataException {

    public InvalidConfigException(String message) {
        super(message);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.INVALID_CONFIG;
    }
}
