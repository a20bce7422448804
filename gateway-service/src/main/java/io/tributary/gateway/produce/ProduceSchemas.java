package io.tributary.gateway.produce;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;

/**
 * The request shapes as springdoc publishes them. The bodies are read by {@link
 * io.tributary.gateway.record.RecordJson} (values stay bytes), so these types only describe them.
 */
final class ProduceSchemas {

    private ProduceSchemas() {}

    @Schema(name = "ProduceRecord", description = "A record to write.")
    record ProduceRecord(
            String key,
            @JsonProperty("key_b64") String keyB64,
            @Schema(description = "Any JSON value") Object value,
            @JsonProperty("value_b64") String valueB64,
            Map<String, String> headers,

            @Schema(description = "RFC 3339 or epoch milliseconds")
            Object timestamp,

            Integer partition) {}

    @Schema(name = "ProduceRequest")
    record ProduceRequest(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<ProduceRecord> records) {}
}
