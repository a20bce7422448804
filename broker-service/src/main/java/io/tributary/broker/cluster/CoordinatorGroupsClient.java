package io.tributary.broker.cluster;

import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import io.tributary.common.protocol.KafkaFrames;
import io.tributary.common.protocol.RequestWaits;
import io.tributary.common.security.internal.InternalClientSecurity;
import io.tributary.common.security.internal.ScramSocketLogin;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SyncGroupRequest;

/**
 * A small blocking Kafka client of the group coordinator's Kafka listener, for the group requests a
 * broker forwards: ListGroups (one TCP connection per call, closed after it: a rare admin request)
 * and every other group API ({@link #forward}: consumers' joins, heartbeats and commits, admin
 * requests; over a few reused connections). A coordinator that lost its leadership answers
 * NOT_COORDINATOR, on which the caller looks the coordinator up again.
 * Framing is Kafka's ({@link KafkaFrames}: a 4-byte big-endian length, then the header and body as
 * kafka-clients serializes them); the response is parsed by kafka-clients, which checks the
 * correlation id. When the cluster's internal traffic is authenticated, each connection first logs
 * in as {@code tributary-broker-<id>}; the coordinator then trusts the broker's own ACL checks.
 *
 * <p>How long an answer may take ({@link #readTimeout}): the configured read timeout, except for
 * the classic group protocol's two long polls. The coordinator answers a JoinGroup only when the
 * group's rebalance completes, which may take the member's rebalance timeout (JoinGroup v1+'s
 * {@code rebalanceTimeoutMs}; v0's session timeout, as Kafka reads v0; kafka-clients sends its
 * {@code max.poll.interval.ms}, 5 minutes by default), and a follower's SyncGroup waits for the
 * leader's SyncGroup, up to the group's rebalance timeout, which the request does not carry. So a
 * JoinGroup may take its rebalance timeout, at most {@link Config#maxRebalanceWait}, and a SyncGroup
 * that bound, each plus the read timeout (the time the coordinator may take to answer once its wait
 * is over, as for any request; kafka-clients likewise waits 5 s past the rebalance timeout).
 *
 * <p>Thread-safety: safe for concurrent calls (each has its own socket, held for the whole call: a
 * JoinGroup forward holds one socket, and the calling connection's virtual thread, for up to its
 * rebalance timeout; the socket is idle on both ends meanwhile).
 */
public final class CoordinatorGroupsClient {

    /**
     * The client's bounds.
     *
     * @param connectTimeout how long connecting to the coordinator may take (default 1 s)
     * @param readTimeout how long the coordinator may take to answer (default 5 s): the calling
     *     request's connection thread waits this long at most; a JoinGroup or SyncGroup adds its
     *     rebalance wait ({@link #readTimeout(AbstractRequest)})
     * @param maxResponseBytes the largest answer read (default 16 MiB: ListGroups of the largest
     *     number of groups with committed offsets, 10,000, is about 1 MiB)
     * @param maxRebalanceWait the longest a forwarded JoinGroup or SyncGroup may wait on the
     *     coordinator for a rebalance (default 15 minutes: the coordinators' default cap on a
     *     member's rebalance timeout, {@code tributary.coordinator.groups.max-rebalance-timeout}); a
     *     JoinGroup's rebalance timeout is capped at this. Together with {@code readTimeout} at most
     *     {@link Integer#MAX_VALUE} milliseconds (a socket's read timeout)
     */
    public record Config(
            Duration connectTimeout, Duration readTimeout, int maxResponseBytes, Duration maxRebalanceWait) {

        public static final Config DEFAULTS =
                new Config(Duration.ofSeconds(1), Duration.ofSeconds(5), 16 << 20, Duration.ofMinutes(15));

        public Config {
            if (!connectTimeout.isPositive()
                    || !readTimeout.isPositive()
                    || !maxRebalanceWait.isPositive()
                    || maxResponseBytes < 1024) {
                throw new IllegalArgumentException("need positive timeouts and maxResponseBytes >= 1024, got "
                        + connectTimeout + ", " + readTimeout + ", " + maxResponseBytes + ", " + maxRebalanceWait);
            }
            if (connectTimeout.toMillis() > Integer.MAX_VALUE
                    || readTimeout.plus(maxRebalanceWait).toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("need connectTimeout and readTimeout + maxRebalanceWait up to "
                        + Integer.MAX_VALUE + " ms, got " + connectTimeout + ", " + readTimeout + " + "
                        + maxRebalanceWait);
            }
        }
    }

