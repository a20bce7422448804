package io.tributary.systemtests.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PlainHttpConnection} against a server on 127.0.0.1 that answers each request it reads with
 * the next scripted bytes.
 */
class PlainHttpConnectionTest {

    private static final byte[] BODY = "{\"value\":\"x\"}".getBytes(StandardCharsets.UTF_8);

    private ScriptedServer server;
    private PlainHttpConnection connection;
    private byte[] request;

    @BeforeEach
    void start() throws IOException {
        server = new ScriptedServer();
        URI uri = URI.create("http://127.0.0.1:" + server.port() + "/v1/topics/t/records");
        connection = new PlainHttpConnection(
                PlainHttpConnection.addressOf(uri), Duration.ofSeconds(10), Duration.ofSeconds(10));
        request = PlainHttpConnection.post(uri, "application/json", BODY);
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        server.close();
    }

    @Test
    void encodesTheRequestOnceWithHostTypeAndLength() throws Exception {
        server.answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");

        connection.send(request);

        String received = server.requests.getFirst();
        assertThat(received)
                .isEqualTo("POST /v1/topics/t/records HTTP/1.1\r\nHost: 127.0.0.1:" + server.port()
                        + "\r\nContent-Type: application/json\r\nContent-Length: " + BODY.length + "\r\n\r\n"
                        + new String(BODY, StandardCharsets.UTF_8));
    }

