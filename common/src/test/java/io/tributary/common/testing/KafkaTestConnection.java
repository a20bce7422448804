package io.tributary.common.testing;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A Kafka-protocol client on one blocking socket, for tests that control every byte: it writes
 * requests serialized by kafka-clients' own classes (or any bytes at all) and parses responses with
 * kafka-clients' own parser, so the tests check the listener against Kafka's codec rather than
 * against a second implementation of it.
 *
 * <p>Frames are Kafka's: a 4-byte big-endian length, then the header and body. Correlation ids
 * count up from 1 on each connection.
 *
 * <p>Not thread-safe: one test thread uses a connection.
 */
public final class KafkaTestConnection implements AutoCloseable {

    /**
     * How long one read may block. A safety net so that a server that never answers fails the test
     * (with a {@link java.net.SocketTimeoutException}) instead of hanging the build; not an
     * assertion on speed.
     */
    public static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    /** The client id in every request header this class builds. */
    public static final String CLIENT_ID = "tributary-test";

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private int nextCorrelationId = 1;

    private KafkaTestConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to a listener on 127.0.0.1. */
    public static KafkaTestConnection open(int port) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", port), Math.toIntExact(READ_TIMEOUT.toMillis()));
            socket.setSoTimeout(Math.toIntExact(READ_TIMEOUT.toMillis()));
            socket.setTcpNoDelay(true);
            return new KafkaTestConnection(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** The header the next {@link #send} will use: the request's API and version, the next correlation id. */
    public RequestHeader nextHeader(AbstractRequest request) {
        return new RequestHeader(request.apiKey(), request.version(), CLIENT_ID, nextCorrelationId++);
    }

    /** Writes {@code request} as one frame and returns its header, which {@link #receive} needs. */
    public RequestHeader send(AbstractRequest request) throws IOException {
        RequestHeader header = nextHeader(request);
        writeFrame(request.serializeWithHeader(header));
        return header;
    }

    /** Writes a frame: the payload's length, then the payload (from its position to its limit). */
    public void writeFrame(ByteBuffer payload) throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(4 + payload.remaining());
        frame.putInt(payload.remaining()).put(payload.duplicate()).flip();
        write(frame.array());
    }

    /** Writes a frame around {@code payload}. */
    public void writeFrame(byte[] payload) throws IOException {
        writeFrame(ByteBuffer.wrap(payload));
    }

    /** Writes exactly these bytes, whatever they are. */
    public void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Writes a 4-byte big-endian int: a frame length on its own. */
    public void writeInt(int value) throws IOException {
        write(ByteBuffer.allocate(4).putInt(value).array());
    }

    /**
     * Reads one response frame and returns its payload (response header, then body).
     *
     * @throws EOFException when the server closed the connection instead
     */
    public ByteBuffer readFrame() throws IOException {
        int size = in.readInt();
        if (size < 0) {
            throw new IOException("the server sent a frame with negative length " + size);
        }
        byte[] payload = new byte[size];
        in.readFully(payload);
        return ByteBuffer.wrap(payload);
    }

    /**
     * Reads the response to the request that had {@code header}, parsed by kafka-clients (which
     * also checks that the correlation id is that request's).
     */
    public AbstractResponse receive(RequestHeader header) throws IOException {
        return AbstractResponse.parseResponse(readFrame(), header);
    }

    /** {@link #receive(RequestHeader)}, as the response class of the request's API. */
    public <T extends AbstractResponse> T receive(RequestHeader header, Class<T> type) throws IOException {
        return type.cast(receive(header));
    }

    /** Sends {@code request} and reads its response. */
    public <T extends AbstractResponse> T roundTrip(AbstractRequest request, Class<T> type) throws IOException {
        return receive(send(request), type);
    }

    /** An ApiVersions round trip at the newest version kafka-clients speaks. */
    public ApiVersionsResponse apiVersions() throws IOException {
        return roundTrip(new ApiVersionsRequest.Builder().build(), ApiVersionsResponse.class);
    }

    /**
     * Whether the server has closed the connection: reads one byte and returns true on end of
     * stream, false if a byte arrived instead. Blocks until one of the two happens (or {@link
     * #READ_TIMEOUT}).
     */
    public boolean closedByServer() throws IOException {
        return in.read() < 0;
    }

    /**
     * Reads and discards whatever the server sends until it closes the connection, and returns how
     * many bytes that was. A close is end of stream, or a reset: a server that closes a socket with
     * unread bytes in its receive buffer resets the connection instead of ending it.
     */
    public long readUntilClosed() throws IOException {
        byte[] buffer = new byte[8192];
        long total = 0;
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                total += n;
            }
        } catch (SocketException e) {
            if (!String.valueOf(e.getMessage()).contains("reset")) {
                throw e;
            }
        }
        return total;
    }

    /** Closes this side's output (a TCP half-close): the server reads end of stream, and can still answer. */
    public void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
