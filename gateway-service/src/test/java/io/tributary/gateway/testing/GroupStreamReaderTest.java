package io.tributary.gateway.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.common.testing.BackgroundFailures;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link GroupStreamReader} against a scripted server on 127.0.0.1 that answers 200 and then writes
 * given bytes: a clean end and the test's own close are no failure; every malformed frame, an
 * event a group stream does not send, and a stream cut or reset before a clean end are, in the
 * test's {@link BackgroundFailures}, distinct from the end of the stream.
 */
class GroupStreamReaderTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String ASSIGNED =
            "event: assigned\ndata: {\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}\n\n";
    private static final String RECORD =
            "event: record\nid: c1\ndata: {\"topic\":\"t\",\"partition\":0,\"offset\":0,\"value\":\"v0\"}\n\n";

    /** How the scripted server ends the connection after its bytes. */
    private enum End {
        CLOSE,
        RESET,
        STAY_OPEN
    }

    private final BackgroundFailures readers = new BackgroundFailures();
    private final BackgroundFailures server = new BackgroundFailures();

    @AfterEach
    void stopTheServer() throws InterruptedException {
        server.stopAll(PATIENCE);
        server.check();
    }

    /** Serves one connection: reads the request, answers 200 and {@code stream}, then ends as told. */
    private int serve(String stream, End end, CountDownLatch release) throws IOException {
        ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        server.start("scripted-sse", task -> {
            try (listener;
                    Socket socket = listener.accept()) {
                var in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
                String line;
                while ((line = in.readLine()) != null && !line.isEmpty()) {
                    // the request's lines
                }
                OutputStream out = socket.getOutputStream();
                out.write(("HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + stream)
                        .getBytes(StandardCharsets.UTF_8));
                out.flush();
                switch (end) {
                    case CLOSE -> {}
                    case RESET -> socket.setSoLinger(true, 0);
                    case STAY_OPEN -> release.await();
                }
            }
        });
        return listener.getLocalPort();
    }

    private GroupStreamReader read(String stream, End end) throws IOException {
        int port = serve(stream, end, new CountDownLatch(0));
        GroupStreamReader reader = GroupStreamReader.open(readers, "r", port, "/", new GroupStreamReader.Log());
        await().atMost(PATIENCE).until(reader::ended);
        return reader;
    }

    @Test
    void aCleanEndAfterWholeFramesIsNoFailure() throws Exception {
        try (GroupStreamReader reader = read("retry: 300\n\n:\n\n" + ASSIGNED + RECORD + ":\n\n", End.CLOSE)) {
            assertThat(reader.records())
                    .extracting(GroupStreamReader.Record::value)
                    .containsExactly("v0");
            assertThat(reader.assignment()).containsExactly("t-0");
            assertThat(readers.failures()).isEmpty();
        }
    }

    @Test
    void theTestsOwnCloseIsNoFailure() throws Exception {
        var release = new CountDownLatch(1);
        int port = serve(ASSIGNED + RECORD, End.STAY_OPEN, release);
        GroupStreamReader reader = GroupStreamReader.open(readers, "r", port, "/", new GroupStreamReader.Log());
        await().atMost(PATIENCE).until(() -> reader.records().size() == 1);

        reader.close();
        release.countDown();

        assertThat(reader.ended()).isTrue();
        assertThat(readers.failures()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a field SSE does not know  | event: record\\nid: c2\\nretries: 3\\ndata: {}\\n\\n              | a field SSE does not know: retries: 3
            an event without data      | event: revoked\\n\\n                                           | a frame with an event or id but no data
            data that is not JSON      | event: assigned\\ndata: {"partitions":[\\n\\n                  | is not JSON
            an event it does not send  | event: message\\ndata: {}\\n\\n                                | an event a group stream does not send
            a record without its id    | event: record\\ndata: {"topic":"t","partition":0,"offset":1}\\n\\n | a record without its id, topic, partition or offset
            a record without an offset | event: record\\nid: c2\\ndata: {"topic":"t","partition":0}\\n\\n   | a record without its id, topic, partition or offset
            a stream cut mid-frame     | event: record\\nid: c2\\n                                      | the stream ended in the middle of a frame
            """)
    void aMalformedOrCutStreamIsAFailureNotAnEnd(String what, String bad, String message) throws Exception {
        try (GroupStreamReader reader = read(ASSIGNED + RECORD + bad.replace("\\n", "\n"), End.CLOSE)) {
            assertThat(reader.records()).as("what came before it is kept").hasSize(1);
            assertThat(readers.failures())
                    .as(what)
                    .singleElement()
                    .satisfies(f -> assertThat(f).hasStackTraceContaining(message));
        }
    }

    @Test
    void aConnectionResetBeforeACleanEndIsAFailure() throws Exception {
        try (GroupStreamReader reader = read(ASSIGNED + RECORD, End.RESET)) {
            assertThat(readers.failures())
                    .singleElement()
                    .satisfies(f -> assertThat(f)
                            .hasMessageContaining("the stream ended without the gateway closing it cleanly"));
        }
    }
}
