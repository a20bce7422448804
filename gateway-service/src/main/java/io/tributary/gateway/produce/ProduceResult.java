package io.tributary.gateway.produce;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import io.tributary.gateway.problem.Problem;

/**
 * Where one record went ({@code partition}, {@code offset}, {@code timestamp}) or why it did not
 * ({@code problem}). {@code offset} is absent with {@code acks=none} (no
 * offset is known).
 */
@Schema(name = "ProduceResult")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProduceResult(Integer partition, Long offset, String timestamp, Problem problem) {

    static ProduceResult failed(Problem problem) {
        return new ProduceResult(null, null, null, problem);
    }

    boolean ok() {
        return problem == null;
    }
}
