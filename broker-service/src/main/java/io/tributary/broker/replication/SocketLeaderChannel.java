package io.tributary.broker.replication;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.common.protocol.KafkaFrames;
import io.tributary.common.security.internal.InternalClientSecurity;
import io.tributary.common.security.internal.ScramSocketLogin;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A {@link LeaderChannel} over one blocking TCP socket, speaking Kafka's framing ({@link
 * KafkaFrames}): each request is a 4-byte big-endian length, then the request header and body as
 * kafka-clients serializes them; each response the same, parsed by kafka-clients (which checks the
 * correlation id). Correlation ids count up from 1 per connection; the client id is {@code
 * tributary-replica-<broker id>}. When the internal listeners are TLS, the socket runs the TLS
 * handshake right after it connects (the leader's certificate checked against the cluster's CA and,
 * by default, the leader's advertised host); with a login (the cluster secret or the broker's key
 * is set) it then logs in with SCRAM-SHA-512 ({@link ScramSocketLogin}), as {@code
 * tributary-broker-<id>}, inside the TLS session ({@link InternalClientSecurity}); a failed
 * handshake or a refused login fails the connect.
 *
 * <p>Used by one fetcher thread; {@link #close} may come from another thread and makes a blocked
 * read fail.
 */
final class SocketLeaderChannel implements LeaderChannel {

    /** The largest answer read during the login (SaslHandshake and SaslAuthenticate answers are small). */
    static final int MAX_LOGIN_RESPONSE_BYTES = 64 * 1024;

    private final Socket socket;
    private final String clientId;
    private int nextCorrelationId = 1;

    private SocketLeaderChannel(Socket socket, String clientId) {
        this.socket = socket;
        this.clientId = clientId;
    }

    /**
     * A connector opening sockets with these timeouts, as broker {@code localBrokerId}, logging in
     * and securing each connection with {@code security}.
     */
    static LeaderChannel.Connector connector(
            int localBrokerId, Duration connectTimeout, Duration readTimeout, InternalClientSecurity security) {
        return endpoint -> open(endpoint, "tributary-replica-" + localBrokerId, connectTimeout, readTimeout, security);
    }

    static SocketLeaderChannel open(
            BrokerEndpoint endpoint,
            String clientId,
            Duration connectTimeout,
            Duration readTimeout,
            InternalClientSecurity security)
            throws IOException {
        Socket socket = security.connect(
                endpoint.host(), endpoint.port(), connectTimeout, readTimeout, clientId, MAX_LOGIN_RESPONSE_BYTES);
        return new SocketLeaderChannel(socket, clientId);
    }

    @Override
    public AbstractResponse send(AbstractRequest request, int maxResponseBytes) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), clientId, nextCorrelationId++);
        return KafkaFrames.roundTrip(socket, request, header, maxResponseBytes);
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
