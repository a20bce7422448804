package io.tributary.common.protocol;

import io.micrometer.core.instrument.Timer;
import io.tributary.common.protocol.ProtocolMetrics.FrameRejection;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.sasl.SaslSession;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.SslPrincipalMapper;
import io.tributary.common.security.tls.TlsContextSource;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka-protocol listener: accepts connections, reads size-prefixed request frames, dispatches
 * each by API key to its {@link RequestHandler}, and writes the responses back in request order.
 * ApiVersions is answered by the server itself from the registered handlers. See the package
 * documentation for the frame format and the invariants.
 *
 * <p>Threading: one acceptor thread; one thread per connection (virtual or platform, {@link
 * ProtocolServerConfig.ConnectionThreads}) that reads a request,
 * handles it and writes its response before it reads the next (blocking I/O; a waiting handler
 * parks only its own connection's thread). {@link #start()} and {@link #close()} may be called from
 * any thread, each once.
 */
public final class KafkaProtocolServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaProtocolServer.class);

    private final ProtocolServerConfig config;
    private final ListenerSecurity security;
    private final SaslSettings sasl;
    private final TlsContextSource tls;
    private final Map<ApiKeys, RequestHandler> handlers;
    private final List<ApiVersionRange> advertised;
    private final ProtocolMetrics metrics;
    private final Semaphore inFlightBytes;
    private final ThrottledCloses throttledCloses;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionSequence = new AtomicLong();
    private final AtomicBoolean atCapacityLogged = new AtomicBoolean();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closeStarted = new AtomicBoolean();
    private volatile boolean closing;
    private volatile ServerSocketChannel serverChannel;
    private volatile Thread acceptor;

    /**
     * @param handlers one per API; ApiVersions is the server's own and must not be among them
     */
    public KafkaProtocolServer(
            ProtocolServerConfig config, Collection<? extends RequestHandler> handlers, ProtocolMetrics metrics) {
        this(config, handlers, metrics, ListenerSecurity.PLAINTEXT);
    }

    /**
     * A listener with TLS, SASL or both ({@link ListenerSecurity}). With SASL every connection
     * authenticates before anything but ApiVersions ({@link SaslSession}); SaslHandshake and
     * SaslAuthenticate are the listener's own, like ApiVersions. With TLS each connection's
     * handshake runs on its own thread before its first request; the key store is read here.
     *
     * @throws IllegalArgumentException when the TLS stores cannot be read
     */
    public KafkaProtocolServer(
            ProtocolServerConfig config,
            Collection<? extends RequestHandler> handlers,
            ProtocolMetrics metrics,
            ListenerSecurity security) {
        this(config, handlers, metrics, security, ConnectionAdmission.OPEN);
    }

    /**
     * A listener that asks {@code admission} about each connection it accepts; one refused is held
     * unread for its throttle time, then closed ({@link ThrottledCloses}).
     */
    public KafkaProtocolServer(
            ProtocolServerConfig config,
            Collection<? extends RequestHandler> handlers,
            ProtocolMetrics metrics,
            ListenerSecurity security,
            ConnectionAdmission admission) {
        this.throttledCloses = new ThrottledCloses(config.name(), config.maxConnections(), admission, metrics);
        this.security = security;
        this.sasl = security.sasl();
        this.tls = security.tls() == null
                ? null
                : new TlsContextSource(security.tls(), security.tlsFileCheckInterval(), InstantSource.system());
        this.config = config;
        this.metrics = metrics;
        this.inFlightBytes = new Semaphore(Math.toIntExact(config.maxInFlightRequestBytes()));
        Map<ApiKeys, RequestHandler> byKey = new EnumMap<>(ApiKeys.class);
        for (RequestHandler handler : handlers) {
            ApiKeys key = handler.versions().apiKey();
            if (key == ApiKeys.API_VERSIONS
                    || (sasl != null && (key == ApiKeys.SASL_HANDSHAKE || key == ApiKeys.SASL_AUTHENTICATE))) {
                throw new IllegalArgumentException(key.name + " is answered by the listener itself");
            }
            if (byKey.putIfAbsent(key, handler) != null) {
                throw new IllegalArgumentException("two handlers for " + key);
            }
        }
        this.handlers = byKey;
        List<ApiVersionRange> ranges = new ArrayList<>();
        ranges.add(new ApiVersionRange(
                ApiKeys.API_VERSIONS, ApiKeys.API_VERSIONS.oldestVersion(), ApiKeys.API_VERSIONS.latestVersion()));
        if (sasl != null) {
            for (ApiKeys key : List.of(ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE)) {
                ranges.add(new ApiVersionRange(key, key.oldestVersion(), key.latestVersion()));
            }
        }
        byKey.values().forEach(handler -> ranges.add(handler.versions()));
        this.advertised = List.copyOf(ranges);
    }

    /**
     * Binds the port and starts accepting.
     *
     * @throws UncheckedIOException when the address cannot be bound
     */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("listener " + config.name() + " was already started");
        }
        try {
            ServerSocketChannel channel = ServerSocketChannel.open();
            channel.bind(new InetSocketAddress(config.host(), config.port()), 128);
            serverChannel = channel;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot listen on %s:%d for %s".formatted(config.host(), config.port(), config.name()), e);
        }
        acceptor = Thread.ofPlatform()
                .name(config.name() + "-acceptor")
                .daemon(true)
                .start(this::acceptLoop);
        log.info(
                "Kafka-protocol listener {} on {}:{} serving {}",
                config.name(),
                config.host(),
                port(),
                advertised.stream().map(r -> r.apiKey().name).toList());
    }

    /** The bound port (useful when the configured port is 0). */
    public int port() {
        ServerSocketChannel channel = serverChannel;
        if (channel == null) {
            throw new IllegalStateException("listener " + config.name() + " is not started");
        }
        return ((InetSocketAddress) channel.socket().getLocalSocketAddress()).getPort();
    }

    /** Whether the listener is bound and accepting. */
    public boolean isServing() {
        ServerSocketChannel channel = serverChannel;
        return channel != null && channel.isOpen() && !closing;
    }

    /** What ApiVersions advertises: ApiVersions itself and each handler's range. */
    public List<ApiVersionRange> advertisedVersions() {
        return advertised;
    }

    /** Open connections now. */
    public int connectionCount() {
        return connections.size();
    }

    /**
     * Stops accepting, lets each connection finish the request it is handling (up to the configured
     * shutdown timeout), then closes every connection.
     */
    @Override
    public void close() {
        if (!closeStarted.compareAndSet(false, true)) {
            return;
        }
        closing = true;
        ServerSocketChannel channel = serverChannel;
        if (channel != null) {
            closeQuietly(channel);
        }
        Thread acceptorThread = acceptor;
        if (acceptorThread != null) {
            joinQuietly(acceptorThread, Duration.ofSeconds(5));
        }
        throttledCloses.close();
        for (Connection connection : connections) {
            connection.stopReading();
        }
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        for (Connection connection : connections) {
            long left = Math.max(0, deadline - System.nanoTime());
            joinQuietly(connection.thread, Duration.ofNanos(left));
        }
        for (Connection connection : connections) {
            // Past the deadline: close the socket and wake a thread parked on the in-flight budget.
            connection.forceClose();
            Thread thread = connection.thread;
            if (thread != null) {
                thread.interrupt();
            }
        }
        log.info("Kafka-protocol listener {} closed", config.name());
    }

    private void acceptLoop() {
        ServerSocketChannel channel = serverChannel;
        while (!closing) {
            SocketChannel socket;
            try {
                socket = channel.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closing) {
                    return;
                }
                log.warn("Listener {} failed to accept a connection: {}", config.name(), e.toString());
                continue;
            }
            if (connections.size() >= config.maxConnections() || closing) {
                metrics.connectionRefused();
                if (atCapacityLogged.compareAndSet(false, true)) {
                    log.warn(
                            "Listener {} is at maxConnections={}, closing new connections until one ends",
                            config.name(),
                            config.maxConnections());
                }
                closeQuietly(socket);
                continue;
            }
            if (throttledCloses.refused(socket)) {
                continue;
            }
            Connection connection = new Connection(socket, config.name() + "-" + connectionSequence.incrementAndGet());
            connections.add(connection);
            metrics.connectionOpened();
            connection.thread = config.connectionThreads()
                    .builder(tls != null)
                    .name(connection.id)
                    .unstarted(connection::serve);
            connection.thread.start();
        }
    }

    /** One client connection and the thread that serves it ({@link ProtocolServerConfig.ConnectionThreads}). */
    private final class Connection {
        final SocketChannel socket;
        final String id;
        volatile Thread thread;
        /** This connection's SASL exchange, or null on a listener without authentication. */
        final SaslSession session = sasl == null ? null : new SaslSession(sasl, config.host());
        /** The connection once its SASL exchange completed (its principal); only its thread uses it. */
        ConnectionInfo authenticatedInfo;
        /** Whether the thread is waiting out a throttle ({@link #mute}); the listener's close wakes it. */
        volatile boolean muted;

        Connection(SocketChannel socket, String id) {
            this.socket = socket;
            this.id = id;
        }

        void serve() {
            ConnectionInfo info = null;
            ResponseChannel out = null;
            try {
                Socket plain = socket.socket();
                plain.setTcpNoDelay(true);
                plain.setSoTimeout(Math.toIntExact(config.idleTimeout().toMillis()));
                InetSocketAddress remote = (InetSocketAddress) socket.getRemoteAddress();
                info = new ConnectionInfo(id, remote, config.name());
                DataInputStream in;
                if (tls == null) {
                    in = new DataInputStream(new BufferedInputStream(plain.getInputStream()));
                    out = new SocketTransferableChannel(socket);
                } else {
                    SSLEngine engine = tls.current().createSSLEngine(remote.getHostString(), remote.getPort());
                    security.tls().configure(engine);
                    TlsChannel secured = new TlsChannel(engine, plain);
                    out = secured;
                    try {
                        secured.handshake();
                    } catch (IOException e) {
                        log.info(
                                "Closing connection {} from {} on {}: TLS handshake failed: {}",
                                id,
                                remote,
                                config.name(),
                                e.getMessage());
                        return;
                    }
                    Optional<KafkaPrincipal> principal = certificatePrincipal(
                            secured.session(), security.tls().principalMapper());
                    if (principal.isEmpty() && sasl == null) {
                        log.info(
                                "Closing connection {} from {} on {}: no ssl.principal.mapping.rules rule applies"
                                        + " to its certificate's subject",
                                id,
                                remote,
                                config.name());
                        return;
                    }
                    // On SASL_SSL the SASL exchange names the principal; the mapping rules do not apply.
                    info = info.withPrincipal(principal.orElse(KafkaPrincipal.ANONYMOUS));
                    in = new DataInputStream(secured.input()); // TlsChannel buffers what it decrypts
                }
                while (!closing && serveOne(in, out, authenticatedInfo == null ? info : authenticatedInfo)) {
                    // next request
                }
            } catch (SocketTimeoutException e) {
                log.debug("Connection {} idle for {}, closing", id, config.idleTimeout());
            } catch (IOException e) {
                log.debug("Connection {} ended: {}", id, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (out != null) {
                    closeQuietly(out); // a TLS connection answers the client's close_notify first
                }
                forceClose();
                connections.remove(this);
                metrics.connectionClosed();
                if (connections.size() < config.maxConnections()) {
                    atCapacityLogged.set(false);
                }
            }
        }

        /** Reads, handles and answers one request; false when the connection is to be closed. */
        private boolean serveOne(DataInputStream in, ResponseChannel out, ConnectionInfo info)
                throws IOException, InterruptedException {
            int first = in.read();
            if (first < 0) {
                return false;
            }
            int size;
            try {
                size = (first << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedShort());
            } catch (EOFException e) {
                return reject(info, FrameRejection.TRUNCATED, "the connection ended inside a frame's length");
            }
            if (size < 0) {
                return reject(info, FrameRejection.NEGATIVE_SIZE, "frame length " + size + " is negative");
            }
            if (size > config.maxFrameBytes()) {
                return reject(
                        info,
                        FrameRejection.OVERSIZED,
                        "frame length %d is over maxFrameBytes=%d".formatted(size, config.maxFrameBytes()));
            }
            inFlightBytes.acquire(size);
            try {
                byte[] frame = new byte[size];
                try {
                    in.readFully(frame);
                } catch (EOFException e) {
                    return reject(
                            info,
                            FrameRejection.TRUNCATED,
                            "the connection ended inside a %d-byte frame".formatted(size));
                }
                Timer.Sample sample = metrics.startRequest();
                KafkaCodec.Decoded decoded;
                try {
                    decoded = KafkaCodec.decode(ByteBuffer.wrap(frame));
                } catch (MalformedRequestException e) {
                    return reject(info, FrameRejection.MALFORMED, e.getMessage());
                }
                try {
                    SaslSession.Route route = session == null ? SaslSession.Route.SERVE : session.route(decoded.body());
                    if (route == SaslSession.Route.EXPIRED) {
                        // KIP-368: as Kafka, closed without an answer once the session expired.
                        metrics.sessionExpired();
                        log.info(
                                "Closing connection {} from {} on {}: its SASL session expired before {}",
                                id,
                                info.remoteAddress(),
                                config.name(),
                                decoded.header().apiKey().name);
                        return false;
                    }
                    return route == SaslSession.Route.EXCHANGE
                            ? authenticate(decoded, info, out, sample)
                            : answer(decoded, info, out, sample);
                } catch (RuntimeException e) {
                    // kafka-clients could not build or encode an answer for a request it parsed (a
                    // hostile body such as an acks=0 produce without records): treat it as malformed.
                    return reject(
                            info,
                            FrameRejection.MALFORMED,
                            "%s v%d could not be answered: %s"
                                    .formatted(
                                            decoded.header().apiKey().name,
                                            decoded.header().apiVersion(),
                                            e));
                }
            } finally {
                inFlightBytes.release(size);
            }
        }

        /** Dispatches a decoded request and writes its answer; false when the connection is to be closed. */
        private boolean answer(
                KafkaCodec.Decoded decoded, ConnectionInfo info, ResponseChannel out, Timer.Sample sample)
                throws IOException {
            Answer answer = dispatch(decoded, info);
            if (answer.response() == null) {
                // A failed request that gets no response, not even an error (an acks=0 produce):
                // as Kafka does, close the connection, which is how such a client learns of it.
                metrics.requestCompleted(decoded.header().apiKey(), sample, answer.errorCounts());
                log.warn(
                        "Closing connection {} from {} on {}: a {} request that expects no response failed",
                        id,
                        info.remoteAddress(),
                        config.name(),
                        decoded.header().apiKey().name);
                return false;
            }
            if (KafkaCodec.expectsResponse(decoded.body())) {
                write(decoded, answer.response(), out);
            }
            metrics.requestCompleted(decoded.header().apiKey(), sample, answer.errorCounts());
            mute(answer.response().throttleTimeMs());
            return true;
        }

        /**
         * Kafka's channel muting for a throttled client: after the answer that carried {@code
         * throttle_time_ms}, nothing more is read from the connection for that long (its requests wait
         * in the socket). Ends early when the listener closes.
         */
        private void mute(int throttleMs) {
            if (throttleMs <= 0) {
                return;
            }
            metrics.connectionMuted(throttleMs);
            muted = true;
            try {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(throttleMs);
                long left;
                while (!closing && (left = deadline - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(this, left);
                }
            } finally {
                muted = false;
            }
        }

        /**
         * One step of the SASL exchange ({@link SaslSession}); false when the connection is to be
         * closed. Once it completes, the connection's requests carry the authenticated principal.
         */
        private boolean authenticate(
                KafkaCodec.Decoded decoded, ConnectionInfo info, ResponseChannel out, Timer.Sample sample)
                throws IOException {
            SaslSession.Step step = session.handle(decoded.body());
            metrics.reauthentication(step.reauthentication());
            ApiKeys api = decoded.header().apiKey();
            if (step.response() == null) {
                metrics.requestCompleted(api, sample, Map.of());
                log.info(
                        "Closing connection {} from {} on {}: unexpected Kafka request of type {} in SASL state {}",
                        id,
                        info.remoteAddress(),
                        config.name(),
                        api.name,
                        step.reauthentication() == SaslSession.Reauthentication.FAILED
                                ? "re-authentication with another mechanism"
                                : "handshake");
                return false;
            }
            write(decoded, step.response(), out);
            metrics.requestCompleted(api, sample, step.response().errorCounts());
            if (session.authenticated()) {
                // On SASL_SSL the SASL principal replaces the certificate's, as on Kafka.
                authenticatedInfo = info.withPrincipal(session.principal());
            }
            if (step.closeAfter()) {
                log.info(
                        "Closing connection {} from {} on {}: SASL {} failed ({})",
                        id,
                        info.remoteAddress(),
                        config.name(),
                        session.mechanism() == null ? "handshake" : session.mechanism(),
                        step.response().errorCounts().keySet());
                return false;
            }
            return true;
        }

        /** Writes one response whole, then sends what a buffering (TLS) channel holds. */
        private void write(KafkaCodec.Decoded decoded, AbstractResponse response, ResponseChannel out)
                throws IOException {
            Send send = KafkaCodec.encode(decoded.header(), response);
            while (!send.completed()) {
                send.writeTo(out);
            }
            out.flush();
        }

        private boolean reject(ConnectionInfo info, FrameRejection reason, String detail) {
            metrics.frameRejected(reason);
            log.warn("Closing connection {} from {} on {}: {}", id, info.remoteAddress(), config.name(), detail);
            return false;
        }

        void stopReading() {
            Thread t = thread;
            if (muted && t != null) {
                LockSupport.unpark(t);
            }
            try {
                socket.shutdownInput();
            } catch (IOException e) {
                forceClose();
            }
        }

        void forceClose() {
            closeQuietly(socket);
        }
    }

    /**
     * The principal of a TLS connection without SASL, as Kafka's default principal builder: {@code
     * User:} and the name {@code mapper} makes of the client certificate's subject as RFC 2253 writes
     * it ({@code User:CN=client,O=example} with the default rules), or {@code User:ANONYMOUS} when
     * the client presented none; empty when no mapping rule applies.
     */
    private static Optional<KafkaPrincipal> certificatePrincipal(SSLSession session, SslPrincipalMapper mapper) {
        try {
            return mapper.name(session.getPeerPrincipal().getName()).map(KafkaPrincipal::user);
        } catch (SSLPeerUnverifiedException e) {
            return Optional.of(KafkaPrincipal.ANONYMOUS);
        }
    }

    /** How many times this listener reloaded its changed TLS files; 0 without TLS. */
    public long tlsReloads() {
        return tls == null ? 0 : tls.reloads();
    }

    /** How many times changed TLS files could not be loaded (the previous ones kept); 0 without TLS. */
    public long tlsReloadFailures() {
        return tls == null ? 0 : tls.reloadFailures();
    }

    private Answer dispatch(KafkaCodec.Decoded decoded, ConnectionInfo info) {
        RequestHeader header = decoded.header();
        AbstractRequest body = decoded.body();
        ApiKeys api = header.apiKey();
        if (body instanceof ApiVersionsRequest apiVersions) {
            if (!apiVersions.hasUnsupportedRequestVersion() && !apiVersions.isValid()) {
                return Answer.failed(body, new InvalidRequestException("client software name or version is not valid"));
            }
            return Answer.of(KafkaCodec.apiVersionsResponse(apiVersions, advertised));
        }
        RequestHandler handler = handlers.get(api);
        if (handler == null || !handler.versions().contains(header.apiVersion())) {
            return Answer.failed(body, KafkaCodec.unsupportedVersion(api, header.apiVersion()));
        }
        try {
            AbstractResponse response = handler.handle(new KafkaRequest(header, body, info));
            if (response == null) {
                throw new IllegalStateException("the " + api.name + " handler returned no response");
            }
            return Answer.of(response);
        } catch (RuntimeException e) {
            log.warn(
                    "{} v{} from {} (client {}) failed on {}",
                    api.name,
                    header.apiVersion(),
                    info.remoteAddress(),
                    header.clientId(),
                    config.name(),
                    e);
            return Answer.failed(body, e);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            log.debug("Ignoring a failure to close {}: {}", closeable, e.toString());
        }
    }

    private static void joinQuietly(Thread thread, Duration timeout) {
        if (thread == null) {
            return;
        }
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeout.toNanos())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
