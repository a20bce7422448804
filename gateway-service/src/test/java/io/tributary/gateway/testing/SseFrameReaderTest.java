package io.tributary.gateway.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.StringReader;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SseFrameReaderTest {

    private static SseFrameReader reader(String stream) {
        return new SseFrameReader(new BufferedReader(new StringReader(stream)));
    }

    @Test
    void readsWhatTheGatewayWritesAndEndsCleanlyAfterAWholeFrame() throws IOException {
        SseFrameReader frames = reader("retry: 300\n\n"
                + ":\n\n"
                + "event: record\nid: c1\ndata: {\"offset\":0}\n\n"
                + ":\n\n"
                + "event: gap\ndata: {\"from\":1}\n\n");

        assertThat(frames.nextEvent()).contains(new SseClient.Event("record", Optional.of("c1"), "{\"offset\":0}"));
        assertThat(frames.nextEvent()).contains(new SseClient.Event("gap", Optional.empty(), "{\"from\":1}"));
        assertThat(frames.nextEvent()).as("a clean end").isEmpty();
        assertThat(frames.comments()).isEqualTo(2);
        assertThat(frames.retry()).contains("300");
    }

    @Test
    void followsTheStandardsLineEndsSpaceAndDataLines() throws IOException {
        SseFrameReader frames = reader("event:a\r\ndata:x\r\ndata: y\r\n\r\nevent: b\rdata: z\r\r\n\n");

        assertThat(frames.nextEvent()).contains(new SseClient.Event("a", Optional.empty(), "x\ny"));
        assertThat(frames.nextEvent()).contains(new SseClient.Event("b", Optional.empty(), "z"));
        assertThat(frames.nextEvent()).isEmpty();
    }

    @Test
    void aFrameOfCommentsAndRetryOnlyIsNoEvent() throws IOException {
        SseFrameReader frames = reader(": hello\nretry: 5\n\n");

        assertThat(frames.nextFrame()).contains(new SseFrameReader.Frame(Optional.empty()));
        assertThat(frames.nextFrame()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a field SSE does not know         | event: record\\nid: c1\\nvalue: 1\\ndata: {}\\n\\n | a field SSE does not know: value: 1
            a line without a colon            | event: record\\ndata {}\\n\\n                      | a line without a colon: data {}
            an event without data             | event: record\\nid: c1\\n\\n                       | a frame with an event or id but no data
            an id without data                | id: c1\\n\\n                                       | a frame with an event or id but no data
            a retry that is not a number      | retry: soon\\n\\n                                  | a retry that is not milliseconds
            two event names in one frame      | event: a\\nevent: b\\ndata: {}\\n\\n               | a second or empty event name
            an empty event name               | event:\\ndata: {}\\n\\n                            | a second or empty event name
            two ids in one frame              | event: a\\nid: 1\\nid: 2\\ndata: {}\\n\\n          | a second id or one with NUL
            """)
    void aMalformedFrameIsAFailureNotAnEnd(String what, String stream, String message) {
        SseFrameReader frames = reader(stream.replace("\\n", "\n"));

        assertThatThrownBy(frames::nextEvent)
                .as(what)
                .isInstanceOf(SseFrameReader.MalformedFrameException.class)
                .hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            after a whole line of a frame    | event: record\\nid: c1\\n
            in the middle of a line          | event: record\\nid: c1\\ndata: {"off
            after a heartbeat's comment line | :\\n
            """)
    void aStreamCutInTheMiddleOfAFrameIsNotACleanEnd(String what, String stream) throws IOException {
        SseFrameReader frames = reader("event: record\nid: c0\ndata: {}\n\n" + stream.replace("\\n", "\n"));

        assertThat(frames.nextEvent()).isPresent();
        assertThatThrownBy(frames::nextEvent)
                .as(what)
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("the stream ended in the middle of a frame");
    }
}
