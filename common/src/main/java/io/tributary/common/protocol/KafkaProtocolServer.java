package io.tributary.common.protocol;

import io.tributary.common.security.sasl.SaslSession;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.TlsContextSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.errors.InvalidRequestException;
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
    private final Set<ListenerConnection> connections = ConcurrentHashMap.newKeySet();
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
        for (ListenerConnection connection : connections) {
            connection.stopReading();
        }
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        for (ListenerConnection connection : connections) {
            long left = Math.max(0, deadline - System.nanoTime());
            joinQuietly(connection.thread, Duration.ofNanos(left));
        }
        for (ListenerConnection connection : connections) {
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
            ListenerConnection connection =
                    new ListenerConnection(this, socket, config.name() + "-" + connectionSequence.incrementAndGet());
            connections.add(connection);
            metrics.connectionOpened();
            connection.thread = config.connectionThreads()
                    .builder(tls != null)
                    .name(connection.id)
                    .unstarted(connection::serve);
            connection.thread.start();
        }
    }

    // What a connection (ListenerConnection) uses of its listener.

    ProtocolServerConfig config() {
        return config;
    }

    ProtocolMetrics metrics() {
        return metrics;
    }

    ListenerSecurity security() {
        return security;
    }

    /** The TLS contexts (reloaded when the files change), or null on a listener without TLS. */
    TlsContextSource tlsContexts() {
        return tls;
    }

    /** The request bytes all connections may hold at once ({@code maxInFlightRequestBytes}). */
    Semaphore inFlightBytes() {
        return inFlightBytes;
    }

    boolean closing() {
        return closing;
    }

    /** A connection's thread ended: it is forgotten, and the at-capacity warning may be logged again. */
    void connectionEnded(ListenerConnection connection) {
        connections.remove(connection);
        metrics.connectionClosed();
        if (connections.size() < config.maxConnections()) {
            atCapacityLogged.set(false);
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

    /** Answers a decoded request: ApiVersions itself, any other API by its handler. */
    Answer dispatch(KafkaCodec.Decoded decoded, ConnectionInfo info) {
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

    static void closeQuietly(AutoCloseable closeable) {
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
