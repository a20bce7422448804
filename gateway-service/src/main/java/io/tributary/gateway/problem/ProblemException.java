package io.tributary.gateway.problem;

import java.util.Map;

/**
 * An operating error with its problem type: what the client did wrong, or what the cluster could not
 * do. {@code extensions} are extra members of the problem object (such as {@code parameter} or {@code
 * log_start_offset}).
 */
public class ProblemException extends RuntimeException {

    private final ProblemType type;
    private final Map<String, Object> extensions;

    public ProblemException(ProblemType type, String detail) {
        this(type, detail, Map.of(), null);
    }

    public ProblemException(ProblemType type, String detail, Map<String, Object> extensions) {
        this(type, detail, extensions, null);
    }

    public ProblemException(ProblemType type, String detail, Map<String, Object> extensions, Throwable cause) {
        super(detail, cause);
        this.type = type;
        this.extensions = Map.copyOf(extensions);
    }

    public ProblemType type() {
        return type;
    }

    public Map<String, Object> extensions() {
        return extensions;
    }

    /** A query or path parameter that is malformed or out of range. */
    public static ProblemException invalidParameter(String parameter, String detail) {
        return new ProblemException(ProblemType.INVALID_PARAMETER, detail, Map.of("parameter", parameter));
    }
}
