package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SocketTransferableChannel#transferFrom} on a connection's virtual thread, towards a client
 * that reads slower than the file is sent: the socket's send buffer fills up (sendfile finds no
 * room), and the channel must wait for the client instead of answering 0 (on which a {@code Send}
 * would call it again at once, spinning a carrier thread); every byte arrives, in order.
 */
class SocketTransferableChannelTest {

    private static final int FILE_BYTES = 8 << 20;

    @TempDir
    Path dir;

    @Test
    void aFullSendBufferIsWaitedForNotAnsweredWithNothingSent() throws Exception {
        Path file = dir.resolve("segment");
        byte[] content = new byte[FILE_BYTES];
        new Random(42).nextBytes(content);
        Files.write(file, content);
        try (ServerSocketChannel server = ServerSocketChannel.open();
                SocketChannel client = SocketChannel.open();
                FileChannel segment = FileChannel.open(file, StandardOpenOption.READ)) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client.setOption(StandardSocketOptions.SO_RCVBUF, 16 * 1024);
            client.connect(server.getLocalAddress());
            SocketChannel accepted = server.accept();
            accepted.setOption(StandardSocketOptions.SO_SNDBUF, 16 * 1024);
            AtomicInteger calls = new AtomicInteger();
            AtomicInteger answeredNothing = new AtomicInteger();
            CompletableFuture<Void> sent = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try (var channel = new SocketTransferableChannel(accepted)) {
                    // as a connection's thread does: read the request first (on a virtual thread
                    // the JDK runs the socket non-blocking underneath from its first use)
                    ByteBuffer request = ByteBuffer.allocate(1);
                    while (request.hasRemaining()) {
                        accepted.read(request);
                    }
                    long position = 0;
                    while (position < FILE_BYTES) {
                        long n = channel.transferFrom(segment, position, FILE_BYTES - position);
                        calls.incrementAndGet();
                        if (n == 0) {
                            answeredNothing.incrementAndGet();
                        }
                        position += n;
                    }
                    sent.complete(null);
                } catch (IOException | RuntimeException e) {
                    sent.completeExceptionally(e);
                }
            });
            client.write(ByteBuffer.wrap(new byte[] {1}));
            // Reads only once the sender had time to fill both buffers, then slowly.
            Thread.sleep(200);
            MessageDigest received = MessageDigest.getInstance("SHA-256");
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            long total = 0;
            while (total < FILE_BYTES) {
                buffer.clear();
                int n = client.read(buffer);
                assertThat(n).as("the connection ended after %d bytes", total).isPositive();
                received.update(buffer.flip());
                total += n;
            }
            sent.get(30, TimeUnit.SECONDS);

            assertThat(received.digest())
                    .isEqualTo(MessageDigest.getInstance("SHA-256").digest(content));
            assertThat(answeredNothing.get())
                    .as("calls that sent nothing, of %d", calls.get())
                    .isZero();
        }
    }
}
