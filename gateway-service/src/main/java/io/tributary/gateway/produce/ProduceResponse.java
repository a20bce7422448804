package io.tributary.gateway.produce;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/** The answer to a JSON or raw produce: one result per record, in request order. */
@Schema(name = "ProduceResponse")
public record ProduceResponse(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) List<ProduceResult> results) {

    public ProduceResponse {
        results = List.copyOf(results);
    }
}
