package io.tributary.coordinator.metadata;

/**
 * An operating error of the metadata state machine: a command that is invalid against the current
 * state. Each subclass has a stable {@link ErrorCode} so that a Raft reply can carry it and the
 * HTTP/Kafka edges can map it; programmer errors are {@link IllegalStateException}s instead.
 */
public abstract sealed class MetadataException extends RuntimeException
        permits TopicExistsException,
                UnknownTopicException,
                UnknownBrokerException,
                InvalidConfigException,
                InvalidReplicationFactorException,
                InvalidRequestException,
                StaleEpochException,
                InvalidPartitionsException {

    protected MetadataException(String message) {
        super(message);
    }

    /** The stable code of this error (in Raft replies; the edges map it to HTTP and Kafka errors). */
    public abstract ErrorCode code();

    /** Rebuilds the typed exception for a code read back from a Raft reply. */
    public static MetadataException of(ErrorCode code, String message) {
        return switch (code) {
            case TOPIC_EXISTS -> new TopicExistsException(message);
            case UNKNOWN_TOPIC -> new UnknownTopicException(message);
            case UNKNOWN_BROKER -> new UnknownBrokerException(message);
            case INVALID_CONFIG -> new InvalidConfigException(message);
            case INVALID_REPLICATION_FACTOR -> new InvalidReplicationFactorException(message);
            case INVALID_REQUEST -> new InvalidRequestException(message);
            case STALE_EPOCH -> new StaleEpochException(message);
            case INVALID_PARTITIONS -> new InvalidPartitionsException(message);
        };
    }

    /** Stable error codes; the numbers are part of the reply format (never reuse one). */
    public enum ErrorCode {
        TOPIC_EXISTS(1),
        UNKNOWN_TOPIC(2),
        UNKNOWN_BROKER(3),
        INVALID_CONFIG(4),
        INVALID_REPLICATION_FACTOR(5),
        INVALID_REQUEST(6),
        STALE_EPOCH(7),
        INVALID_PARTITIONS(8);

        private final int wireId;

        ErrorCode(int wireId) {
            this.wireId = wireId;
        }

        public int wireId() {
            return wireId;
        }

        public static ErrorCode fromWireId(int wireId) {
            for (ErrorCode c : values()) {
                if (c.wireId == wireId) {
                    return c;
                }
            }
            throw new CorruptCommandException("unknown error code " + wireId);
        }
    }
}
