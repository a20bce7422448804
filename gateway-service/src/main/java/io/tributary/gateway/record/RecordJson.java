package io.tributary.gateway.record;

import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Reads produce bodies and writes consumed records (see the package documentation for the rules).
 *
 * <p>Values are never decoded into a tree: the parser reports where the {@code value} token starts
 * and ends in the body, and those bytes are the record's value, unchanged. Thread-safe.
 */
public final class RecordJson {

    private static final JsonFactory JSON = JsonFactory.builder().build();

    /** Eight bytes of a body at a time, for {@link #closingQuote}. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    private final int maxRecords;
    private final long maxRecordBytes;

    /**
     * @param maxRecords the most records one body may hold ({@code too-many-records} above)
     * @param maxRecordBytes the most bytes of key, value and headers of one record ({@code
     *     record-too-large} above)
     */
    public RecordJson(int maxRecords, long maxRecordBytes) {
        if (maxRecords < 1 || maxRecordBytes < 1) {
            throw new IllegalArgumentException("limits must be positive: " + maxRecords + ", " + maxRecordBytes);
        }
        this.maxRecords = maxRecords;
        this.maxRecordBytes = maxRecordBytes;
    }

    /** The records of an {@code application/json} body: one record object, or {@code {"records":[...]}}. */
    public List<OutgoingRecord> readBody(byte[] body) {
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), body)) {
            JsonToken start = p.nextToken();
            if (start == null) {
                throw new ProblemException(ProblemType.MALFORMED_JSON, "The body is empty.");
            }
            expect(start == JsonToken.START_OBJECT, "the body must be a JSON object", -1);
            List<OutgoingRecord> records;
            JsonToken first = p.nextToken();
            if (first == JsonToken.PROPERTY_NAME && "records".equals(p.currentName())) {
                expect(p.nextToken() == JsonToken.START_ARRAY, "records must be an array", -1);
                records = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    int index = records.size();
                    if (index >= maxRecords) {
                        throw new ProblemException(
                                ProblemType.TOO_MANY_RECORDS,
                                "More than %d records in one request; the limit is %d."
                                        .formatted(maxRecords, maxRecords));
                    }
                    expect(p.currentToken() == JsonToken.START_OBJECT, "each record must be a JSON object", index);
                    p.nextToken();
                    records.add(readFields(p, body, index));
                }
                JsonToken after = p.nextToken();
                expect(after == JsonToken.END_OBJECT, "a batch has no field but records", -1);
            } else {
                records = List.of(readFields(p, body, -1));
            }
            if (p.nextToken() != null) {
                throw new ProblemException(ProblemType.MALFORMED_JSON, "Content after the end of the JSON body.");
            }
            return records;
        } catch (JacksonException e) {
            throw malformed(e);
        }
    }

    /** One NDJSON line: a record object. {@code index} (0-based line number) goes into problems. */
    public OutgoingRecord readLine(byte[] line, int index) {
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), line)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "each line must be a JSON object", index);
            p.nextToken();
            OutgoingRecord record = readFields(p, line, index);
            if (p.nextToken() != null) {
                throw new ProblemException(
                        ProblemType.MALFORMED_JSON, "Content after the record on line " + (index + 1) + ".");
            }
            return record;
        } catch (JacksonException e) {
            throw malformed(e);
        }
    }

    /** Reads the fields of a record object; the parser is on its first field (or its end). */
    private OutgoingRecord readFields(JsonParser p, byte[] body, int index) {
        byte[] key = null;
        byte[] value = null;
        boolean hasKey = false;
        boolean hasValue = false;
        List<Header> headers = new ArrayList<>();
        OptionalLong timestamp = OptionalLong.empty();
        OptionalInt partition = OptionalInt.empty();
        for (JsonToken t = p.currentToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            switch (field) {
                case "key" -> {
                    expect(!hasKey, "give key or key_b64, not both", index);
                    hasKey = true;
                    expect(
                            v == JsonToken.VALUE_STRING || v == JsonToken.VALUE_NULL,
                            "key must be a string (use key_b64 for bytes)",
                            index);
                    key = v == JsonToken.VALUE_NULL ? null : p.getString().getBytes(StandardCharsets.UTF_8);
                }
                case "key_b64" -> {
                    expect(!hasKey, "give key or key_b64, not both", index);
                    hasKey = true;
                    key = base64(p, v, "key_b64", index);
                }
                case "value" -> {
                    expect(!hasValue, "give value or value_b64, not both", index);
                    hasValue = true;
                    value = v == JsonToken.VALUE_NULL ? null : rawValue(p, body);
                }
                case "value_b64" -> {
                    expect(!hasValue, "give value or value_b64, not both", index);
                    hasValue = true;
                    value = base64(p, v, "value_b64", index);
                }
                case "headers" -> {
                    expect(v == JsonToken.START_OBJECT, "headers must be an object of strings", index);
                    for (JsonToken h = p.nextToken(); h != JsonToken.END_OBJECT; h = p.nextToken()) {
                        String name = p.currentName();
                        JsonToken hv = p.nextToken();
                        expect(
                                hv == JsonToken.VALUE_STRING || hv == JsonToken.VALUE_NULL,
                                "header " + name + " must be a string or null",
                                index);
                        headers.add(new RecordHeader(
                                name,
                                hv == JsonToken.VALUE_NULL
                                        ? null
                                        : p.getString().getBytes(StandardCharsets.UTF_8)));
                    }
                }
                case "timestamp" -> {
                    OptionalLong ms = OptionalLong.empty();
                    if (v == JsonToken.VALUE_NUMBER_INT) {
                        ms = OptionalLong.of(p.getLongValue());
                    } else if (v == JsonToken.VALUE_STRING) {
                        ms = Timestamps.parse(p.getString());
                    }
                    expect(
                            ms.isPresent() && ms.getAsLong() >= 0,
                            "timestamp must be RFC 3339 or epoch milliseconds (0 or more)",
                            index);
                    timestamp = ms;
                }
                case "partition" -> {
                    expect(v == JsonToken.VALUE_NUMBER_INT, "partition must be an integer", index);
                    long n = p.getLongValue();
                    expect(n >= 0 && n <= Integer.MAX_VALUE, "partition must be 0 or more", index);
                    partition = OptionalInt.of((int) n);
                }
                default -> throw invalid("unknown field '" + field + "'", index);
            }
        }
        OutgoingRecord record = new OutgoingRecord(partition, key, value, headers, timestamp);
        if (record.sizeBytes() > maxRecordBytes) {
            throw new ProblemException(
                    ProblemType.RECORD_TOO_LARGE,
                    "%s has %d bytes of key, value and headers; the limit is %d."
                            .formatted(where(index), record.sizeBytes(), maxRecordBytes),
                    index < 0 ? Map.of() : Map.of("index", index));
        }
        return record;
    }

    /** The exact bytes of the JSON value the parser is on. */
    private static byte[] rawValue(JsonParser p, byte[] body) {
        int from = (int) p.currentTokenLocation().getByteOffset();
        JsonToken t = p.currentToken();
        int to;
        if (t.isScalarValue() && t != JsonToken.VALUE_STRING) {
            // numbers and literals are ASCII; the parser may already have read a byte past them
            to = from + p.getText().length();
        } else {
            if (t == JsonToken.VALUE_STRING) {
                int close = closingQuote(body, from);
                if (close >= 0) {
                    // The parser reads a string lazily: it is not decoded here, and the parser's next
                    // token skips it, checking it as it goes (escapes, control characters, UTF-8).
                    return Arrays.copyOfRange(body, from, close + 1);
                }
                p.getString(); // not a whole string in the body: let the parser report what is wrong
            } else {
                p.skipChildren();
            }
            to = (int) Math.min(p.currentLocation().getByteOffset(), body.length);
        }
        return Arrays.copyOfRange(body, from, to);
    }

    /**
     * Where the JSON string starting with the quote at {@code open} ends (its closing quote), or -1
     * when the body ends first. Only the quote and the backslash matter: in UTF-8 every byte of a
     * multi-byte character is 0x80 or more, so neither appears inside one. Eight bytes are looked at
     * a time while none of them is either (a value is mostly plain text).
     */
    static int closingQuote(byte[] body, int open) {
        if (open < 0 || open >= body.length || body[open] != '"') {
            return -1;
        }
        int i = open + 1;
        while (true) {
            while (i <= body.length - Long.BYTES && !quoteOrBackslashIn((long) LONGS.get(body, i))) {
                i += Long.BYTES;
            }
            if (i >= body.length) {
                return -1;
            }
            byte b = body[i];
            if (b == '"') {
                return i;
            }
            // the escaped character (a quote, a backslash, the u of a unicode escape) is no end
            i += b == '\\' ? 2 : 1;
        }
    }

    /** Whether one of the eight bytes of {@code word} is a quote (0x22) or a backslash (0x5C). */
    private static boolean quoteOrBackslashIn(long word) {
        long quotes = word ^ (ONES * '"');
        long backslashes = word ^ (ONES * '\\');
        // some byte of x is zero exactly when (x - ONES) & ~x has a high bit set (a borrow reaching a 0 byte)
        return (((quotes - ONES) & ~quotes | (backslashes - ONES) & ~backslashes) & HIGHS) != 0;
    }

    private static byte[] base64(JsonParser p, JsonToken v, String field, int index) {
        expect(v == JsonToken.VALUE_STRING, field + " must be a base64 string", index);
        try {
            return Base64.getDecoder().decode(p.getString());
        } catch (IllegalArgumentException e) {
            throw invalid(field + " is not valid base64: " + e.getMessage(), index);
        }
    }

    /**
     * Writes {@code record} as a {@code ConsumedRecord} object (a fetch answer's record, an SSE
     * {@code record} event's data). Keys and header values that are not UTF-8 text come out as {@code
     * key_b64} or with U+FFFD replacements; values as {@code value} when they are valid UTF-8 JSON
     * (line breaks become spaces), otherwise as {@code value_b64}. A tombstone (Kafka's null value)
     * is {@code "value":null} followed by {@code "tombstone":true}; no other record has {@code
     * tombstone}. The fields, in this order:
     *
     * <pre>
     * {"topic":"orders",                       the topic's name
     *  "partition":0,                          the partition
     *  "offset":42,                            the record's offset
     *  "timestamp":"2026-11-29T21:00:00.123Z", RFC 3339 (UTC, milliseconds), or null (no timestamp)
     *  "key":"customer-7",                     UTF-8 text or null (no key); key_b64 instead when not UTF-8
     *  "value":{"total":12.5},                 the JSON text as stored; value_b64 instead when not JSON;
     *                                          null on a tombstone, then "tombstone":true
     *  "headers":{"h":"v"}}                    every header, UTF-8 text or null; a repeated name: the last
     * </pre>
     */
    public static void writeConsumed(JsonGenerator g, ConsumerRecord<byte[], byte[]> record) {
        writeRecord(g, record, ValueField.WRITTEN);
    }

    /**
     * Writes the tombstone {@code record} (its value is null) as the data of an SSE {@code delete}
     * event: the fields of {@link #writeConsumed} without {@code value}, {@code value_b64} and {@code
     * tombstone} (the event's name says it):
     *
     * <pre>
     * {"topic":"orders","partition":0,"offset":43,"timestamp":"2026-11-29T21:00:01.000Z","key":"customer-7","headers":{}}
     * </pre>
     */
    public static void writeDeleted(JsonGenerator g, ConsumerRecord<byte[], byte[]> record) {
        if (record.value() != null) {
            throw new IllegalArgumentException("not a tombstone: " + record.topic() + "-" + record.partition()
                    + " offset " + record.offset() + " has a value");
        }
        writeRecord(g, record, ValueField.LEFT_OUT);
    }

    /** Whether a record's JSON has its value (and on a tombstone the {@code tombstone} flag). */
    private enum ValueField {
        WRITTEN,
        LEFT_OUT
    }

    private static void writeRecord(JsonGenerator g, ConsumerRecord<byte[], byte[]> record, ValueField valueField) {
        g.writeStartObject();
        g.writeStringProperty("topic", record.topic());
        g.writeNumberProperty("partition", record.partition());
        g.writeNumberProperty("offset", record.offset());
        Optional<String> ts = Timestamps.format(record.timestamp());
        if (ts.isPresent()) {
            g.writeStringProperty("timestamp", ts.get());
        } else {
            g.writeNullProperty("timestamp");
        }
        byte[] key = record.key();
        if (key == null) {
            g.writeNullProperty("key");
        } else {
            Optional<String> text = utf8(key);
            if (text.isPresent()) {
                g.writeStringProperty("key", text.get());
            } else {
                g.writeStringProperty("key_b64", Base64.getEncoder().encodeToString(key));
            }
        }
        if (valueField == ValueField.WRITTEN) {
            writeValue(g, record.value());
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header h : record.headers()) {
            headers.remove(h.key());
            headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
        }
        g.writeName("headers");
        g.writeStartObject();
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getValue() == null) {
                g.writeNullProperty(h.getKey());
            } else {
                g.writeStringProperty(h.getKey(), h.getValue());
            }
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void writeValue(JsonGenerator g, byte[] value) {
        if (value == null) {
            g.writeNullProperty("value");
            g.writeBooleanProperty("tombstone", true);
            return;
        }
        Optional<String> json = jsonText(value);
        if (json.isPresent()) {
            g.writeName("value");
            g.writeRawValue(json.get());
        } else {
            g.writeStringProperty("value_b64", Base64.getEncoder().encodeToString(value));
        }
    }

    /** Bytes of key, value and headers of a consumed record (what {@code max_bytes} counts). */
    public static long sizeBytes(ConsumerRecord<byte[], byte[]> record) {
        long size = Math.max(0, record.serializedKeySize()) + Math.max(0, record.serializedValueSize());
        for (Header h : record.headers()) {
            size += h.key().length() + (h.value() == null ? 0 : h.value().length);
        }
        return size;
    }

    /** The value as one line of JSON text when it is valid UTF-8 JSON (exactly one JSON value). */
    static Optional<String> jsonText(byte[] value) {
        Optional<String> text = utf8(value);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), text.get())) {
            JsonToken first = p.nextToken();
            if (first == null || first == JsonToken.VALUE_NULL) {
                // the text "null" is not written as "value": null, which is how a tombstone reads
                return Optional.empty();
            }
            p.skipChildren();
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                p.getString();
            }
            if (p.nextToken() != null) {
                return Optional.empty();
            }
        } catch (JacksonException e) {
            return Optional.empty();
        }
        // Valid JSON has no raw line breaks inside strings, so these are whitespace between tokens.
        return Optional.of(text.get().replace('\n', ' ').replace('\r', ' ').strip());
    }

    private static Optional<String> utf8(byte[] bytes) {
        try {
            CharBuffer chars = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            return Optional.of(chars.toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    private static void expect(boolean condition, String what, int index) {
        if (!condition) {
            throw invalid(what, index);
        }
    }

    private static ProblemException invalid(String what, int index) {
        return new ProblemException(
                ProblemType.INVALID_RECORD,
                where(index) + ": " + what + ".",
                index < 0 ? Map.of() : Map.of("index", index));
    }

    private static String where(int index) {
        return index < 0 ? "The record" : "Record " + index;
    }

    private static ProblemException malformed(JacksonException e) {
        return new ProblemException(
                ProblemType.MALFORMED_JSON, "Not valid JSON: " + e.getOriginalMessage(), Map.of(), e);
    }
}
