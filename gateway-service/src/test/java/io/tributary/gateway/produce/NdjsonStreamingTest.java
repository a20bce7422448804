package io.tributary.gateway.produce;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.gateway.testing.GatewayIntegrationTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * NDJSON goes both ways at once: the result of a line comes back while the client is still sending
 * the body (a raw HTTP/1.1 socket with a chunked body shows it, since ordinary clients wait for the
 * whole request to be sent).
 */
class NdjsonStreamingTest extends GatewayIntegrationTest {

    /** A safety net for a gateway that never answers; not an assertion on speed. */
    private static final int READ_TIMEOUT_MS = 30_000;

    @Test
    void aLinesResultArrivesBeforeTheBodyEnds() throws IOException {
        String topic = createTopic("ndjson-streaming", 1);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), httpPort)) {
            socket.setSoTimeout(READ_TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(("POST /v1/topics/" + topic + "/records HTTP/1.1\r\n"
                            + "Host: 127.0.0.1\r\n"
                            + "Content-Type: application/x-ndjson\r\n"
                            + "Transfer-Encoding: chunked\r\n"
                            + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            chunk(out, "{\"key\":\"a\",\"value\":\"first\"}\n");

            String early = readUntil(in, "\"offset\":0");

            assertThat(early).startsWith("HTTP/1.1 200").contains("application/x-ndjson");
            chunk(out, "{\"key\":\"b\",\"value\":\"second\"}\n");
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readUntil(in, "\"offset\":1")).contains("\"offset\":1");
        }
    }

    private static void chunk(OutputStream out, String data) throws IOException {
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Reads until {@code marker} was seen (or the stream ends, or the safety timeout fails the test). */
    private static String readUntil(InputStream in, String marker) throws IOException {
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        byte[] buffer = new byte[1024];
        while (!seen.toString(StandardCharsets.UTF_8).contains(marker)) {
            int n = in.read(buffer);
            if (n < 0) {
                break;
            }
            seen.write(buffer, 0, n);
        }
        return seen.toString(StandardCharsets.UTF_8);
    }
}
