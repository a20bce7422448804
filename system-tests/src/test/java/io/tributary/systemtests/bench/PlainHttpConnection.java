package io.tributary.systemtests.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * A lean HTTP/1.1 client for the load generator's produce cases: one keep-alive TCP connection
 * ({@code TCP_NODELAY}), a request encoded once by {@link #post} and written with one write per
 * request, the response read from a buffered input. It exists because the JDK's {@code HttpClient}
 * costs the shared CPU about 11 ms per MB produced, more than half of what the gateway itself costs;
 * this client costs little more than the socket's system calls (like {@code wrk}).
 *
 * <p>What it reads: the status line; headers, names case-insensitive; then the body by {@code
 * Content-Length}, or {@code Transfer-Encoding: chunked} (chunk extensions ignored, trailers read and
 * dropped), or until the server closes when the response has neither (never for {@code 1xx}, {@code
 * 204}, {@code 304}). Interim {@code 1xx} responses are skipped. {@code Connection: close} (or an
 * HTTP/1.0 answer without {@code Connection: keep-alive}) closes the socket after the response; the
 * next {@link #send} connects again. Any I/O error or malformed answer closes the connection too.
 * A request is never retried: a POST is not idempotent.
 *
 * <p>Bounds: a header section (status line and headers, or the trailers) over {@link
 * #MAX_HEADER_BYTES} and a body over {@link #MAX_BODY_BYTES} are refused with an {@link IOException}.
 * The body of a {@code 2xx} answer is read and discarded; any other answer's body is kept, to print.
 *
 * <p>Not thread-safe: one connection per load thread.
 */
final class PlainHttpConnection implements Closeable {

    /** The largest status line plus headers (or trailer section) accepted: 64 KiB. */
    static final int MAX_HEADER_BYTES = 64 * 1024;

    /** The largest response body accepted: 16 MiB. */
    static final int MAX_BODY_BYTES = 16 * 1024 * 1024;

    private static final int BUFFER_BYTES = 64 * 1024;
    private static final byte[] NO_BODY = new byte[0];

    /** The status and, for an answer other than {@code 2xx}, its body (empty otherwise). */
    record Response(int status, byte[] body) {
        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final InetSocketAddress address;
    private final int connectTimeoutMs;
    private final int readTimeoutMs;
    private final byte[] scratch = new byte[BUFFER_BYTES];
    private Socket socket;
    private OutputStream out;
    private InputStream in;

    PlainHttpConnection(InetSocketAddress address, Duration connectTimeout, Duration readTimeout) {
        this.address = address;
        this.connectTimeoutMs = Math.toIntExact(connectTimeout.toMillis());
        this.readTimeoutMs = Math.toIntExact(readTimeout.toMillis());
    }

    /** The address of an {@code http://host:port} URI (port 80 when it has none). */
    static InetSocketAddress addressOf(URI uri) {
        if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("the plain client speaks http://host:port only, got " + uri);
        }
        return new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 80 : uri.getPort());
    }

    /**
     * A whole POST request, encoded once: request line, {@code Host}, {@code Content-Type}, {@code
     * Content-Length}, the blank line and the body.
     */
    static byte[] post(URI uri, String contentType, byte[] body) {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (uri.getRawQuery() != null) {
            path += "?" + uri.getRawQuery();
        }
        String head = "POST " + path + " HTTP/1.1\r\n"
                + "Host: " + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort()) + "\r\n"
                + "Content-Type: " + contentType + "\r\n"
                + "Content-Length: " + body.length + "\r\n"
                + "\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, request, 0, headBytes.length);
        System.arraycopy(body, 0, request, headBytes.length, body.length);
        return request;
    }

    /** Writes {@code request} (from {@link #post}) and reads the response; connects first if needed. */
    Response send(byte[] request) throws IOException {
        if (socket == null) {
            connect();
        }
        try {
            out.write(request);
            Response response;
            boolean close;
            do {
                int[] status = {0};
                HeaderFields fields = readHead(status);
                boolean interim = status[0] >= 100 && status[0] < 200;
                byte[] body = readBody(status[0], fields);
                // After the body: a body without a length ends with the connection.
                close = fields.close;
                response = interim ? null : new Response(status[0], body);
            } while (response == null);
            if (close) {
                close();
            }
            return response;
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public void close() {
        Socket s = socket;
        socket = null;
        out = null;
        in = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing a connection that already failed
            }
        }
    }

    private void connect() throws IOException {
        var s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(address, connectTimeoutMs);
            s.setSoTimeout(readTimeoutMs);
            out = s.getOutputStream();
            in = new BufferedInputStream(s.getInputStream(), BUFFER_BYTES);
            socket = s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    // ---- the head -----------------------------------------------------------------------------

    /** What the body reader and the connection need from the headers. */
    private static final class HeaderFields {
        long contentLength = -1;
        boolean chunked;
        boolean close;
    }

    private HeaderFields readHead(int[] status) throws IOException {
        int[] budget = {MAX_HEADER_BYTES};
        String statusLine = readLine(budget, "the status line");
        // HTTP-version SP status-code SP [reason-phrase]
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12 || statusLine.charAt(8) != ' ') {
            throw new IOException("not an HTTP/1.x status line: " + printable(statusLine));
        }
        try {
            status[0] = Integer.parseInt(statusLine, 9, 12, 10);
        } catch (NumberFormatException e) {
            throw new IOException("bad status code in " + printable(statusLine));
        }
        var fields = new HeaderFields();
        boolean http10 = statusLine.startsWith("HTTP/1.0");
        boolean keepAlive = false;
        for (String line = readLine(budget, "a header"); !line.isEmpty(); line = readLine(budget, "a header")) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("malformed header line: " + printable(line));
            }
            String name = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).strip();
            switch (name) {
                case "content-length" -> {
                    try {
                        long length = Long.parseLong(value);
                        if (length < 0 || (fields.contentLength >= 0 && fields.contentLength != length)) {
                            throw new NumberFormatException();
                        }
                        fields.contentLength = length;
                    } catch (NumberFormatException e) {
                        throw new IOException("bad Content-Length: " + printable(value));
                    }
                }
                case "transfer-encoding" -> {
                    String last = value.substring(value.lastIndexOf(',') + 1).strip();
                    if (!last.equalsIgnoreCase("chunked")) {
                        throw new IOException("unsupported Transfer-Encoding: " + printable(value));
                    }
                    fields.chunked = true;
                }
                case "connection" -> {
                    for (String token : value.split(",")) {
                        fields.close |= token.strip().equalsIgnoreCase("close");
                        keepAlive |= token.strip().equalsIgnoreCase("keep-alive");
                    }
                }
                default -> {
                    // not needed
                }
            }
        }
        fields.close |= http10 && !keepAlive;
        return fields;
    }

    /**
     * One line ending in CRLF (a bare LF is accepted), without the line end, as ISO-8859-1; every
     * byte, line ends included, counts against {@code budget}.
     */
    private String readLine(int[] budget, String what) throws IOException {
        var line = new StringBuilder(64);
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the connection ended in " + what + " (" + address + ")");
            }
            if (--budget[0] < 0) {
                throw new IOException("the response's header section is over " + MAX_HEADER_BYTES + " bytes");
            }
            if (b == '\n') {
                int end = line.length();
                if (end > 0 && line.charAt(end - 1) == '\r') {
                    line.setLength(end - 1);
                }
                return line.toString();
            }
            line.append((char) b);
        }
    }

    // ---- the body -----------------------------------------------------------------------------

    private byte[] readBody(int status, HeaderFields fields) throws IOException {
        boolean keep = status / 100 != 2;
        if ((status >= 100 && status < 200) || status == 204 || status == 304) {
            return NO_BODY;
        }
        var kept = keep ? new ByteArrayOutputStream() : null;
        if (fields.chunked) {
            readChunked(kept);
        } else if (fields.contentLength >= 0) {
            if (fields.contentLength > MAX_BODY_BYTES) {
                throw new IOException(
                        "the response's body of " + fields.contentLength + " bytes is over " + MAX_BODY_BYTES);
            }
            copy(fields.contentLength, kept);
        } else {
            // Neither: the body ends when the server closes the connection.
            fields.close = true;
            long total = 0;
            for (int n = in.read(scratch); n >= 0; n = in.read(scratch)) {
                total += n;
                if (total > MAX_BODY_BYTES) {
                    throw new IOException("the response's body is over " + MAX_BODY_BYTES + " bytes");
                }
                if (kept != null) {
                    kept.write(scratch, 0, n);
                }
            }
        }
        return kept == null ? NO_BODY : kept.toByteArray();
    }

    /**
     * {@code chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF}, repeated until a chunk of size 0,
     * then trailer fields up to a blank line (RFC 9112, section 7.1).
     */
    private void readChunked(ByteArrayOutputStream kept) throws IOException {
        long total = 0;
        int[] budget = {MAX_HEADER_BYTES};
        while (true) {
            String sizeLine = readLine(budget, "a chunk size");
            int end = sizeLine.indexOf(';');
            String hex = (end < 0 ? sizeLine : sizeLine.substring(0, end)).strip();
            long size;
            try {
                size = hex.isEmpty() || hex.length() > 15 ? -1 : Long.parseLong(hex, 16);
            } catch (NumberFormatException e) {
                size = -1;
            }
            if (size < 0) {
                throw new IOException("bad chunk size line: " + printable(sizeLine));
            }
            if (size == 0) {
                break;
            }
            total += size;
            if (total > MAX_BODY_BYTES) {
                throw new IOException("the response's chunked body is over " + MAX_BODY_BYTES + " bytes");
            }
            copy(size, kept);
            if (!readLine(budget, "a chunk's end").isEmpty()) {
                throw new IOException("a chunk does not end with CRLF after its " + size + " bytes");
            }
            // Each chunk's size line counts against the header budget; give it back per chunk.
            budget[0] = MAX_HEADER_BYTES;
        }
        int[] trailerBudget = {MAX_HEADER_BYTES};
        while (!readLine(trailerBudget, "the trailers").isEmpty()) {
            // trailer fields are read and dropped
        }
    }

    /** Reads exactly {@code length} bytes into {@code kept}, or discards them when it is null. */
    private void copy(long length, ByteArrayOutputStream kept) throws IOException {
        for (long left = length; left > 0; ) {
            int n = in.read(scratch, 0, (int) Math.min(left, scratch.length));
            if (n < 0) {
                throw new EOFException(
                        "the connection ended " + left + " bytes before the body's end (" + address + ")");
            }
            if (kept != null) {
                kept.write(scratch, 0, n);
            }
            left -= n;
        }
    }

    private static String printable(String s) {
        String shown = s.length() > 100 ? s.substring(0, 100) + "..." : s;
        return "'" + shown.replaceAll("[^\\x20-\\x7e]", "?") + "'";
    }
}
