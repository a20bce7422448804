package io.tributary.gateway.consume;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;

/**
 * The fetch answer as springdoc publishes it. The body is written by {@link
 * io.tributary.gateway.record.RecordJson#writeConsumed} (values stay bytes), so these types only
 * describe it; a test checks both against the contract and the real answers.
 */
final class FetchSchemas {

    private FetchSchemas() {}

    @Schema(
            name = "ConsumedRecord",
            description = "A record as read; used by fetch and by SSE data: (a delete event's data has no value).")
    record ConsumedRecord(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String topic,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int partition,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long offset,

            String timestamp,
            String key,
            @JsonProperty("key_b64") String keyB64,

            @Schema(description = "The value when it is valid UTF-8 JSON; null on a tombstone")
            Object value,

            @JsonProperty("value_b64") String valueB64,

            @Schema(
                    description =
                            "true on a tombstone (a null value: the key was deleted); absent on every other record")
            Boolean tombstone,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Map<String, String> headers) {}

    @Schema(name = "FetchResponse")
    record FetchResponse(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String topic,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int partition,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED) @JsonProperty("next_offset")
            long nextOffset,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<ConsumedRecord> records) {}
}
