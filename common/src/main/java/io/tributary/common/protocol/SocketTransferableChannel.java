package io.tributary.common.protocol;

import java.io.Flushable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import org.apache.kafka.common.network.TransferableChannel;

/**
 * Lets kafka-clients' {@code Send} write to a blocking socket. File regions in a response (fetched
 * segment bytes) go through {@link FileChannel#transferTo}, which the kernel does without copying
 * them through the JVM (sendfile) when the target is a socket. The broker's benchmarks also put a
 * {@code FileChannel} on {@code /dev/null} behind it, which is why it takes any blocking gathering
 * channel; {@link #close()} closes that channel.
 *
 * <p>Not thread-safe: one connection's thread writes.
 */
public class SocketTransferableChannel implements TransferableChannel {

    private final GatheringByteChannel socket;

    /** @param socket a blocking channel (a connected {@code SocketChannel} in the broker) */
    public SocketTransferableChannel(GatheringByteChannel socket) {
        this.socket = socket;
    }

    @Override
    public boolean hasPendingWrites() {
        return false;
    }

    @Override
    public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
        return fileChannel.transferTo(position, count, socket);
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

    /** Sends what a buffering channel holds (a TLS connection's); nothing to do for a socket. */
    public void flush() throws IOException {
        if (socket instanceof Flushable flushable) {
            flushable.flush();
        }
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