    private final Config config;
    private final String clientId;
    private final InternalClientSecurity security;
    private final AtomicInteger correlationIds = new AtomicInteger();

    /** A client of a {@code PLAINTEXT} coordinator listener. */
    public CoordinatorGroupsClient(Config config, int localBrokerId) {
        this(config, localBrokerId, InternalClientSecurity.PLAINTEXT);
    }

    /**
     * @param localBrokerId this broker's id, in the client id {@code tributary-broker-<id>}
     * @param security how each new connection is secured before its first request, within the
     *     read timeout: the TLS handshake when the coordinators' listener is TLS, then the login
     *     (SCRAM-SHA-512, {@link ScramSocketLogin}) when it requires SASL; a failed handshake or a
     *     refused login fails the call as an unreachable coordinator does
     */
    public CoordinatorGroupsClient(Config config, int localBrokerId, InternalClientSecurity security) {
        this.config = Objects.requireNonNull(config, "config");
        this.clientId = "tributary-broker-" + localBrokerId;
        this.security = Objects.requireNonNull(security, "security");
    }

    /** This client's bounds. */
    public Config config() {
        return config;
    }

    /**
     * How long the coordinator may take to answer {@code request} when it is forwarded: for a
     * JoinGroup, its rebalance timeout (v0: its session timeout; negative ones count as 0) capped at
     * {@link Config#maxRebalanceWait}, plus {@link Config#readTimeout}; for a SyncGroup (which waits
     * for the leader's, up to the group's rebalance timeout, not in the request) {@link
     * Config#maxRebalanceWait} plus {@link Config#readTimeout}; for any other request {@link
     * Config#readTimeout}.
     */
    public Duration readTimeout(AbstractRequest request) {
        return switch (request) {
            case JoinGroupRequest join -> {
                // v0 has no rebalance timeout: kafka-clients' JoinGroupRequest sets it to the
                // session timeout (maybeOverrideRebalanceTimeout), as Kafka's coordinator reads v0.
                Duration rebalanceWait =
                        Duration.ofMillis(Math.max(0, join.data().rebalanceTimeoutMs()));
                yield min(rebalanceWait, config.maxRebalanceWait()).plus(config.readTimeout());
            }
            case SyncGroupRequest ignored -> config.maxRebalanceWait().plus(config.readTimeout());
            default -> config.readTimeout();
        };
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
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
            AbstractResponse response = roundTrip(socket, request, header, config.readTimeout());
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
     * next request is read only after this one's answer is written. The answer may take {@link
     * #readTimeout(AbstractRequest)}: a JoinGroup or SyncGroup holds its socket while the
     * coordinator waits for the rebalance.
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
        Duration readTimeout = readTimeout(body);
        AbstractResponse response;
        try {
            response = roundTrip(socket, body, header, readTimeout);
        } catch (IOException e) {
            close(socket);
            if (!reused || e instanceof SocketTimeoutException) {
                // A timeout may mean the coordinator got the request and is slow: not sent twice.
                throw e;
            }
            // An idle connection the coordinator closed meanwhile: once more on a fresh one.
            socket = connect(coordinator);
            try {
                response = roundTrip(socket, body, header, readTimeout);
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
        return security.connect(
                coordinator.host(),
                coordinator.port(),
                config.connectTimeout(),
                config.readTimeout(),
                clientId,
                config.maxResponseBytes());
    }

    /**
     * One request and its response on {@code socket}, in Kafka's framing; the response must start
     * within {@code readTimeout} (and each later read too). The round trip is reported as the
     * calling request's wait ({@link RequestWaits}): the coordinators work on it, not this broker
     * (a JoinGroup held until its rebalance completes is no work of the broker's), so it does not
     * count toward the caller's {@code request_percentage}, as Kafka's purgatories do not.
     */
    private AbstractResponse roundTrip(
            Socket socket, AbstractRequest request, RequestHeader header, Duration readTimeout) throws IOException {
        socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
        long sentAt = System.nanoTime();
        try {
            return KafkaFrames.roundTrip(socket, request, header, config.maxResponseBytes());
        } finally {
            RequestWaits.waited(System.nanoTime() - sentAt);
        }
    }
}
