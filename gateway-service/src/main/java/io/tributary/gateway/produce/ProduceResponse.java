package io.tributary.gateway.produce;

import io.swagger.v3.oas.annotations.media.Schema;
import java.nio.charset.StandardCharsets;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;

/** The answer to a JSON or raw produce: one result per record, in request order. */
@Schema(name = "ProduceResponse")
public record ProduceResponse(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) List<ProduceResult> results) {

    /** Bytes of one written record's result, about: {@code {"partition":N,"offset":N,"timestamp":"..."},}. */
    private static final int WRITTEN_RESULT_BYTES = 80;

    public ProduceResponse {
        results = List.copyOf(results);
    }

    /**
     * This answer as compact JSON, exactly as {@code json} writes it. When every record was written
     * (the answer to nearly every request) it is written here, without the mapper's per-property
     * work, which showed in the profile of batched produce at 100 records per request; a result with
     * a problem goes through {@code json}.
     */
    byte[] toJson(JsonMapper json) {
        for (ProduceResult r : results) {
            if (!r.ok()) {
                return json.writeValueAsBytes(this);
            }
        }
        StringBuilder out = new StringBuilder(16 + results.size() * WRITTEN_RESULT_BYTES);
        out.append("{\"results\":[");
        for (int i = 0; i < results.size(); i++) {
            ProduceResult r = results.get(i);
            out.append(i == 0 ? "{" : ",{");
            String sep = "";
            if (r.partition() != null) {
                out.append("\"partition\":").append(r.partition().intValue());
                sep = ",";
            }
            if (r.offset() != null) {
                out.append(sep).append("\"offset\":").append(r.offset().longValue());
                sep = ",";
            }
            if (r.timestamp() != null) {
                // RFC 3339 text (Timestamps.format): digits, '-', ':', '.', 'T' and 'Z', nothing to escape
                out.append(sep).append("\"timestamp\":\"").append(r.timestamp()).append('"');
            }
            out.append('}');
        }
        out.append("]}");
        return out.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
