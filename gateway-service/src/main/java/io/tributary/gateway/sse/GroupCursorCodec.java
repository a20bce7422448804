package io.tributary.gateway.sse;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Writes and reads a {@link GroupCursor} as the event id of a group stream: header-safe ({@code
 * [A-Za-z0-9._-]} only) and compact for many partitions of several topics. Stateless, thread-safe.
 *
 * <h2>Format, version g1</h2>
 *
 * <pre>
 * g1.PAYLOAD
 * </pre>
 *
 * <ul>
 *   <li>{@code g1}: the format version (group streams); a reader refuses any other.
 *   <li>{@code .} separator.
 *   <li>{@code PAYLOAD}: base64url without padding of these bytes:
 *       <ol>
 *         <li>{@code lineage}: 8 bytes, the stream lineage (a signed 64-bit number, big-endian).
 *         <li>{@code topicCount}: unsigned LEB128 varint (7 bits a byte, least significant group
 *             first, high bit on every byte but the last, shortest form), may be 0.
 *         <li>{@code topicCount} times, in ascending order of the topic id's text:
 *             <ol>
 *               <li>{@code topicId}: 16 bytes, the topic's {@code Uuid} (most significant byte first;
 *                   its text form is these bytes as base64url without padding).
 *               <li>{@code count}: varint, at least 1: partitions of this topic in the cursor.
 *               <li>{@code count} times, in ascending partition order: {@code partitionDelta} (the
 *                   first is the partition number, each next one the partition minus the previous
 *                   minus 1) and {@code nextOffset}, both varints.
 *             </ol>
 *       </ol>
 *       No trailing bytes.
 * </ul>
 *
 * <p>Example: lineage 1, topic {@code wE3gVQ8uQ4yq1mY3cS3h0A} with partition 0 at 43 and partition 1
 * at 17: bytes {@code 00 00 00 00 00 00 00 01 01 <16 id bytes> 02 00 2b 00 11}, id {@code
 * g1.AAAAAAAAAAEBwE3gVQ8uQ4yq1mY3cS3h0AIAKwAR}. A cursor is at most {@link CursorCodec#MAX_LENGTH}
 * characters.
 */
public final class GroupCursorCodec {

    private static final String VERSION = "g1";
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64_DECODER = Base64.getUrlDecoder();

    private GroupCursorCodec() {}

    /** The event id text of {@code cursor}. */
    public static String encode(GroupCursor cursor) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(32);
        out.writeBytes(ByteBuffer.allocate(8).putLong(cursor.lineage()).array());
        CursorCodec.writeVarint(out, cursor.nextOffsets().size());
        for (Map.Entry<String, SortedMap<Integer, Long>> t :
                cursor.nextOffsets().entrySet()) {
            out.writeBytes(B64_DECODER.decode(t.getKey()));
            CursorCodec.writeVarint(out, t.getValue().size());
            int previous = -1;
            for (Map.Entry<Integer, Long> e : t.getValue().entrySet()) {
                CursorCodec.writeVarint(out, (long) e.getKey() - previous - 1);
                CursorCodec.writeVarint(out, e.getValue());
                previous = e.getKey();
            }
        }
        return VERSION + "." + B64.encodeToString(out.toByteArray());
    }

    /** Reads an event id; {@link MalformedCursorException} when it is not one this codec wrote. */
    public static GroupCursor decode(String text) {
        if (text == null || text.isEmpty()) {
            throw new MalformedCursorException("the cursor is empty");
        }
        if (text.length() > CursorCodec.MAX_LENGTH) {
            throw new MalformedCursorException("the cursor is longer than " + CursorCodec.MAX_LENGTH + " characters");
        }
        String[] parts = text.split("\\.", -1);
        if (parts.length != 2) {
            throw new MalformedCursorException("a group cursor has two dot-separated parts (g1.<offsets>)");
        }
        if (!parts[0].equals(VERSION)) {
            throw new MalformedCursorException("unknown group cursor version '" + parts[0] + "'");
        }
        if (!parts[1].matches("[A-Za-z0-9_-]+") || parts[1].length() % 4 == 1) {
            throw new MalformedCursorException("the offsets part is not base64url");
        }
        byte[] bytes;
        try {
            bytes = B64_DECODER.decode(parts[1]);
        } catch (IllegalArgumentException e) {
            throw new MalformedCursorException("the offsets part is not base64url");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        if (in.remaining() < 9) {
            throw new MalformedCursorException("the offsets part is too short");
        }
        long lineage = in.getLong();
        long topics = CursorCodec.readVarint(in);
        if (topics > in.remaining() / 18) {
            throw new MalformedCursorException("bad topic count " + topics);
        }
        TreeMap<String, SortedMap<Integer, Long>> offsets = new TreeMap<>();
        String previousTopic = null;
        for (long t = 0; t < topics; t++) {
            if (in.remaining() < 16) {
                throw new MalformedCursorException("the offsets part ends inside a topic id");
            }
            byte[] id = new byte[16];
            in.get(id);
            String topicId = B64.encodeToString(id);
            if (previousTopic != null && topicId.compareTo(previousTopic) <= 0) {
                throw new MalformedCursorException("topics are not in ascending order");
            }
            previousTopic = topicId;
            long count = CursorCodec.readVarint(in);
            if (count < 1 || count > in.remaining()) {
                throw new MalformedCursorException("bad partition count " + count);
            }
            TreeMap<Integer, Long> partitions = new TreeMap<>();
            long previous = -1;
            for (long i = 0; i < count; i++) {
                long partition = previous + 1 + CursorCodec.readVarint(in);
                if (partition > Integer.MAX_VALUE) {
                    throw new MalformedCursorException("partition number out of range");
                }
                partitions.put((int) partition, CursorCodec.readVarint(in));
                previous = partition;
            }
            offsets.put(topicId, partitions);
        }
        if (in.hasRemaining()) {
            throw new MalformedCursorException("trailing bytes after the last partition");
        }
        if (!B64.encodeToString(bytes).equals(parts[1])) {
            throw new MalformedCursorException("the offsets part is not in canonical base64url");
        }
        return new GroupCursor(lineage, offsets);
    }
}
