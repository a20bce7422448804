package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.security.tls.TrustStores;
import io.tributary.common.testing.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The TLS listeners' transport against the JDK's own TLS client ({@code SSLSocket}) over real
 * loopback sockets: the handshake with TLS 1.3 and 1.2, bytes in both directions whole and in
 * order whatever the sizes of the reads and writes on either side, file regions, the ends of a
 * connection (the client's {@code close_notify}, a closed socket without one, a client that does
 * not speak TLS).
 */
class TlsChannelTest {

    @TempDir
    static Path stores;

    @TempDir
    Path dir;

    private static SSLContext serverContext;
    private static SSLContext clientContext;

    private final ServerSocket listener;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    TlsChannelTest() throws IOException {
        listener = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
    }

    @BeforeAll
    static void makeStores() throws Exception {
        TestCertificates certificates = new TestCertificates(stores);
        certificates.selfSignedLocalhostServer();
        serverContext = certificates.serverTls("server").sslContext();
        clientContext = TrustStores.clientContext(
                stores.resolve("client-trust.p12"), "PKCS12", TestCertificates.PASSWORD.toCharArray());
    }

    @AfterEach
    void close() throws IOException {
        threads.shutdownNow();
        listener.close();
    }

    /** Accepts one connection on a virtual thread and runs {@code server} with its channel after the handshake. */
    private <T> CompletableFuture<T> serve(ServerSide<T> server) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try (Socket accepted = listener.accept();
                            TlsChannel channel = new TlsChannel(engine(), accepted)) {
                        accepted.setSoTimeout(30_000);
                        channel.handshake();
                        return server.run(channel);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
    }

    private static SSLEngine engine() {
        SSLEngine engine = serverContext.createSSLEngine();
        engine.setUseClientMode(false);
        engine.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
        return engine;
    }

    private interface ServerSide<T> {
        T run(TlsChannel channel) throws Exception;
    }

    private SSLSocket connect(String protocol) throws IOException {
        SSLSocket socket = (SSLSocket) clientContext
                .getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
        socket.setEnabledProtocols(new String[] {protocol});
        socket.setSoTimeout(30_000);
        socket.startHandshake();
        return socket;
    }

