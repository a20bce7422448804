package io.tributary.broker.cluster;

import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A small blocking Kafka client of the group coordinator's Kafka listener, for the group requests a
 * broker forwards: ListGroups (one TCP connection per call, closed after it: a rare admin request)
 * and every other group API ({@link #forward}: consumers' heartbeats and commits, admin requests;
 * over a few reused connections). A coordinator that lost its leadership answers NOT_COORDINATOR,
 * on which the caller looks the coordinator up again.
 * Framing is Kafka's (a 4-byte big-endian length, then the header and body as kafka-clients
 * serializes them); the response is parsed by kafka-clients, which checks the correlation id.
 *
 * <p>Thread-safety: safe for concurrent calls (each has its own socket).
 */
public final class CoordinatorGroupsClient {

    /**
     * The client's bounds.
     *
     * @param connectTimeout how long connecting to the coordinator may take (default 1 s)
     * @param readTimeout how long the coordinator may take to answer (default 5 s): the calling
     *     request's connection thread waits this long at most
     * @param maxResponseBytes the largest answer read (default 16 MiB: ListGroups of the largest
     *     number of groups with committed offsets, 10,000, is about 1 MiB)
     */
    public record Config(Duration connectTimeout, Duration readTimeout, int maxResponseBytes) {

        public static final Config DEFAULTS = new Config(Duration.ofSeconds(1), Duration.ofSeconds(5), 16 << 20);

        public Config {
            if (!connectTimeout.isPositive() || !readTimeout.isPositive() || maxResponseBytes < 1024) {
                throw new IllegalArgumentException("need positive timeouts and maxResponseBytes >= 1024, got "
                        + connectTimeout + ", " + readTimeout + ", " + maxResponseBytes);
            }
        }
    }

    private final Config config;
    private final String clientId;
    private final AtomicInteger correlationIds = new AtomicInteger();

    /** @param localBrokerId this broker's id, in the client id {@code tributary-broker-<id>} */
    public CoordinatorGroupsClient(Config config, int localBrokerId) {
        this.config = Objects.requireNonNull(config, "config");
        this.clientId = "tributary-broker-" + localBrokerId;
    }

    /** Idle connections kept for reuse by {@link #forward}, at most this many. */
    static final int MAX_IDLE_CONNECTIONS = 8;

    private record Idle(String host, int port, Socket socket) {}

    private final ArrayDeque<Idle> idle = new ArrayDeque<>();

    /**
     * Sends ListGroups to the coordinator at {@code version} and returns its answer.
     *
     * @throws IOException when the coordinator cannot be reached, does not answer in time or answers
     *     with something that is not a ListGroups response
     */
    public ListGroupsResponse listGroups(GroupCoordinator coordinator, ListGroupsRequestData data, short version)
            throws IOException {
        ListGroupsRequest request = new ListGroupsRequest.Builder(data).build(version);
        RequestHeader header = new RequestHeader(
                ApiKeys.LIST_GROUPS, version, clientId, correlationIds.incrementAndGet() & Integer.MAX_VALUE);
        try (Socket socket = connect(coordinator)) {
            AbstractResponse response = roundTrip(socket, request, header);
            if (!(response instanceof ListGroupsResponse listGroups)) {
                throw new IOException("the coordinator answered ListGroups with " + response.apiKey());
            }
            return listGroups;
        }
    }

    /**
     * Forwards a client's group request to the coordinator as it is (same API, version and client
     * id, so the coordinator sees the member's client id) and returns the coordinator's answer.
     * Connections are reused: one is taken from the idle ones to the same address, or opened, and
     * given back after a complete round trip (at most {@link #MAX_IDLE_CONNECTIONS} kept); a
     * connection that failed is closed. Requests of one client connection stay in order, since its
     * next request is read only after this one's answer is written.
     *
     * @throws IOException when the coordinator cannot be reached, does not answer in time or answers
     *     with another API's response
     */
    public AbstractResponse forward(GroupCoordinator coordinator, RequestHeader clientHeader, AbstractRequest body)
            throws IOException {
        RequestHeader header = new RequestHeader(
                clientHeader.apiKey(),
                clientHeader.apiVersion(),
                clientHeader.clientId(),
                correlationIds.incrementAndGet() & Integer.MAX_VALUE);
        Socket socket = takeIdle(coordinator);
        boolean reused = socket != null;
        if (socket == null) {
            socket = connect(coordinator);
        }
        AbstractResponse response;
        try {
            response = roundTrip(socket, body, header);
        } catch (IOException e) {
            close(socket);
            if (!reused || e instanceof SocketTimeoutException) {
                // A timeout may mean the coordinator got the request and is slow: not sent twice.
                throw e;
            }
            // An idle connection the coordinator closed meanwhile: once more on a fresh one.
            socket = connect(coordinator);
            try {
                response = roundTrip(socket, body, header);
            } catch (IOException again) {
                close(socket);
                throw again;
            }
        }
        if (response.apiKey() != clientHeader.apiKey()) {
            close(socket);
            throw new IOException("the coordinator answered " + clientHeader.apiKey() + " with " + response.apiKey());
        }
        giveBack(coordinator, socket);
        return response;
    }

    private Socket takeIdle(GroupCoordinator coordinator) {
        synchronized (idle) {
            for (var it = idle.iterator(); it.hasNext(); ) {
                Idle candidate = it.next();
                if (candidate.host().equals(coordinator.host()) && candidate.port() == coordinator.port()) {
                    it.remove();
                    return candidate.socket();
                }
            }
        }
        return null;
    }

    private void giveBack(GroupCoordinator coordinator, Socket socket) {
        Socket evicted = null;
        synchronized (idle) {
            idle.addFirst(new Idle(coordinator.host(), coordinator.port(), socket));
            if (idle.size() > MAX_IDLE_CONNECTIONS) {
                evicted = idle.removeLast().socket();
            }
        }
        if (evicted != null) {
            close(evicted);
        }
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a failed connection: nothing left to do
        }
    }

    private Socket connect(GroupCoordinator coordinator) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(
                    new InetSocketAddress(coordinator.host(), coordinator.port()),
                    Math.toIntExact(config.connectTimeout().toMillis()));
            socket.setSoTimeout(Math.toIntExact(config.readTimeout().toMillis()));
            socket.setTcpNoDelay(true);
            return socket;
        } catch (IOException e) {
            close(socket);
            throw e;
        }
    }

    /** One request and its response on {@code socket}, in Kafka's framing. */
    private AbstractResponse roundTrip(Socket socket, AbstractRequest request, RequestHeader header)
            throws IOException {
        ByteBuffer payload = request.serializeWithHeader(header);
        OutputStream out = new BufferedOutputStream(socket.getOutputStream());
        byte[] frameOut = new byte[4 + payload.remaining()];
        ByteBuffer.wrap(frameOut).putInt(payload.remaining()).put(payload.duplicate());
        out.write(frameOut);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int size = in.readInt();
        if (size < 0 || size > config.maxResponseBytes()) {
            throw new IOException(
                    "response frame of " + size + " bytes; at most " + config.maxResponseBytes() + " accepted");
        }
        byte[] frame = new byte[size];
        in.readFully(frame);
        try {
            return AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
        } catch (RuntimeException e) {
            throw new IOException("the coordinator's answer does not parse: " + e.getMessage(), e);
        }
    }
}
