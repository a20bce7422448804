package io.tributary.broker.replication;

import io.tributary.broker.cluster.BrokerEndpoint;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A {@link LeaderChannel} over one blocking TCP socket, speaking Kafka's framing: each request is a
 * 4-byte big-endian length, then the request header and body as kafka-clients serializes them; each
 * response the same, parsed by kafka-clients (which checks the correlation id). Correlation ids
 * count up from 1 per connection; the client id is {@code tributary-replica-<broker id>}.
 *
 * <p>Used by one fetcher thread; {@link #close} may come from another thread and makes a blocked
 * read fail.
 */
final class SocketLeaderChannel implements LeaderChannel {

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final String clientId;
    private int nextCorrelationId = 1;

    private SocketLeaderChannel(Socket socket, String clientId) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new BufferedOutputStream(socket.getOutputStream());
        this.clientId = clientId;
    }

    /** A connector opening sockets with these timeouts, as broker {@code localBrokerId}. */
    static LeaderChannel.Connector connector(int localBrokerId, Duration connectTimeout, Duration readTimeout) {
        return endpoint -> open(endpoint, "tributary-replica-" + localBrokerId, connectTimeout, readTimeout);
    }

    static SocketLeaderChannel open(
            BrokerEndpoint endpoint, String clientId, Duration connectTimeout, Duration readTimeout)
            throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(
                    new InetSocketAddress(endpoint.host(), endpoint.port()),
                    Math.toIntExact(connectTimeout.toMillis()));
            socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
            socket.setTcpNoDelay(true);
            return new SocketLeaderChannel(socket, clientId);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    @Override
    public AbstractResponse send(AbstractRequest request, int maxResponseBytes) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), clientId, nextCorrelationId++);
        ByteBuffer payload = request.serializeWithHeader(header);
        byte[] frameOut = new byte[4 + payload.remaining()];
        ByteBuffer.wrap(frameOut).putInt(payload.remaining()).put(payload.duplicate());
        out.write(frameOut);
        out.flush();
        int size = in.readInt();
        if (size < 0 || size > maxResponseBytes) {
            throw new IOException("response frame of " + size + " bytes; at most " + maxResponseBytes + " accepted");
        }
        byte[] frame = new byte[size];
        in.readFully(frame);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // Nothing to do: the socket is unusable either way.
        }
    }
}