    @ParameterizedTest
    @ValueSource(strings = {"TLSv1.3", "TLSv1.2"})
    void everyByteGoesBothWaysInOrderWhateverTheSizesOfReadsAndWrites(String protocol) throws Exception {
        byte[] sent = randomBytes(3 * 1024 * 1024 + 17, 1);
        // The server echoes what it reads, reading and writing in sizes from 1 byte to 100 KiB,
        // through heap and direct buffers, flushing now and then and whenever it has nothing
        // decrypted left to read.
        CompletableFuture<String> server = serve(channel -> {
            Random sizes = new Random(2);
            InputStream in = channel.input();
            byte[] buffer = new byte[100 * 1024];
            long echoed = 0;
            while (true) {
                int n;
                int pick = sizes.nextInt(4);
                if (pick == 0) {
                    int b = in.read();
                    if (b < 0) {
                        break;
                    }
                    buffer[0] = (byte) b;
                    n = 1;
                } else {
                    int size = pick == 1 ? 1 + sizes.nextInt(100) : 1 + sizes.nextInt(buffer.length);
                    n = in.read(buffer, 0, size);
                    if (n < 0) {
                        break;
                    }
                }
                ByteBuffer out = sizes.nextBoolean()
                        ? ByteBuffer.wrap(buffer, 0, n)
                        : ByteBuffer.allocateDirect(n).put(buffer, 0, n).flip();
                assertThat(channel.write(out)).isEqualTo(n);
                echoed += n;
                if (in.available() == 0 || sizes.nextInt(5) == 0) {
                    channel.flush(); // always before a read that may wait: the client waits for the echo
                }
            }
            channel.flush();
            return channel.session().getProtocol() + " " + echoed;
        });
        try (SSLSocket client = connect(protocol)) {
            CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return client.getInputStream().readNBytes(sent.length);
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads);
            OutputStream out = client.getOutputStream();
            Random sizes = new Random(3);
            for (int offset = 0; offset < sent.length; ) {
                int n = Math.min(
                        sent.length - offset, sizes.nextBoolean() ? 1 + sizes.nextInt(64) : 1 + sizes.nextInt(40_000));
                out.write(sent, offset, n);
                offset += n;
            }
            out.flush();
            byte[] echoed = received.get(60, TimeUnit.SECONDS);
            assertThat(Arrays.mismatch(echoed, sent))
                    .as(
                            "the first byte where the echo (%d bytes) differs from what was sent (server: %s)",
                            echoed.length,
                            server.isDone()
                                    ? server.handle((r, e) -> r + " " + e).join()
                                    : "running")
                    .isEqualTo(-1);
            client.shutdownOutput(); // close_notify: the server's reads end
            assertThat(server.get(60, TimeUnit.SECONDS)).isEqualTo(protocol + " " + sent.length);
        }
    }

    @Test
    void aFileRegionFollowsWhatWasWrittenBeforeItWholeAndInOrder() throws Exception {
        byte[] content = randomBytes(3 * TlsChannel.OUTPUT_BYTES + 1234, 4);
        Path file = Files.write(dir.resolve("segment"), content);
        long position = 777;
        long count = content.length - position - 100;
        CompletableFuture<Long> server = serve(channel -> {
            try (FileChannel segment = FileChannel.open(file, StandardOpenOption.READ)) {
                channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
                long taken = 0;
                while (taken < count) {
                    long n = channel.transferFrom(segment, position + taken, count - taken);
                    assertThat(n).as("each call takes something").isPositive().isLessThanOrEqualTo(count - taken);
                    taken += n;
                }
                assertThat(channel.transferFrom(segment, content.length, 10))
                        .as("nothing past the end")
                        .isZero();
                assertThat(channel.transferFrom(segment, content.length - 5, 10))
                        .as("what there is before the end")
                        .isEqualTo(5);
                assertThat(channel.transferFrom(segment, 0, 0)).isZero();
                channel.flush();
                return taken;
            }
        });
        try (SSLSocket client = connect("TLSv1.3")) {
            byte[] received = client.getInputStream().readNBytes(3 + (int) count + 5);
            byte[] expected = new byte[3 + (int) count + 5];
            expected[0] = 1;
            expected[1] = 2;
            expected[2] = 3;
            System.arraycopy(content, (int) position, expected, 3, (int) count);
            System.arraycopy(content, content.length - 5, expected, 3 + (int) count, 5);
            assertThat(Arrays.equals(received, expected))
                    .as("header, region, then the file's last bytes")
                    .isTrue();
            assertThat(server.get(30, TimeUnit.SECONDS)).isEqualTo(count);
        }
    }

    @Test
    void aSocketClosedWithoutCloseNotifyEndsTheInputLikeAnyOtherEnd() throws Exception {
        CompletableFuture<byte[]> server = serve(channel -> channel.input().readAllBytes());
        Socket plain = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
        SSLSocket client = (SSLSocket)
                clientContext.getSocketFactory().createSocket(plain, "127.0.0.1", listener.getLocalPort(), false);
        client.startHandshake();
        client.getOutputStream().write("partial".getBytes(StandardCharsets.US_ASCII));
        client.getOutputStream().flush();
        plain.close(); // no close_notify
        assertThat(new String(server.get(30, TimeUnit.SECONDS), StandardCharsets.US_ASCII))
                .isEqualTo("partial");
    }

    @Test
    void theClientsCloseNotifyIsAnsweredWithTheServers() throws Exception {
        CompletableFuture<Integer> server = serve(channel -> channel.input().read());
        try (SSLSocket client = connect("TLSv1.3")) {
            client.shutdownOutput();
            assertThat(server.get(30, TimeUnit.SECONDS)).isEqualTo(-1);
            assertThat(client.getInputStream().read())
                    .as("the server's close_notify ends the client's input cleanly")
                    .isEqualTo(-1);
        }
    }

    @Test
    void aTls12RenegotiationEndsTheConnectionAsOnKafka() throws Exception {
        CompletableFuture<Throwable> server = serve(channel -> channel.input().read())
                .handle((result, e) -> e == null ? null : e.getCause().getCause());
        try (SSLSocket client = connect("TLSv1.2")) {
            CompletableFuture<Void> again = CompletableFuture.runAsync(
                    () -> {
                        try {
                            client.startHandshake(); // a second handshake: renegotiation
                            client.getOutputStream().write(1);
                            client.getOutputStream().flush();
                        } catch (IOException e) {
                            // refused: the server closed the connection
                        }
                    },
                    threads);
            assertThat(server.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(SSLHandshakeException.class)
                    .hasMessageContaining("renegotiation");
            again.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClientThatDoesNotSpeakTlsFailsTheHandshake() throws Exception {
        CompletableFuture<Throwable> server = handshakeFailure();
        try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort())) {
            plain.getOutputStream().write(new byte[] {0, 0, 0, 20, 0, 18, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0});
            plain.getOutputStream().flush();
            assertThat(server.get(30, TimeUnit.SECONDS)).isInstanceOf(SSLException.class);
            // The connection ends (after an alert, or at once): reading stops.
            plain.setSoTimeout(30_000);
            try {
                plain.getInputStream().transferTo(new ByteArrayOutputStream());
            } catch (IOException e) {
                // reset: ended too
            }
        }
    }

    @Test
    void aClientThatLeavesDuringTheHandshakeEndsIt() throws Exception {
        CompletableFuture<Throwable> server = handshakeFailure();
        new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort()).close();
        assertThat(server.get(30, TimeUnit.SECONDS)).isInstanceOf(EOFException.class);
    }

    /** Accepts one connection and runs the handshake: what it threw, or null when it completed. */
    private CompletableFuture<Throwable> handshakeFailure() {
        // serve() wraps the failure in a CompletionException around an IllegalStateException.
        return serve(channel -> null)
                .handle((result, e) -> e == null ? null : e.getCause().getCause());
    }

    @Test
    void aClosedChannelRefusesWrites() throws Exception {
        CompletableFuture<Throwable> server = serve(channel -> {
            channel.close();
            try {
                channel.write(ByteBuffer.allocate(1));
                return null;
            } catch (ClosedChannelException e) {
                return e;
            }
        });
        try (SSLSocket client = connect("TLSv1.3")) {
            assertThat(server.get(30, TimeUnit.SECONDS)).isInstanceOf(ClosedChannelException.class);
        }
    }

    private static byte[] randomBytes(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
