package io.tributary.gateway.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * An RFC 9457 problem object as the API writes it: the whole body of an {@code
 * application/problem+json} answer, or the {@code problem} of one record's result. The optional
 * members are extensions named in the contract.
 */
@Schema(name = "Problem", description = "RFC 9457 problem details; `type` is one of the types listed in the contract.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, format = "uri")
        String type,

        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String title,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) int status,
        String detail,
        String instance,
        String parameter,
        Integer index,
        @JsonProperty("log_start_offset") Long logStartOffset) {

    /** The problem object for {@code e}. */
    public static Problem of(ProblemException e) {
        ProblemType t = e.type();
        Object parameter = e.extensions().get("parameter");
        Object index = e.extensions().get("index");
        Object logStart = e.extensions().get("log_start_offset");
        return new Problem(
                t.uri().toString(),
                t.title(),
                t.status(),
                e.getMessage(),
                null,
                parameter == null ? null : parameter.toString(),
                index instanceof Number n ? n.intValue() : null,
                logStart instanceof Number n ? n.longValue() : null);
    }

    /** The problem object for {@code type} with a detail and no extensions. */
    public static Problem of(ProblemType type, String detail) {
        return of(new ProblemException(type, detail));
    }
}
