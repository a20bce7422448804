package io.tributary.gateway.sse;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.TreeMap;

/**
 * Writes and reads a {@link StreamCursor} as an SSE event id: header-safe ({@code [A-Za-z0-9._-]}
 * only) and compact for many partitions. Stateless and thread-safe.
 *
 * <h2>Format, version 1</h2>
 *
 * <pre>
 * v1.TTTTTTTTTTTTTTTTTTTTTT.PAYLOAD
 * </pre>
 *
 * <ul>
 *   <li>{@code v1} the format version; a reader refuses any other.
 *   <li>{@code .} separator.
 *   <li>{@code T...} the topic id: exactly 22 characters, Kafka's {@code Uuid.toString()} (the 16
 *       bytes of the id as base64url without padding).
 *   <li>{@code .} separator.
 *   <li>{@code PAYLOAD}: base64url without padding ({@code [A-Za-z0-9_-]}) of these bytes:
 *       <ol>
 *         <li>{@code count}: unsigned LEB128 varint (7 bits a byte, least significant group first,
 *             high bit set on every byte but the last), the number of partitions, at least 1.
 *         <li>{@code count} times, in ascending partition order:
 *             <ol>
 *               <li>{@code partitionDelta}: unsigned varint; the first is the partition number, each
 *                   next one is the partition minus the previous partition minus 1 (so consecutive
 *                   partitions cost one zero byte).
 *               <li>{@code nextOffset}: unsigned varint, the offset of the next record to deliver
 *                   (at most 9 bytes for a non-negative long).
 *             </ol>
 *       </ol>
 *       No trailing bytes are allowed.
 * </ul>
 *
 * <p>Example: topic id {@code wE3gVQ8uQ4yq1mY3cS3h0A}, partition 0 at 43 and partition 1 at 17 are
 * the bytes {@code 02 00 2b 00 11}, so the id is {@code v1.wE3gVQ8uQ4yq1mY3cS3h0A.AgArABE}. A
 * 1,000-partition stream with offsets around a million is about 4 KB of payload, 5.4 KB of text.
 * The text is at most {@link #MAX_LENGTH} characters.
 */
public final class CursorCodec {

    /** The longest cursor text accepted (enough for about 12,000 partitions at large offsets). */
    public static final int MAX_LENGTH = 131_072;

    private static final String VERSION = "v1";
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64_DECODER = Base64.getUrlDecoder();

    private CursorCodec() {}

    /** The event id text of {@code cursor}. */
    public static String encode(StreamCursor cursor) {
        ByteArrayOutputStream out =
                new ByteArrayOutputStream(4 + cursor.nextOffsets().size() * 4);
        writeVarint(out, cursor.nextOffsets().size());
        int previous = -1;
        for (var e : cursor.nextOffsets().entrySet()) {
            writeVarint(out, (long) e.getKey() - previous - 1);
            writeVarint(out, e.getValue());
            previous = e.getKey();
        }
        return VERSION + "." + cursor.topicId() + "." + B64.encodeToString(out.toByteArray());
    }

    /** Reads an event id; {@link MalformedCursorException} when it is not one this codec wrote. */
    public static StreamCursor decode(String text) {
        if (text == null || text.isEmpty()) {
            throw new MalformedCursorException("the cursor is empty");
        }
        if (text.length() > MAX_LENGTH) {
            throw new MalformedCursorException("the cursor is longer than " + MAX_LENGTH + " characters");
        }
        String[] parts = text.split("\\.", -1);
        if (parts.length != 3) {
            throw new MalformedCursorException("a cursor has three dot-separated parts (v1.<topic id>.<offsets>)");
        }
        if (!parts[0].equals(VERSION)) {
            throw new MalformedCursorException("unknown cursor version '" + parts[0] + "'");
        }
        if (!parts[1].matches("[A-Za-z0-9_-]{22}")) {
            throw new MalformedCursorException("the topic id part is not 22 base64url characters");
        }
        if (!parts[2].matches("[A-Za-z0-9_-]+") || parts[2].length() % 4 == 1) {
            throw new MalformedCursorException("the offsets part is not base64url");
        }
        ByteBuffer in;
        try {
            in = ByteBuffer.wrap(B64_DECODER.decode(parts[2]));
        } catch (IllegalArgumentException e) {
            throw new MalformedCursorException("the offsets part is not base64url");
        }
        long count = readVarint(in);
        if (count < 1 || count > in.remaining()) {
            throw new MalformedCursorException("bad partition count " + count);
        }
        TreeMap<Integer, Long> offsets = new TreeMap<>();
        long previous = -1;
        for (long i = 0; i < count; i++) {
            long partition = previous + 1 + readVarint(in);
            if (partition > Integer.MAX_VALUE) {
                throw new MalformedCursorException("partition number out of range");
            }
            offsets.put((int) partition, readVarint(in));
            previous = partition;
        }
        if (in.hasRemaining()) {
            throw new MalformedCursorException("trailing bytes after the last partition");
        }
        if (!B64.encodeToString(in.array()).equals(parts[2])) {
            throw new MalformedCursorException("the offsets part is not in canonical base64url");
        }
        return new StreamCursor(parts[1], offsets);
    }

    /** An unsigned varint (7 bits per byte, low bits first); also {@link GroupCursorCodec}'s. */
    static void writeVarint(ByteArrayOutputStream out, long value) {
        while ((value & ~0x7FL) != 0) {
            out.write((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }

    /**
     * An unsigned varint of at most 9 bytes (63 bits: a non-negative long), in its shortest form;
     * also {@link GroupCursorCodec}'s.
     */
    static long readVarint(ByteBuffer in) {
        long value = 0;
        for (int shift = 0; shift < 63; shift += 7) {
            if (!in.hasRemaining()) {
                throw new MalformedCursorException("the offsets part ends inside a number");
            }
            int b = in.get() & 0xFF;
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (b == 0 && shift > 0) {
                    throw new MalformedCursorException("a number is not in its shortest form");
                }
                return value;
            }
        }
        throw new MalformedCursorException("a number is longer than 9 bytes");
    }
}
