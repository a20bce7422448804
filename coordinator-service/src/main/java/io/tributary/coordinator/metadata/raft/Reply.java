package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.metadata.CorruptCommandException;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.MetadataException.ErrorCode;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The reply to an applied command, and its encoding (the content of Ratis's reply message):
 *
 * <pre>
 * offset 0  int8   format version, 1
 * offset 1  int8   status: 0 applied, else the wire id of a {@link ErrorCode}
 * offset 2  int64  status 0: the metadata version after the command
 *           int32 length N, N bytes UTF-8: status != 0: the error message
 * </pre>
 *
 * @param metadataVersion the version after the command (status 0)
 * @param error the error (status != 0), else {@code null}
 */
record Reply(long metadataVersion, MetadataException error) {

    static final int VERSION = 1;

    static Reply applied(long metadataVersion) {
        return new Reply(metadataVersion, null);
    }

    static Reply failed(MetadataException error) {
        return new Reply(-1, error);
    }

    byte[] encode() {
        if (error == null) {
            return ByteBuffer.allocate(10)
                    .put((byte) VERSION)
                    .put((byte) 0)
                    .putLong(metadataVersion)
                    .array();
        }
        byte[] message = String.valueOf(error.getMessage()).getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(6 + message.length)
                .put((byte) VERSION)
                .put((byte) error.code().wireId())
                .putInt(message.length)
                .put(message)
                .array();
    }

    static Reply decode(byte[] bytes) {
        try {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            int version = buf.get();
            if (version != VERSION) {
                throw new CorruptCommandException("reply: unknown format version " + version);
            }
            int status = buf.get();
            Reply reply;
            if (status == 0) {
                reply = applied(buf.getLong());
            } else {
                byte[] message = new byte[buf.getInt()];
                buf.get(message);
                reply = failed(MetadataException.of(
                        ErrorCode.fromWireId(status), new String(message, StandardCharsets.UTF_8)));
            }
            if (buf.hasRemaining()) {
                throw new CorruptCommandException("reply: " + buf.remaining() + " trailing bytes");
            }
            return reply;
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw new CorruptCommandException("reply: truncated", e);
        }
    }
}
