package io.tributary.gateway.problem;

import java.net.URI;

/**
 * Every problem type of the HTTP API. The {@link #uri()} of each is stable: clients branch on it. A
 * new constant needs a row in the {@code Problem} schema of {@code openapi/tributary-v1.yaml}.
 */
public enum ProblemType {
    MALFORMED_JSON(400, "Malformed JSON"),
    INVALID_RECORD(400, "Invalid record"),
    INVALID_PARAMETER(400, "Invalid parameter"),
    INVALID_TOPIC_NAME(400, "Invalid topic name"),
    INVALID_TOPIC_REQUEST(400, "Invalid topic request"),
    OFFSET_BEYOND_LOG_END(400, "Offset beyond the log end"),
    INVALID_COMMIT(400, "Invalid commit"),
    FORBIDDEN(403, "Forbidden"),
    ORIGIN_NOT_ALLOWED(403, "Origin not allowed"),
    TOPIC_NOT_FOUND(404, "Topic not found"),
    PARTITION_NOT_FOUND(404, "Partition not found"),
    NOT_FOUND(404, "Not found"),
    GROUP_NOT_FOUND(404, "Group not found"),
    METHOD_NOT_ALLOWED(405, "Method not allowed"),
    NOT_ACCEPTABLE(406, "Not acceptable"),
    TOPIC_EXISTS(409, "Topic already exists"),
    CURSOR_TOPIC_CHANGED(409, "Cursor of another topic"),
    MEMBER_NOT_CONNECTED(409, "Member not connected"),
    MEMBER_IN_USE(409, "Member in use"),
    PARTITION_NOT_ASSIGNED(409, "Partition not assigned"),
    IDEMPOTENCY_KEY_IN_PROGRESS(409, "Idempotency key in progress"),
    OFFSET_BELOW_LOG_START(410, "Offset below the log start"),
    IDEMPOTENT_RESPONSE_NOT_STORED(410, "Idempotent response not stored"),
    BODY_TOO_LARGE(413, "Body too large"),
    TOO_MANY_RECORDS(413, "Too many records"),
    RECORD_TOO_LARGE(413, "Record too large"),
    UNSUPPORTED_MEDIA_TYPE(415, "Unsupported media type"),
    IDEMPOTENCY_KEY_REUSED(422, "Idempotency key reused"),
    TABLE_TOO_LARGE(422, "Table too large"),
    TOO_MANY_REQUESTS(429, "Too many requests"),
    TOO_MANY_STREAMS(429, "Too many streams"),
    INTERNAL_ERROR(500, "Internal error"),
    CLUSTER_ERROR(502, "Cluster error"),
    CLUSTER_UNAVAILABLE(503, "Cluster unavailable"),
    NOT_ENOUGH_REPLICAS(503, "Not enough replicas"),
    TOO_MANY_GROUP_STREAMS(503, "Too many group streams");

    private static final String PREFIX = "urn:tributary:problem:";

    private final int status;
    private final String title;

    ProblemType(int status, String title) {
        this.status = status;
        this.title = title;
    }

    /** The HTTP status this problem is answered with. */
    public int status() {
        return status;
    }

    /** A short, fixed, human summary (RFC 9457 {@code title}). */
    public String title() {
        return title;
    }

    /** The short name, such as {@code topic-not-found}; the last part of {@link #uri()}. */
    public String slug() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** The stable type URI, such as {@code urn:tributary:problem:topic-not-found}. */
    public URI uri() {
        return URI.create(PREFIX + slug());
    }

    /** Whether the client should retry after a pause (the answer carries {@code Retry-After}). */
    public boolean retryable() {
        return status == 503 || status == 429 || this == IDEMPOTENCY_KEY_IN_PROGRESS;
    }
}
