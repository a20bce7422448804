package io.tributary.gateway.sse;

import io.tributary.gateway.record.RecordJson;
import java.io.ByteArrayOutputStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * The SSE event of one consumed record, before it has an id: its name and its {@code data:} line.
 * A record with a value is {@code event: record} with the record's {@code ConsumedRecord} JSON
 * ({@link RecordJson#writeConsumed}); a tombstone (Kafka's null value: the key was deleted, what a
 * compacted topic keeps until {@code delete.retention.ms}) is {@code event: delete} with the
 * record's JSON without a value ({@link RecordJson#writeDeleted}). Topic and group streams write
 * both the same way ({@link SseFrames#event}), each with the stream's cursor as its id, so a
 * tombstone moves the position as a record does. The bytes of a delete event:
 *
 * <pre>
 * event: delete\n
 * id: v1.wE3gVQ8uQ4yq1mY3cS3h0A.AgAsABE\n
 * data: {"topic":"orders","partition":0,"offset":43,"timestamp":"2026-11-29T21:00:01.000Z","key":"customer-7","headers":{}}\n
 * \n
 * </pre>
 *
 * @param name the event's name: {@link #RECORD} or {@link #DELETE}
 * @param data the event's {@code data:} line (JSON, no line break)
 */
public record RecordEvent(String name, byte[] data) {

    /** The event of a record with a value. */
    public static final String RECORD = "record";

    /** The event of a tombstone (a record with a null value). */
    public static final String DELETE = "delete";

    private static final JsonFactory JSON = JsonFactory.builder().build();

    public RecordEvent {
        if (!RECORD.equals(name) && !DELETE.equals(name)) {
            throw new IllegalArgumentException("not a record event: " + name);
        }
    }

    /** The event of {@code r}: {@code delete} when its value is null, else {@code record}. */
    public static RecordEvent of(ConsumerRecord<byte[], byte[]> r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out)) {
            if (r.value() == null) {
                RecordJson.writeDeleted(g, r);
            } else {
                RecordJson.writeConsumed(g, r);
            }
        }
        return new RecordEvent(r.value() == null ? DELETE : RECORD, out.toByteArray());
    }

    /** An event of a record with a value whose JSON is {@code data}. */
    public static RecordEvent record(byte[] data) {
        return new RecordEvent(RECORD, data);
    }

    /** The bytes of this event's frame with {@code id}. */
    byte[] frame(String id) {
        return SseFrames.event(name, id, data);
    }
}
