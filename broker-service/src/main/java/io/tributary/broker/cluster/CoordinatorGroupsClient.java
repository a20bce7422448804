package io.tributary.broker.cluster;

import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A small blocking Kafka client of the group coordinator's Kafka listener, for the group requests a
 * broker forwards (ListGroups). One TCP connection per call, closed after it: these are rare admin
 * requests, and a fresh connection never talks to a coordinator that lost its leadership long ago.
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
        try (Socket socket = new Socket()) {
            socket.connect(
                    new InetSocketAddress(coordinator.host(), coordinator.port()),
                    Math.toIntExact(config.connectTimeout().toMillis()));
            socket.setSoTimeout(Math.toIntExact(config.readTimeout().toMillis()));
            socket.setTcpNoDelay(true);
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
            AbstractResponse response;
            try {
                response = AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
            } catch (RuntimeException e) {
                throw new IOException("the coordinator's answer does not parse: " + e.getMessage(), e);
            }
            if (!(response instanceof ListGroupsResponse listGroups)) {
                throw new IOException("the coordinator answered ListGroups with " + response.apiKey());
            }
            return listGroups;
        }
    }
}
