package io.tributary.common.protocol;

import java.io.BufferedOutputStream;
import java.io.Flushable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;

/**
 * A blocking channel over a stream (a TLS socket's), buffered so that a response's many small writes
 * become few TLS records; {@link #flush()} sends what is buffered, once per response. File regions
 * reach it through {@link #transferFrom}, 64 KiB read at a time: TLS encrypts in the JVM, so there
 * is no zero-copy send on a TLS listener (as on Kafka's).
 *
 * <p>Not thread-safe: one connection's thread writes.
 */
final class OutputStreamChannel implements GatheringByteChannel, Flushable {

    /** The buffer between the response's writes and the TLS socket. */
    static final int BUFFER_BYTES = 64 * 1024;

    private final OutputStream out;
    private final byte[] copy = new byte[BUFFER_BYTES];
    private boolean open = true;

    OutputStreamChannel(OutputStream stream) {
        this.out = new BufferedOutputStream(stream, BUFFER_BYTES);
    }

    @Override
    public int write(ByteBuffer source) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        int written = source.remaining();
        if (source.hasArray()) {
            out.write(source.array(), source.arrayOffset() + source.position(), written);
            source.position(source.limit());
        } else {
            while (source.hasRemaining()) {
                int n = Math.min(copy.length, source.remaining());
                source.get(copy, 0, n);
                out.write(copy, 0, n);
            }
        }
        return written;
    }

    /**
     * Sends up to {@code count} bytes of {@code file} from {@code position}: one positional read of
     * at most {@value #BUFFER_BYTES} bytes into this channel's own array, handed to the stream as it
     * is (a {@code BufferedOutputStream} passes a write of its whole size straight through, after
     * what it holds). {@code FileChannel.transferTo} into a channel that is not a socket or a file
     * reads 8 KiB at a time into a direct buffer, which {@link #write(ByteBuffer)} then copies twice
     * more: eight reads and three copies of every byte before TLS encrypts it, against one of each.
     *
     * @return the bytes sent: more than 0 unless {@code count} is 0 or the file ends at {@code
     *     position}
     */
    long transferFrom(FileChannel file, long position, long count) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        ByteBuffer chunk = ByteBuffer.wrap(copy, 0, (int) Math.min(count, copy.length));
        while (chunk.hasRemaining()) {
            if (file.read(chunk, position + chunk.position()) < 0) {
                break; // the file ends inside the region: send what there is
            }
        }
        out.write(copy, 0, chunk.position());
        return chunk.position();
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        long written = 0;
        for (int i = offset; i < offset + length; i++) {
            written += write(sources[i]);
        }
        return written;
    }

    @Override
    public long write(ByteBuffer[] sources) throws IOException {
        return write(sources, 0, sources.length);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() throws IOException {
        open = false;
        out.close();
    }
}
