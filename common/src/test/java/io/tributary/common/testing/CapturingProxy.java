package io.tributary.common.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free 127.0.0.1 port that forwards every connection to {@code 127.0.0.1:<target>}
 * and keeps a copy of the bytes that pass, each connection's each direction as one stream, up to
 * {@link #MAX_CAPTURED_BYTES} in all: what an
 * eavesdropper on the wire between two processes sees. The target port may be set after the proxy
 * starts (a server that binds a free port once it knows where to register the proxy). Virtual
 * threads, two per connection; {@link #close} stops everything.
 */
public final class CapturingProxy implements AutoCloseable {

    /** The most bytes kept; past it the traffic is still forwarded, not captured. */
    public static final int MAX_CAPTURED_BYTES = 64 * 1024 * 1024;

    private final ServerSocket server;
    private final AtomicInteger target = new AtomicInteger();
    private final List<ByteArrayOutputStream> streams = new ArrayList<>();
    private int capturedBytes;
    private final List<Socket> sockets = new ArrayList<>();
    private final Thread acceptor;

    /** Listens now; connections wait for {@link #target(int)} to be set before they are forwarded. */
    public CapturingProxy() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = Thread.ofVirtual()
                .name("capturing-proxy-" + server.getLocalPort())
                .start(this::accept);
    }

    /** The port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** Sets the port forwarded to; answers the proxy's own port (for a registration hook). */
    public int target(int port) {
        target.set(port);
        return port();
    }

    /** How many bytes were captured so far. */
    public int capturedBytes() {
        synchronized (streams) {
            return capturedBytes;
        }
    }

    /** Whether {@code needle} occurs in the bytes captured so far, in one direction of one connection. */
    public boolean sawBytes(byte[] needle) {
        List<byte[]> copies;
        synchronized (streams) {
            copies = streams.stream().map(ByteArrayOutputStream::toByteArray).toList();
        }
        return copies.stream().anyMatch(stream -> contains(stream, needle));
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(upstream);
                }
                int port = target.get();
                if (port == 0) {
                    client.close();
                    continue;
                }
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
                Thread.ofVirtual().start(() -> pump(client, upstream));
                Thread.ofVirtual().start(() -> pump(upstream, client));
            } catch (IOException e) {
                // closed, or one connection failed: the others go on
            }
        }
    }

    private void pump(Socket from, Socket to) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        synchronized (streams) {
            streams.add(captured);
        }
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                synchronized (streams) {
                    if (capturedBytes + n <= MAX_CAPTURED_BYTES) {
                        captured.write(buffer, 0, n);
                        capturedBytes += n;
                    }
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (sockets) {
            sockets.forEach(CapturingProxy::closeQuietly);
        }
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "CapturingProxy[port=" + port() + ", target=" + target.get() + ", captured=" + capturedBytes()
                + " bytes]";
    }
}
