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
 * offset 0  int8   format version: 2 for the reply to an applied AllocateProducerIds, else 1
 * offset 1  int8   status: 0 applied, else the wire id of a {@link ErrorCode}
 * offset 2  int64  status 0: the metadata version after the command
 *           int32 length N, N bytes UTF-8: status != 0: the error message
 * offset 10 int64  version 2, status 0 only: the first producer id of the block the command allocated
 * </pre>
 *
 * <p>Each reply is written in the lowest version that holds it, so replies to every command but a
 * producer id allocation keep their version-1 bytes; a reader accepts both versions.
 *
 * @param metadataVersion the version after the command (status 0)
 * @param error the error (status != 0), else {@code null}
 * @param firstProducerId the first id of the allocated producer id block, or {@link #NO_PRODUCER_ID}
 *     when the command allocated none
 */
record Reply(long metadataVersion, MetadataException error, long firstProducerId) {

    static final int VERSION = 2;
    static final int VERSION_1 = 1;

    /** {@link #firstProducerId} of a reply to a command that allocated no producer ids. */
    static final long NO_PRODUCER_ID = -1;

    static Reply applied(long metadataVersion) {
        return new Reply(metadataVersion, null, NO_PRODUCER_ID);
    }

    static Reply allocated(long metadataVersion, long firstProducerId) {
        if (firstProducerId < 0) {
            throw new IllegalArgumentException("negative first producer id " + firstProducerId);
        }
        return new Reply(metadataVersion, null, firstProducerId);
    }

    static Reply failed(MetadataException error) {
        return new Reply(-1, error, NO_PRODUCER_ID);
    }

    byte[] encode() {
        if (error == null) {
            boolean allocated = firstProducerId != NO_PRODUCER_ID;
            ByteBuffer buf = ByteBuffer.allocate(allocated ? 18 : 10)
                    .put((byte) (allocated ? VERSION : VERSION_1))
                    .put((byte) 0)
                    .putLong(metadataVersion);
            if (allocated) {
                buf.putLong(firstProducerId);
            }
            return buf.array();
        }
        byte[] message = String.valueOf(error.getMessage()).getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(6 + message.length)
                .put((byte) VERSION_1)
                .put((byte) error.code().wireId())
                .putInt(message.length)
                .put(message)
                .array();
    }

    static Reply decode(byte[] bytes) {
        try {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            int version = buf.get();
            if (version != VERSION_1 && version != VERSION) {
                throw new CorruptCommandException("reply: unknown format version " + version);
            }
            int status = buf.get();
            Reply reply;
            if (status == 0) {
                long metadataVersion = buf.getLong();
                reply = version == VERSION
                        ? allocated(metadataVersion, checkedProducerId(buf.getLong()))
                        : applied(metadataVersion);
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

    private static long checkedProducerId(long id) {
        if (id < 0) {
            throw new CorruptCommandException("reply: negative first producer id " + id);
        }
        return id;
    }
}
