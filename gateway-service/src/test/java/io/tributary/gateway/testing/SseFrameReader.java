package io.tributary.gateway.testing;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a {@code text/event-stream} frame by frame, strictly: what the gateway writes ({@code
 * SseFrames}) is accepted, anything else is a failure, and a stream cut in the middle of a frame is
 * told apart from a clean end. JDK only (it is in the test-jar that system-tests reads SSE with).
 * Not thread-safe: one reader per stream, on one thread.
 *
 * <p>The framing, after the HTML standard's "event stream interpretation": lines end with CRLF, LF
 * or CR; an empty line ends a frame; a line starting with {@code :} is a comment (the gateway's
 * heartbeat); any other line is {@code field: value} (one space after the colon is dropped), with
 * the fields {@code event} (the event's name), {@code id}, {@code data} (several lines join with
 * {@code \n}) and {@code retry} (milliseconds, digits only). A frame with {@code data} is an event;
 * a frame of comments and {@code retry} only is not. Stricter than a browser, because a test must
 * see what a browser would silently drop:
 *
 * <ul>
 *   <li>a field the standard does not know, or a line without a colon, is {@link
 *       MalformedFrameException} (a browser ignores it);
 *   <li>a frame with an {@code event} or {@code id} but no {@code data} is malformed (a browser
 *       drops the event; the gateway never writes one);
 *   <li>a {@code retry} that is not all digits, an {@code id} with NUL, two {@code event} or {@code
 *       id} lines in one frame, an empty {@code event} name: malformed;
 *   <li>the stream ending after part of a frame (lines since the last empty line) is an {@link
 *       EOFException}: the connection was cut, not closed by a server that had finished a frame.
 * </ul>
 */
public final class SseFrameReader {

    /** A frame that breaks the framing above: the server wrote something it must not. */
    public static final class MalformedFrameException extends AssertionError {
        MalformedFrameException(String message) {
            super(message);
        }
    }

    /**
     * One frame: an event, or nothing for a frame of comments and {@code retry} only.
     *
     * @param event the frame's event, absent for a comment or {@code retry} frame
     */
    public record Frame(Optional<SseClient.Event> event) {}

    private final BufferedReader in;
    private int comments;
    private Optional<String> retry = Optional.empty();

    public SseFrameReader(BufferedReader in) {
        this.in = in;
    }

    /** Comment lines seen so far (the gateway's heartbeats). */
    public int comments() {
        return comments;
    }

    /** The last {@code retry:} value seen, once seen. */
    public Optional<String> retry() {
        return retry;
    }

    /**
     * The next event, skipping comment and {@code retry} frames; empty only at a clean end (the
     * stream ended right after a whole frame).
     *
     * @throws MalformedFrameException for a frame that breaks the framing
     * @throws EOFException for a stream cut in the middle of a frame
     * @throws IOException for a connection that broke
     */
    public Optional<SseClient.Event> nextEvent() throws IOException {
        while (true) {
            Optional<Frame> frame = nextFrame();
            if (frame.isEmpty()) {
                return Optional.empty();
            }
            if (frame.get().event().isPresent()) {
                return frame.get().event();
            }
        }
    }

    /**
     * The next frame; empty only at a clean end.
     *
     * @throws MalformedFrameException for a frame that breaks the framing
     * @throws EOFException for a stream cut in the middle of a frame
     * @throws IOException for a connection that broke
     */
    public Optional<Frame> nextFrame() throws IOException {
        List<String> lines = new ArrayList<>();
        String name = null;
        String id = null;
        StringBuilder data = null;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) {
                if (lines.isEmpty()) {
                    continue;
                }
                if (data != null) {
                    return Optional.of(new Frame(Optional.of(new SseClient.Event(
                            name == null ? "message" : name, Optional.ofNullable(id), data.toString()))));
                }
                if (name != null || id != null) {
                    throw new MalformedFrameException("a frame with an event or id but no data: " + lines);
                }
                return Optional.of(new Frame(Optional.empty()));
            }
            lines.add(line);
            if (line.startsWith(":")) {
                comments++;
                continue;
            }
            int colon = line.indexOf(':');
            if (colon < 0) {
                throw new MalformedFrameException("a line without a colon: " + line);
            }
            String value = line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            switch (line.substring(0, colon)) {
                case "event" -> {
                    if (name != null || value.isEmpty()) {
                        throw new MalformedFrameException("a second or empty event name: " + lines);
                    }
                    name = value;
                }
                case "id" -> {
                    if (id != null || value.indexOf('\0') >= 0) {
                        throw new MalformedFrameException("a second id or one with NUL: " + lines);
                    }
                    id = value;
                }
                case "data" ->
                    data = data == null
                            ? new StringBuilder(value)
                            : data.append('\n').append(value);
                case "retry" -> {
                    if (value.isEmpty() || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
                        throw new MalformedFrameException("a retry that is not milliseconds: " + line);
                    }
                    retry = Optional.of(value);
                }
                default -> throw new MalformedFrameException("a field SSE does not know: " + line);
            }
        }
        if (!lines.isEmpty()) {
            throw new EOFException("the stream ended in the middle of a frame, after " + lines);
        }
        return Optional.empty();
    }
}
