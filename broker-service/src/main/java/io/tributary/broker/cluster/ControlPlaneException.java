package io.tributary.broker.cluster;

import java.util.Objects;

/**
 * A control-plane call the coordinators refused or that could not be made. {@link #kind()} is
 * what a Kafka handler maps to an error code; the message carries the coordinator's problem detail.
 */
public final class ControlPlaneException extends RuntimeException {

    /** Why the call failed; one per coordinator problem type the broker acts on. */
    public enum Kind {
        /** 409 topic-exists. */
        TOPIC_EXISTS,
        /** 404 unknown-topic. */
        UNKNOWN_TOPIC,
        /** 404 unknown-broker. */
        UNKNOWN_BROKER,
        /** 400 invalid-config. */
        INVALID_CONFIG,
        /** 400 invalid-replication-factor. */
        INVALID_REPLICATION_FACTOR,
        /** 400 invalid-partitions (a partition count that is not an increase, or above the limit). */
        INVALID_PARTITIONS,
        /** 400 invalid-request and the other 4xx the broker should not have sent. */
        INVALID_REQUEST,
        /** 409 stale-epoch: an old leader or partition epoch, or an old incarnation. */
        STALE_EPOCH,
        /** 503 no-leader, connection failures, timeouts: retriable. */
        UNAVAILABLE,
        /** 503 not-committed: the write may or may not have been applied. */
        NOT_COMMITTED
    }

    private final Kind kind;

    public ControlPlaneException(Kind kind, String message) {
        super(message);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public ControlPlaneException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public Kind kind() {
        return kind;
    }
}
