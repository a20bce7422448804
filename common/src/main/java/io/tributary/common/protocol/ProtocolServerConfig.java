package io.tributary.common.protocol;

import java.time.Duration;
import java.util.Objects;

/**
 * The listener's settings and bounds.
 *
 * @param name the listener's name in logs, thread names and the {@code listener} metric tag
 * @param host the address to bind (a host name or IP; {@code 0.0.0.0} for all interfaces)
 * @param port the port to bind; 0 picks a free one (see {@link KafkaProtocolServer#port()})
 * @param maxFrameBytes the largest request frame accepted, after the 4-byte length; Kafka's
 *     {@code socket.request.max.bytes}, 100 MiB by default
 * @param maxConnections connections open at once; more are closed as soon as they are accepted
 * @param maxInFlightRequestBytes request bytes held in memory by all connections together; a
 *     reader waits for room before reading a frame (Kafka's {@code queued.max.request.bytes}); at
 *     least {@code maxFrameBytes}
 * @param idleTimeout a connection that sends nothing for this long is closed (Kafka's {@code
 *     connections.max.idle.ms}, 10 minutes by default)
 * @param shutdownTimeout how long {@link KafkaProtocolServer#close()} lets requests in flight finish
 *     before it closes their connections
 * @param connectionThreads what kind of thread serves each connection ({@link ConnectionThreads})
 */
public record ProtocolServerConfig(
        String name,
        String host,
        int port,
        int maxFrameBytes,
        int maxConnections,
        long maxInFlightRequestBytes,
        Duration idleTimeout,
        Duration shutdownTimeout,
        ConnectionThreads connectionThreads) {

    /**
     * The thread each connection is served on, for its whole life (reading its requests, running
     * their handlers, writing the answers).
     */
    public enum ConnectionThreads {
        /**
         * The default: a platform thread for each connection of a TLS listener ({@code SSL}, {@code
         * SASL_SSL}), a virtual thread for each of a listener without TLS. A TLS connection already
         * holds about 160 KiB of buffers ({@link TlsChannel}) and its requests arrive as 16 KiB
         * records, each of which would wake a parked virtual thread: there a platform thread costs
         * less CPU for a comparable share of memory. A plaintext connection stays about 20 KiB
         * while idle.
         */
        AUTO,
        /**
         * A virtual thread: the thread costs a few KiB while its connection waits, so tens of
         * thousands of mostly idle connections are cheap (about 20 KiB each with 5,000 held open,
         * heap included).
         * Every read that finds the socket empty parks the thread and the JDK's poller wakes it,
         * which costs a carrier thread's wake-up: under a stream of requests that arrive in pieces
         * (TLS records) that is most of the listener's CPU (docs/benchmarks.md, "Kafka API", the
         * TLS runs).
         */
        VIRTUAL,
        /**
         * A platform thread: a read that finds the socket empty blocks in the kernel, which wakes
         * the thread directly when bytes arrive. Less CPU per request for busy connections (the
         * TLS runs in docs/benchmarks.md), at the cost of an OS thread per open connection, up to
         * {@code maxConnections}: its stack reserved ({@value #PLATFORM_STACK_BYTES} bytes), of
         * which about 110 KiB stay committed once it has served requests (5,000 idle connections
         * held about 130 KiB each).
         */
        PLATFORM;

        /** The stack size asked for each platform connection thread. */
        public static final long PLATFORM_STACK_BYTES = 1024 * 1024;

        /** The kind a connection of a listener with or without TLS gets: never {@link #AUTO}. */
        public ConnectionThreads on(boolean tls) {
            return this == AUTO ? (tls ? PLATFORM : VIRTUAL) : this;
        }

        /** A builder of this kind's threads for a listener with or without TLS. */
        public Thread.Builder builder(boolean tls) {
            return on(tls) == PLATFORM
                    ? Thread.ofPlatform().daemon(true).stackSize(PLATFORM_STACK_BYTES)
                    : Thread.ofVirtual();
        }
    }

    /** Kafka's default {@code socket.request.max.bytes}. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024;

    public static final int DEFAULT_MAX_CONNECTIONS = 1000;
    public static final long DEFAULT_MAX_IN_FLIGHT_REQUEST_BYTES = 512L * 1024 * 1024;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(10);
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

    public ProtocolServerConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        Objects.requireNonNull(connectionThreads, "connectionThreads");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
        if (maxFrameBytes < 64) {
            throw new IllegalArgumentException("maxFrameBytes must be at least 64, got " + maxFrameBytes);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1, got " + maxConnections);
        }
        if (maxInFlightRequestBytes < maxFrameBytes || maxInFlightRequestBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "maxInFlightRequestBytes must be between maxFrameBytes (%d) and %d, got %d"
                            .formatted(maxFrameBytes, Integer.MAX_VALUE, maxInFlightRequestBytes));
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
        }
        if (shutdownTimeout.isNegative()) {
            throw new IllegalArgumentException("shutdownTimeout must not be negative, got " + shutdownTimeout);
        }
    }

    /** Defaults for every bound, on the given address. */
    public static ProtocolServerConfig defaults(String name, String host, int port) {
        return new ProtocolServerConfig(
                name,
                host,
                port,
                DEFAULT_MAX_FRAME_BYTES,
                DEFAULT_MAX_CONNECTIONS,
                DEFAULT_MAX_IN_FLIGHT_REQUEST_BYTES,
                DEFAULT_IDLE_TIMEOUT,
                DEFAULT_SHUTDOWN_TIMEOUT,
                ConnectionThreads.AUTO);
    }

    /** This config with its connections served on {@code threads}. */
    public ProtocolServerConfig withConnectionThreads(ConnectionThreads threads) {
        return new ProtocolServerConfig(
                name,
                host,
                port,
                maxFrameBytes,
                maxConnections,
                maxInFlightRequestBytes,
                idleTimeout,
                shutdownTimeout,
                threads);
    }

    /** This config with another maximum frame size. */
    public ProtocolServerConfig withMaxFrameBytes(int bytes) {
        return new ProtocolServerConfig(
                name,
                host,
                port,
                bytes,
                maxConnections,
                Math.max(bytes, maxInFlightRequestBytes),
                idleTimeout,
                shutdownTimeout,
                connectionThreads);
    }
}