    @Test
    void readsABodyByContentLengthKeepingItOnlyForAFailure() throws Exception {
        server.answer("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}");
        server.answer("HTTP/1.1 400 Bad Request\r\ncontent-LENGTH: 13\r\n\r\n{\"bad\":\"yes\"}");

        var ok = connection.send(request);
        var bad = connection.send(request);

        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.body()).isEmpty();
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.bodyText()).isEqualTo("{\"bad\":\"yes\"}");
        assertThat(server.connections.get()).isEqualTo(1);
    }

    @Test
    void readsAChunkedBodyWithExtensionsAndTrailers() throws Exception {
        server.answer("HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4;name=value\r\nWiki\r\n"
                + "5\r\npedia\r\n"
                + "e ; quoted=\"a;b\"\r\n in\r\n\r\nchunks.\r\n"
                + "0;last\r\nExpires: never\r\nX-Trailer: yes\r\n\r\n");
        server.answer("HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
        server.answer("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy");

        var chunked = connection.send(request);
        var chunkedOk = connection.send(request);
        var after = connection.send(request);

        assertThat(chunked.status()).isEqualTo(500);
        assertThat(chunked.bodyText()).isEqualTo("Wikipedia in\r\n\r\nchunks.");
        assertThat(chunkedOk.status()).isEqualTo(200);
        // The trailers and the last chunk were consumed: the next answer on the connection parses.
        assertThat(after.status()).isEqualTo(503);
        assertThat(after.bodyText()).isEqualTo("busy");
        assertThat(server.connections.get()).isEqualTo(1);
    }

    @Test
    void keepsOneConnectionAliveOverSeveralRequests() throws Exception {
        for (int i = 0; i < 5; i++) {
            server.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok");
        }

        for (int i = 0; i < 5; i++) {
            assertThat(connection.send(request).status()).isEqualTo(200);
        }

        assertThat(server.connections.get()).isEqualTo(1);
        assertThat(server.requests).hasSize(5);
    }

    @Test
    void connectsAgainAfterConnectionClose() throws Exception {
        server.answerThenClose("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok");
        server.answer("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");

        assertThat(connection.send(request).status()).isEqualTo(200);
        assertThat(connection.send(request).status()).isEqualTo(201);

        assertThat(server.connections.get()).isEqualTo(2);
    }

    @Test
    void readsABodyWithoutLengthUntilTheServerCloses() throws Exception {
        server.answerThenClose("HTTP/1.1 502 Bad Gateway\r\n\r\nupstream gone");
        server.answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");

        var response = connection.send(request);
        assertThat(connection.send(request).status()).isEqualTo(200);

        assertThat(response.bodyText()).isEqualTo("upstream gone");
        assertThat(server.connections.get()).isEqualTo(2);
    }

    @Test
    void skipsAnInterimResponse() throws Exception {
        server.answer("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 7\r\n\r\nmissing");

        var response = connection.send(request);

        assertThat(response.status()).isEqualTo(404);
        assertThat(response.bodyText()).isEqualTo("missing");
    }

    @Test
    void refusesABodyCutShortAndConnectsAgainAfterwards() throws Exception {
        server.answerThenClose("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b");
        server.answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");

        assertThatThrownBy(() -> connection.send(request))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("90 bytes before the body's end");
        assertThat(connection.send(request).status()).isEqualTo(200);
        assertThat(server.connections.get()).isEqualTo(2);
    }

    @Test
    void refusesAResponseCutShortInItsHeadersOrChunks() throws Exception {
        server.answerThenClose("HTTP/1.1 200 OK\r\nContent-Len");
        server.answerThenClose("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabc");
        server.answerThenClose("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-Trailer: cut");
        server.answerThenClose("");

        for (int i = 0; i < 4; i++) {
            assertThatThrownBy(() -> connection.send(request)).isInstanceOf(IOException.class);
        }
        assertThat(server.connections.get()).isEqualTo(4);
    }

    @Test
    void refusesMalformedAnswers() throws Exception {
        server.answerThenClose("SSH-2.0-OpenSSH\r\n\r\n");
        server.answerThenClose("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
        server.answerThenClose("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n");

        assertThatThrownBy(() -> connection.send(request)).hasMessageContaining("not an HTTP/1.x status line");
        assertThatThrownBy(() -> connection.send(request)).hasMessageContaining("bad chunk size");
        assertThatThrownBy(() -> connection.send(request)).hasMessageContaining("bad Content-Length");
    }

    @Test
    void refusesAHeaderSectionOver64KiB() throws Exception {
        String big = "x".repeat(PlainHttpConnection.MAX_HEADER_BYTES);
        server.answerThenClose("HTTP/1.1 200 OK\r\nX-Big: " + big + "\r\nContent-Length: 0\r\n\r\n");

        assertThatThrownBy(() -> connection.send(request))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("header section is over 65536 bytes");
    }

    @Test
    void acceptsAHeaderSectionOfExactly64KiB() throws Exception {
        String head = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Big: ";
        String big = "x".repeat(PlainHttpConnection.MAX_HEADER_BYTES - head.length() - 4);
        server.answer(head + big + "\r\n\r\n");

        assertThat(connection.send(request).status()).isEqualTo(200);
    }

    @Test
    void refusesABodyOver16MiB() throws Exception {
        int over = PlainHttpConnection.MAX_BODY_BYTES + 1;
        server.answerThenClose("HTTP/1.1 500 Oops\r\nContent-Length: " + over + "\r\n\r\n");
        server.answerThenClose("HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n"
                + Integer.toHexString(over).toUpperCase(Locale.ROOT) + "\r\n");

        assertThatThrownBy(() -> connection.send(request))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("is over " + PlainHttpConnection.MAX_BODY_BYTES);
        assertThatThrownBy(() -> connection.send(request))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("is over " + PlainHttpConnection.MAX_BODY_BYTES);
    }

    @Test
    void refusesAnUnsupportedTransferEncoding() throws Exception {
        server.answerThenClose("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n");

        assertThatThrownBy(() -> connection.send(request)).hasMessageContaining("unsupported Transfer-Encoding");
    }

    /**
     * Accepts one connection at a time on 127.0.0.1 (a free port), reads each request (head, then
     * {@code Content-Length} bytes) and writes the next scripted answer, closing the connection after
     * it when the script says so.
     */
    private static final class ScriptedServer implements AutoCloseable {
        private record Answer(byte[] bytes, boolean close) {}

        final AtomicInteger connections = new AtomicInteger();
        final List<String> requests = new CopyOnWriteArrayList<>();
        private final BlockingQueue<Answer> script = new LinkedBlockingQueue<>();
        private final ServerSocket listener;
        private final Thread thread;

        ScriptedServer() throws IOException {
            listener = new ServerSocket();
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            thread = Thread.ofPlatform().daemon().name("scripted-http").start(this::serve);
        }

        int port() {
            return listener.getLocalPort();
        }

        void answer(String bytes) {
            script.add(new Answer(bytes.getBytes(StandardCharsets.ISO_8859_1), false));
        }

        void answerThenClose(String bytes) {
            script.add(new Answer(bytes.getBytes(StandardCharsets.ISO_8859_1), true));
        }

        private void serve() {
            while (!listener.isClosed()) {
                try (Socket socket = listener.accept()) {
                    connections.incrementAndGet();
                    InputStream in = socket.getInputStream();
                    while (true) {
                        String received = readRequest(in);
                        if (received == null) {
                            break;
                        }
                        requests.add(received);
                        Answer answer = script.poll(10, TimeUnit.SECONDS);
                        if (answer == null) {
                            break;
                        }
                        socket.getOutputStream().write(answer.bytes());
                        socket.getOutputStream().flush();
                        if (answer.close()) {
                            break;
                        }
                    }
                } catch (IOException e) {
                    // the listener closed, or the client went away: accept the next one
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /** The whole request as ISO-8859-1 text, or null at the end of the connection. */
        private static String readRequest(InputStream in) throws IOException {
            var head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    return null;
                }
                head.write(b);
                matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            String text = head.toString(StandardCharsets.ISO_8859_1);
            int length = 0;
            for (String line : text.split("\r\n")) {
                if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(
                            line.substring("content-length:".length()).strip());
                }
            }
            return text + new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
        }

        @Override
        public void close() throws Exception {
            listener.close();
            thread.interrupt();
            thread.join(10_000);
        }
    }
}
