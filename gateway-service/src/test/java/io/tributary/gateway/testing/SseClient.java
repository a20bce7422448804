package io.tributary.gateway.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A Server-Sent Events client over a raw socket: an HTTP/1.0 GET (so the answer is not chunked), then
 * the stream read frame by frame ({@link SseFrameReader}: strict framing, a cut stream told apart
 * from a clean end). {@link #close()} cuts the stream at any point. Not thread-safe.
 */
public final class SseClient implements AutoCloseable {

    /** One event: its name, its id (absent for control events) and its data line. */
    public record Event(String name, Optional<String> id, String data) {}

    /** A safety net so a stream that never sends fails the test; not an assertion on speed. */
    private static final int READ_TIMEOUT_MS = 30_000;

    private final Socket socket;
    private final BufferedReader in;
    private final int status;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final SseFrameReader frames;

    private SseClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        String statusLine = in.readLine();
        if (statusLine == null) {
            throw new IOException("no answer");
        }
        status = Integer.parseInt(statusLine.split(" ")[1]);
        String line;
        while ((line = in.readLine()) != null && !line.isEmpty()) {
            int colon = line.indexOf(':');
            headers.put(
                    line.substring(0, colon).strip().toLowerCase(Locale.ROOT),
                    line.substring(colon + 1).strip());
        }
        frames = new SseFrameReader(in);
    }

    /** Opens {@code pathAndQuery} with optional extra header lines ({@code "Last-Event-ID: ..."}). */
    public static SseClient open(int port, String pathAndQuery, String... headerLines) {
        return open(port, 0, pathAndQuery, headerLines);
    }

    /** As {@link #open(int, String, String...)}, with the socket's receive buffer set (0: default). */
    public static SseClient open(int port, int receiveBufferBytes, String pathAndQuery, String... headerLines) {
        try {
            Socket s = new Socket();
            if (receiveBufferBytes > 0) {
                s.setReceiveBufferSize(receiveBufferBytes);
            }
            s.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MS);
            s.setSoTimeout(READ_TIMEOUT_MS);
            StringBuilder request = new StringBuilder("GET " + pathAndQuery + " HTTP/1.0\r\n");
            request.append("Host: 127.0.0.1:").append(port).append("\r\n");
            request.append("Accept: text/event-stream\r\n");
            for (String h : headerLines) {
                request.append(h).append("\r\n");
            }
            request.append("\r\n");
            OutputStream out = s.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return new SseClient(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int status() {
        return status;
    }

    /** A response header, by lower-case name. */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /** The rest of the answer (for error answers). */
    public String body() {
        StringBuilder b = new StringBuilder();
        try {
            String line;
            while ((line = in.readLine()) != null) {
                b.append(line).append('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return b.toString();
    }

    /** Heartbeat comments seen so far. */
    public int comments() {
        return frames.comments();
    }

    /** The {@code retry:} value, once seen. */
    public Optional<String> retry() {
        return frames.retry();
    }

    /**
     * The next event; empty when the stream ended, cleanly or not (a connection cut, a frame cut
     * short). Comments and {@code retry:} are noted on the way. A frame that breaks the framing
     * ({@link SseFrameReader}) is an {@link AssertionError}; so is no byte within the read timeout.
     * {@link #nextEvent()} tells the ends apart.
     */
    public Optional<Event> next() {
        try {
            return frames.nextEvent();
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no event within " + READ_TIMEOUT_MS + " ms");
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The next event, strictly: empty only at a clean end (the server closed the stream right after
     * a whole frame).
     *
     * @throws SseFrameReader.MalformedFrameException for a frame that breaks the framing
     * @throws java.io.EOFException for a stream cut in the middle of a frame
     * @throws IOException for a connection that broke, or no byte within the read timeout ({@link
     *     SocketTimeoutException})
     */
    public Optional<Event> nextEvent() throws IOException {
        return frames.nextEvent();
    }

    /** Reads until {@code heartbeats} more comments arrived, failing if an event comes first. */
    public void expectNoEventFor(int heartbeats) {
        int until = frames.comments() + heartbeats;
        try {
            while (frames.comments() < until) {
                Optional<SseFrameReader.Frame> frame = frames.nextFrame();
                if (frame.isEmpty()) {
                    throw new AssertionError("stream ended");
                }
                if (frame.get().event().isPresent()) {
                    throw new AssertionError(
                            "unexpected event: " + frame.get().event().get());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
