package io.tributary.common.app;

import io.tributary.common.protocol.ProtocolServerConfig;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The Kafka-protocol listener ({@code tributary.kafka.*}). Each bound is described on {@link
 * ProtocolServerConfig}.
 *
 * @param host address to bind; {@code 127.0.0.1} by default, {@code 0.0.0.0} for every interface
 * @param port port to bind; 0 picks a free one
 * @param maxFrameSize largest request accepted (Kafka's {@code socket.request.max.bytes})
 * @param maxConnections connections open at once
 * @param maxInFlightRequestSize request bytes held by all connections together
 * @param idleTimeout a silent connection is closed after this long
 * @param shutdownTimeout how long requests in flight may take to finish at shutdown
 * @param advertisedHost the host name clients are told to connect to (a broker registers it with
 *     the coordinators); empty: the bind host, or this machine's host name when bound to every
 *     interface
 * @param advertisedPort the port clients are told to connect to; 0: the port actually bound (which
 *     differs from {@code port} when that is 0)
 */
@Validated
@ConfigurationProperties("tributary.kafka")
public record KafkaListenerProperties(
        @DefaultValue("127.0.0.1") @NotBlank String host,
        @DefaultValue("9092") @Min(0) @Max(65535) int port,
        @DefaultValue("100MB") @NotNull DataSize maxFrameSize,
        @DefaultValue("1000") @Min(1) @Max(1_000_000) int maxConnections,
        @DefaultValue("512MB") @NotNull DataSize maxInFlightRequestSize,
        @DefaultValue("10m") @NotNull Duration idleTimeout,
        @DefaultValue("10s") @NotNull Duration shutdownTimeout,
        @DefaultValue("") String advertisedHost,
        @DefaultValue("0") @Min(0) @Max(65535) int advertisedPort) {

    public KafkaListenerProperties {
        if (maxFrameSize != null && (maxFrameSize.toBytes() < 64 || maxFrameSize.toBytes() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "tributary.kafka.max-frame-size must be between 64B and 2147483647B, got " + maxFrameSize);
        }
        if (maxInFlightRequestSize != null
                && maxFrameSize != null
                && (maxInFlightRequestSize.toBytes() < maxFrameSize.toBytes()
                        || maxInFlightRequestSize.toBytes() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "tributary.kafka.max-in-flight-request-size must be between max-frame-size (%s) and 2147483647B, got %s"
                            .formatted(maxFrameSize, maxInFlightRequestSize));
        }
    }

    /**
     * The host clients are told to connect to: {@code advertised-host} when set, else the bind
     * host, or this machine's host name when the bind host is a wildcard ({@code 0.0.0.0},
     * {@code ::}).
     */
    public String resolvedAdvertisedHost() {
        return resolveAdvertisedHost(advertisedHost, host, "tributary.kafka.advertised-host");
    }

    /**
     * The host clients of a listener are told to connect to: {@code advertisedHost} when set, else
     * {@code bindHost}, or this machine's host name when {@code bindHost} is a wildcard ({@code
     * 0.0.0.0}, {@code ::}).
     *
     * @param property the advertised host's configuration key, for the error message
     * @throws IllegalStateException when the host name is needed and cannot be resolved
     */
    public static String resolveAdvertisedHost(String advertisedHost, String bindHost, String property) {
        if (advertisedHost != null && !advertisedHost.isBlank()) {
            return advertisedHost.trim();
        }
        try {
            InetAddress bound = InetAddress.getByName(bindHost);
            if (!bound.isAnyLocalAddress()) {
                return bindHost;
            }
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            throw new IllegalStateException(
                    "%s is empty and this machine's host name cannot be resolved; set %s".formatted(property, property),
                    e);
        }
    }

    /** The port clients are told to connect to: {@code advertised-port} when set, else {@code boundPort}. */
    public int resolvedAdvertisedPort(int boundPort) {
        return advertisedPort > 0 ? advertisedPort : boundPort;
    }

    /** The core config; its constructor checks the relations between bounds. */
    public ProtocolServerConfig toConfig(String name) {
        return new ProtocolServerConfig(
                name,
                host,
                port,
                Math.toIntExact(maxFrameSize.toBytes()),
                maxConnections,
                maxInFlightRequestSize.toBytes(),
                idleTimeout,
                shutdownTimeout);
    }
}
