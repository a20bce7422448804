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
 * the stream read line by line. {@link #close()} cuts the stream at any point. Not thread-safe.
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
    private int comments;
    private Optional<String> retry = Optional.empty();

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
        return comments;
    }

    /** The {@code retry:} value, once seen. */
    public Optional<String> retry() {
        return retry;
    }

    /** The next event; empty when the stream ended. Comments and {@code retry:} are noted on the way. */
    public Optional<Event> next() {
        String name = "message";
        String id = null;
        String data = null;
        boolean any = false;
        try {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data != null) {
                        return Optional.of(new Event(name, Optional.ofNullable(id), data));
                    }
                    name = "message";
                    id = null;
                    continue;
                }
                any = true;
                if (line.startsWith(":")) {
                    comments++;
                } else if (line.startsWith("retry: ")) {
                    retry = Optional.of(line.substring(7));
                } else if (line.startsWith("event: ")) {
                    name = line.substring(7);
                } else if (line.startsWith("id: ")) {
                    id = line.substring(4);
                } else if (line.startsWith("data: ")) {
                    data = line.substring(6);
                } else {
                    throw new AssertionError("not an SSE line: " + line);
                }
            }
            return Optional.empty();
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no event within " + READ_TIMEOUT_MS + " ms (read anything: " + any + ")");
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Reads until {@code heartbeats} more comments arrived, failing if an event comes first. */
    public void expectNoEventFor(int heartbeats) {
        int until = comments + heartbeats;
        try {
            while (comments < until) {
                String line = in.readLine();
                if (line == null) {
                    throw new AssertionError("stream ended");
                }
                if (line.startsWith(":")) {
                    comments++;
                } else if (line.startsWith("retry: ")) {
                    retry = Optional.of(line.substring(7));
                } else if (!line.isEmpty()) {
                    throw new AssertionError("unexpected event line: " + line);
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
