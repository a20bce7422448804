package io.tributary.common.protocol;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;

/**
 * Lets kafka-clients' {@code Send} write to a blocking socket. File regions in a response (fetched
 * segment bytes) go through {@link FileChannel#transferTo}, which the kernel does without copying
 * them through the JVM (sendfile) when the target is a socket. The broker's benchmarks also put a
 * {@code FileChannel} on {@code /dev/null} behind it, which is why it takes any blocking gathering
 * channel; {@link #close()} closes that channel. It holds nothing back, so {@link #flush()} has
 * nothing to do. (A TLS listener's connections answer through {@link TlsChannel} instead: TLS
 * encrypts in the JVM, so there is no sendfile there.)
 *
 * <p>Waiting for room in the socket's send buffer: on a virtual thread (a plaintext connection's by
 * default) the
 * JDK runs a blocking socket non-blocking underneath and parks the thread while a {@code write}
 * cannot go on, but {@code FileChannel.transferTo} does not park: when sendfile finds the send
 * buffer full it returns 0 at once, and a {@code Send} called again at once would spin a carrier
 * thread for as long as the client takes to read (a slow consumer far away: seconds of a core).
 * So when {@code transferTo} sends nothing, {@link #transferFrom} reads the next {@value
 * #WAIT_CHUNK_BYTES} bytes of the region and writes them with a blocking write, which parks until
 * the client made room; sendfile takes over again for the rest.
 *
 * <p>Not thread-safe: one connection's thread writes.
 */
public class SocketTransferableChannel implements ResponseChannel {

    /** What one blocking write sends when sendfile found the socket's send buffer full. */
    static final int WAIT_CHUNK_BYTES = 16 * 1024;

    private final GatheringByteChannel socket;
    private ByteBuffer waitChunk;

    /** @param socket a blocking channel (a connected {@code SocketChannel} in the broker) */
    public SocketTransferableChannel(GatheringByteChannel socket) {
        this.socket = socket;
    }

    @Override
    public boolean hasPendingWrites() {
        return false;
    }

    /**
     * Sends up to {@code count} bytes of {@code fileChannel} from {@code position}; more than 0
     * unless {@code count} is 0 or the file ends at {@code position}: when sendfile finds no room,
     * the next bytes go out through a blocking write that waits for it (see the class comment).
     */
    @Override
    public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
        long sent = fileChannel.transferTo(position, count, socket);
        if (sent > 0 || count <= 0) {
            return sent;
        }
        if (waitChunk == null) {
            waitChunk = ByteBuffer.allocate(WAIT_CHUNK_BYTES);
        }
        ByteBuffer chunk = waitChunk.clear().limit((int) Math.min(count, WAIT_CHUNK_BYTES));
        while (chunk.hasRemaining()) {
            if (fileChannel.read(chunk, position + chunk.position()) < 0) {
                break; // the file ends inside the region: send what there is
            }
        }
        chunk.flip();
        int written = chunk.remaining();
        while (chunk.hasRemaining()) {
            socket.write(chunk);
        }
        return written;
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        return socket.write(sources, offset, length);
    }

    @Override
    public long write(ByteBuffer[] sources) throws IOException {
        return socket.write(sources);
    }

    @Override
    public int write(ByteBuffer source) throws IOException {
        return socket.write(source);
    }

    /** Nothing to do: every write went to the socket. */
    @Override
    public void flush() {}

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
