package io.tributary.coordinator.api;

import io.tributary.coordinator.metadata.MetadataException;
import java.net.URI;
import java.util.Locale;

/**
 * Every problem type of the control plane. The {@link #uri()} of each is stable (clients branch on
 * it) and listed in {@code docs/control-plane.md}.
 */
public enum ControlProblem {
    MALFORMED_JSON(400, "Malformed JSON"),
    INVALID_PARAMETER(400, "Invalid parameter"),
    INVALID_REQUEST(400, "Invalid request"),
    INVALID_CONFIG(400, "Invalid config"),
    INVALID_REPLICATION_FACTOR(400, "Invalid replication factor"),
    INVALID_PARTITIONS(400, "Invalid partitions"),
    UNKNOWN_TOPIC(404, "Unknown topic"),
    UNKNOWN_BROKER(404, "Unknown broker"),
    UNAUTHENTICATED(401, "Unauthenticated"),
    FORBIDDEN(403, "Forbidden"),
    NOT_FOUND(404, "Not found"),
    METHOD_NOT_ALLOWED(405, "Method not allowed"),
    NOT_ACCEPTABLE(406, "Not acceptable"),
    TOPIC_EXISTS(409, "Topic already exists"),
    STALE_EPOCH(409, "Stale epoch"),
    LENGTH_REQUIRED(411, "Length required"),
    BODY_TOO_LARGE(413, "Body too large"),
    UNSUPPORTED_MEDIA_TYPE(415, "Unsupported media type"),
    INTERNAL_ERROR(500, "Internal error"),
    NO_LEADER(503, "No metadata leader"),
    NOT_COMMITTED(503, "Not committed");

    private static final String PREFIX = "urn:tributary:problem:coordinator:";

    private final int status;
    private final String title;

    ControlProblem(int status, String title) {
        this.status = status;
        this.title = title;
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    /** The short name, such as {@code stale-epoch}. */
    public String slug() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The stable type URI, such as {@code urn:tributary:problem:coordinator:stale-epoch}. */
    public URI uri() {
        return URI.create(PREFIX + slug());
    }

    /** Whether the client should try again later ({@code Retry-After} is set). */
    public boolean retryable() {
        return status == 503;
    }

    /** The problem type of a typed metadata error. */
    public static ControlProblem of(MetadataException e) {
        return switch (e.code()) {
            case TOPIC_EXISTS -> TOPIC_EXISTS;
            case UNKNOWN_TOPIC -> UNKNOWN_TOPIC;
            case UNKNOWN_BROKER -> UNKNOWN_BROKER;
            case INVALID_CONFIG -> INVALID_CONFIG;
            case INVALID_REPLICATION_FACTOR -> INVALID_REPLICATION_FACTOR;
            case INVALID_REQUEST -> INVALID_REQUEST;
            case STALE_EPOCH -> STALE_EPOCH;
            case INVALID_PARTITIONS -> INVALID_PARTITIONS;
        };
    }
}
