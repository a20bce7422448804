package io.tributary.coordinator.metadata;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The primitives of Tributary's metadata encodings (commands, replies, snapshots), all big-endian:
 *
 * <pre>
 * int8, int32, int64     two's complement, big-endian
 * string                 int32 length N (0..), then N bytes of UTF-8
 * optional string        int8 0 (absent) | int8 1, then string
 * uuid                   int64 most significant bits, int64 least significant bits
 * int list               int32 count N, then N int32
 * string map             int32 count N, then N (string key, string value), keys in ascending order
 * string list            int32 count N, then N string
 * bytes                  int32 length N (0..), then N bytes (opaque)
 * </pre>
 *
 * <p>Thread-safety: a {@link Writer} or {@link Reader} belongs to one thread.
 */
final class Bytes {

    private Bytes() {}

    static final class Writer {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        private final DataOutputStream out = new DataOutputStream(bytes);

        Writer int8(int v) {
            return io(() -> out.writeByte(v));
        }

        Writer int32(int v) {
            return io(() -> out.writeInt(v));
        }

        Writer int64(long v) {
            return io(() -> out.writeLong(v));
        }

        Writer string(String s) {
            return bytes(s.getBytes(StandardCharsets.UTF_8));
        }

        Writer optionalString(Optional<String> s) {
            if (s.isEmpty()) {
                return int8(0);
            }
            return int8(1).string(s.get());
        }

        Writer bytes(byte[] b) {
            int32(b.length);
            return io(() -> out.write(b));
        }

        Writer uuid(UUID id) {
            return int64(id.getMostSignificantBits()).int64(id.getLeastSignificantBits());
        }

        Writer intList(List<Integer> list) {
            int32(list.size());
            list.forEach(this::int32);
            return this;
        }

        Writer stringList(List<String> list) {
            int32(list.size());
            list.forEach(this::string);
            return this;
        }

        Writer stringMap(Map<String, String> map) {
            SortedMap<String, String> sorted = new TreeMap<>(map);
            int32(sorted.size());
            sorted.forEach((k, v) -> string(k).string(v));
            return this;
        }

        byte[] toByteArray() {
            return bytes.toByteArray();
        }

        private interface IoAction {
            void run() throws IOException;
        }

        private Writer io(IoAction action) {
            try {
                action.run();
            } catch (IOException e) {
                throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
            }
            return this;
        }
    }

    static final class Reader {
        private final ByteBuffer buf;
        private final String what;

        Reader(byte[] bytes, String what) {
            this.buf = ByteBuffer.wrap(bytes);
            this.what = what;
        }

        int int8() {
            return guard(() -> (int) buf.get());
        }

        int int32() {
            return guard(buf::getInt);
        }

        long int64() {
            return guard(buf::getLong);
        }

        /** A count of elements that each take at least {@code minBytes}, checked against what is left. */
        int count(int minBytes) {
            int n = int32();
            if (n < 0 || (long) n * minBytes > buf.remaining()) {
                throw corrupt("count " + n + " at position " + (buf.position() - 4));
            }
            return n;
        }

        String string() {
            return new String(bytes(), StandardCharsets.UTF_8);
        }

        byte[] bytes() {
            byte[] b = new byte[count(1)];
            buf.get(b);
            return b;
        }

        Optional<String> optionalString() {
            int flag = int8();
            return switch (flag) {
                case 0 -> Optional.empty();
                case 1 -> Optional.of(string());
                default -> throw corrupt("optional flag " + flag + " at position " + (buf.position() - 1));
            };
        }

        UUID uuid() {
            return new UUID(int64(), int64());
        }

        List<Integer> intList() {
            int n = count(4);
            List<Integer> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(int32());
            }
            return list;
        }

        List<String> stringList() {
            int n = count(4);
            List<String> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(string());
            }
            return list;
        }

        SortedMap<String, String> stringMap() {
            int n = count(8);
            SortedMap<String, String> map = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                map.put(string(), string());
            }
            return map;
        }

        int position() {
            return buf.position();
        }

        void expectEnd() {
            if (buf.hasRemaining()) {
                throw corrupt(buf.remaining() + " trailing bytes at position " + buf.position());
            }
        }

        CorruptCommandException corrupt(String detail) {
            return new CorruptCommandException(what + ": " + detail);
        }

        private interface Read<T> {
            T get();
        }

        private <T> T guard(Read<T> read) {
            try {
                return read.get();
            } catch (BufferUnderflowException e) {
                throw new CorruptCommandException(what + ": truncated at position " + buf.position(), e);
            }
        }
    }
}
