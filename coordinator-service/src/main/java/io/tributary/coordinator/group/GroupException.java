package io.tributary.coordinator.group;

import java.util.Objects;
import org.apache.kafka.common.protocol.Errors;

/**
 * A group request refused, with the Kafka error the client is answered with (the group protocol's
 * errors are its contract with clients, so the core names them directly: FENCED_MEMBER_EPOCH,
 * UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH...).
 */
public final class GroupException extends RuntimeException {

    private final Errors error;

    public GroupException(Errors error, String message) {
        super(message);
        this.error = Objects.requireNonNull(error, "error");
    }

    /** The Kafka error to answer with. */
    public Errors error() {
        return error;
    }
}
