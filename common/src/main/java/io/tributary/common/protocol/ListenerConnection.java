package io.tributary.common.protocol;

import io.micrometer.core.instrument.Timer;
import io.tributary.common.protocol.ProtocolMetrics.FrameRejection;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.sasl.SaslSession;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.SslPrincipalMapper;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of a {@link KafkaProtocolServer} and the thread that serves it ({@link
 * ProtocolServerConfig.ConnectionThreads}), for its whole life: the TLS handshake when the listener
 * has TLS, then one request after another, each read, handled ({@link KafkaProtocolServer#dispatch},
 * or the SASL exchange of {@link SaslSession}) and answered before the next is read, so answers
 * leave in request order. A frame that cannot be read or decoded closes the connection (Kafka does
 * the same); a throttled answer mutes the connection for its throttle time.
 *
 * <p>Thread-safety: its own thread runs {@link #serve}; the listener's {@link #stopReading} and
 * {@link #forceClose} may be called from any thread.
 */
final class ListenerConnection {

    private static final Logger log = LoggerFactory.getLogger(ListenerConnection.class);

    private final KafkaProtocolServer listener;
    private final ProtocolServerConfig config;
    private final ProtocolMetrics metrics;
    private final SocketChannel socket;
    /** Its name in logs and its thread's name ({@code <listener>-<n>}). */
    final String id;
    /** The thread that serves it; set by the listener before it starts the thread. */
    volatile Thread thread;
    /** This connection's SASL exchange, or null on a listener without authentication. */
    private final SaslSession session;
    /** The connection once its SASL exchange completed (its principal); only its thread uses it. */
    private ConnectionInfo authenticatedInfo;
    /** Whether the thread is waiting out a throttle ({@link #mute}); the listener's close wakes it. */
    private volatile boolean muted;

    ListenerConnection(KafkaProtocolServer listener, SocketChannel socket, String id) {
        this.listener = listener;
        this.config = listener.config();
        this.metrics = listener.metrics();
        this.socket = socket;
        this.id = id;
        SaslSettings sasl = listener.security().sasl();
        this.session = sasl == null ? null : new SaslSession(sasl, config.host());
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
            if (listener.tlsContexts() == null) {
                in = new DataInputStream(new BufferedInputStream(plain.getInputStream()));
                out = new SocketTransferableChannel(socket);
            } else {
                SSLEngine engine =
                        listener.tlsContexts().current().createSSLEngine(remote.getHostString(), remote.getPort());
                listener.security().tls().configure(engine);
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
                        secured.session(), listener.security().tls().principalMapper());
                if (principal.isEmpty() && session == null) {
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
            while (!listener.closing() && serveOne(in, out, authenticatedInfo == null ? info : authenticatedInfo)) {
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
                KafkaProtocolServer.closeQuietly(out); // a TLS connection answers the client's close_notify first
            }
            forceClose();
            listener.connectionEnded(this);
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
        listener.inFlightBytes().acquire(size);
        try {
            byte[] frame = new byte[size];
            try {
                in.readFully(frame);
            } catch (EOFException e) {
                return reject(
                        info, FrameRejection.TRUNCATED, "the connection ended inside a %d-byte frame".formatted(size));
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
            listener.inFlightBytes().release(size);
        }
    }

    /** Dispatches a decoded request and writes its answer; false when the connection is to be closed. */
    private boolean answer(KafkaCodec.Decoded decoded, ConnectionInfo info, ResponseChannel out, Timer.Sample sample)
            throws IOException {
        Answer answer = listener.dispatch(decoded, info);
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
            while (!listener.closing() && (left = deadline - System.nanoTime()) > 0) {
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
    private void write(KafkaCodec.Decoded decoded, AbstractResponse response, ResponseChannel out) throws IOException {
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
        KafkaProtocolServer.closeQuietly(socket);
    }

    /**
     * The principal of a TLS connection without SASL, as Kafka's default principal builder: {@code
     * User:} and the name {@code mapper} makes of the client certificate's subject as RFC 2253 writes
     * it ({@code User:CN=client,O=example} with the default rules), or {@code User:ANONYMOUS} when
     * the client presented none; empty when no mapping rule applies.
     */
    private static Optional<KafkaPrincipal> certificatePrincipal(SSLSession tlsSession, SslPrincipalMapper mapper) {
        try {
            return mapper.name(tlsSession.getPeerPrincipal().getName()).map(KafkaPrincipal::user);
        } catch (SSLPeerUnverifiedException e) {
            return Optional.of(KafkaPrincipal.ANONYMOUS);
        }
    }
}
