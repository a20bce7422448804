package io.tributary.gateway.table;

import java.io.ByteArrayOutputStream;
import java.util.SortedMap;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * The end of a table: the last NDJSON line of {@code GET /v1/topics/{topic}/table} and the data of
 * the SSE {@code snapshot-end} event. One line of JSON (UTF-8, no line break), members in this
 * order:
 *
 * <pre>
 * {"cursor":"v1.wE3gVQ8uQ4yq1mY3cS3h0A.AgArABE","next_offsets":{"0":43,"1":17},"records":2}
 * </pre>
 *
 * <ul>
 *   <li>{@code cursor}: the offset vector as an SSE stream cursor ({@code sse.CursorCodec}); {@code
 *       GET /v1/topics/{topic}/events?cursor=} continues exactly after the table;
 *   <li>{@code next_offsets}: the same vector, each partition (a decimal string, ascending) to the
 *       offset where its records after the table start (the {@code offset} of the long-poll fetch);
 *   <li>{@code records}: how many live keys the table had.
 * </ul>
 *
 * Stateless.
 */
public final class TableJson {

    private static final JsonFactory JSON = JsonFactory.builder().build();

    private TableJson() {}

    /** The end line's bytes, without a line break. */
    public static byte[] end(String cursor, SortedMap<Integer, Long> vector, long records) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out)) {
            g.writeStartObject();
            g.writeStringProperty("cursor", cursor);
            g.writeName("next_offsets");
            g.writeStartObject();
            for (var e : vector.entrySet()) {
                g.writeNumberProperty(Integer.toString(e.getKey()), e.getValue());
            }
            g.writeEndObject();
            g.writeNumberProperty("records", records);
            g.writeEndObject();
        }
        return out.toByteArray();
    }
}
