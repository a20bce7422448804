package io.tributary.broker.cluster;

import java.util.Objects;

/**
 * A control-plane call the coordinators refused or that could not be made. {@link #kind()} is
 * what a Kafka handler maps to an error code; the message (for logs) names the call, the
 * coordinator and its problem detail; {@link #clientMessage()} is what a Kafka client is told.
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
    private final String refusal;

    public ControlPlaneException(Kind kind, String message) {
        super(message);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.refusal = null;
    }

    /**
     * A refusal a coordinator answered with a problem detail: {@code message} for logs, {@code
     * refusal} (the coordinator's detail, such as "replication factor 4 is larger than the 3 live
     * brokers") for clients.
     */
    public ControlPlaneException(Kind kind, String message, String refusal) {
        super(message);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.refusal = Objects.requireNonNull(refusal, "refusal");
    }

    public ControlPlaneException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.refusal = null;
    }

    public Kind kind() {
        return kind;
    }

    /**
     * The message for a Kafka client's error: the coordinator's own detail when it refused with
     * one (the HTTP call behind it is the broker's business, not the client's), else the message.
     */
    public String clientMessage() {
        return refusal != null ? refusal : getMessage();
    }
}
