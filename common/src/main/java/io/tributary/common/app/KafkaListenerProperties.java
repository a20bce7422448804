package io.tributary.common.app;

import io.tributary.common.listeners.KafkaListenersConfig;
import io.tributary.common.listeners.ListenerAddress;
import io.tributary.common.listeners.ListenerSecurities;
import io.tributary.common.listeners.ListenerSpec;
import io.tributary.common.listeners.SecurityProtocol;
import io.tributary.common.protocol.ListenerSecurity;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.ProtocolServerConfig.ConnectionThreads;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.TlsClient;
import io.tributary.common.security.tls.TlsSettings;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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
 * @param ssl TLS on this listener and on the process's own clients of internal listeners, with
 *     Kafka's names after {@code tributary.kafka.ssl.} (the keys of {@link #SSL_KEYS}); with {@code
 *     keystore.location} set the listener is TLS ({@code SSL}, or {@code SASL_SSL} when the service
 *     requires logins), read as a named listener's {@code ssl.*} settings are, with the same
 *     defaults (docs/security.md, "Internal traffic"); empty: no TLS
 * @param securityFileCheckInterval how often at most the TLS files are looked at for a change, when
 *     a connection is accepted (a renewed certificate is used without a restart)
 * @param connectionThreads {@code auto} (the default: platform threads on TLS listeners, virtual
 *     ones on the others), {@code virtual} or {@code platform}: the thread each connection of every
 *     Kafka listener of the process is served on ({@link ConnectionThreads})
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
        @DefaultValue("0") @Min(0) @Max(65535) int advertisedPort,
        @DefaultValue Map<String, String> ssl,
        @DefaultValue("30s") @NotNull Duration securityFileCheckInterval,
        @DefaultValue("auto") @NotNull ConnectionThreads connectionThreads) {

    /** The configuration prefix of this listener's settings, for messages. */
    public static final String PREFIX = "tributary.kafka.";

    /** The listener's name in the TLS settings' messages. */
    private static final String TLS_LISTENER_NAME = "INTERNAL";

    /**
     * The keys of {@code tributary.kafka.ssl.*}: a named listener's {@code ssl.*} keys, Kafka's, and
     * Kafka's client key {@code endpoint.identification.algorithm} ({@code https}, the default, or
     * empty) for this process's clients of internal listeners.
     */
    public static final Set<String> SSL_KEYS = Stream.concat(
                    KafkaListenersConfig.LISTENER_KEYS.stream()
                            .filter(key -> key.startsWith("ssl."))
                            .map(key -> key.substring("ssl.".length())),
                    Stream.of("endpoint.identification.algorithm"))
            .collect(Collectors.toUnmodifiableSet());

    public KafkaListenerProperties {
        ssl = ssl == null ? Map.of() : Map.copyOf(ssl);
        for (String key : ssl.keySet()) {
            if (!SSL_KEYS.contains(key)) {
                throw new IllegalArgumentException("%sssl.%s is not a TLS setting of this listener; known: %s"
                        .formatted(PREFIX, key, new TreeSet<>(SSL_KEYS)));
            }
        }
        if (securityFileCheckInterval != null && securityFileCheckInterval.isNegative()) {
            throw new IllegalArgumentException(
                    PREFIX + "security-file-check-interval must not be negative, got " + securityFileCheckInterval);
        }
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

    /** Whether this listener is TLS: {@code tributary.kafka.ssl.keystore.location} is set. */
    public boolean tlsEnabled() {
        return sslSetting("keystore.location").isPresent();
    }

    /**
     * This listener's security: TLS when {@link #tlsEnabled()}, and {@code sasl} when present ({@code
     * SASL_SSL} or {@code SASL_PLAINTEXT}).
     *
     * @throws IllegalArgumentException naming the setting that is wrong or the file that cannot be
     *     read
     */
    public ListenerSecurity security(Optional<SaslSettings> sasl) {
        TlsSettings tls = null;
        if (tlsEnabled()) {
            Map<String, String> settings = new HashMap<>();
            ssl.forEach((key, value) -> settings.put("ssl." + key, value));
            SecurityProtocol protocol = sasl.isPresent() ? SecurityProtocol.SASL_SSL : SecurityProtocol.SSL;
            ListenerSpec spec = new ListenerSpec(
                    new ListenerAddress(TLS_LISTENER_NAME, host, port), protocol, Optional.empty(), true, settings);
            tls = ListenerSecurities.tls(spec, PREFIX);
        }
        return new ListenerSecurity(tls, sasl.orElse(null), securityFileCheckInterval);
    }

    /**
     * The TLS client for this process's connections to internal listeners that are TLS: it trusts
     * {@code ssl.truststore.*} (the JDK's authorities when unset), offers {@code
     * ssl.enabled.protocols} and checks the server's host name unless {@code
     * ssl.endpoint.identification.algorithm} is empty.
     *
     * @throws IllegalArgumentException naming the setting that is wrong or the file that cannot be
     *     read
     */
    public TlsClient tlsClient() {
        String type = sslSetting("truststore.type").orElse("JKS").toUpperCase(Locale.ROOT);
        if (!TlsSettings.STORE_TYPES.contains(type)) {
            throw new IllegalArgumentException(
                    "%sssl.truststore.type is JKS, PKCS12 or PEM, got '%s'".formatted(PREFIX, type));
        }
        List<String> protocols = sslSetting("enabled.protocols")
                .map(value -> Arrays.stream(value.split(","))
                        .map(String::trim)
                        .filter(p -> !p.isEmpty())
                        .toList())
                .orElse(TlsSettings.DEFAULT_PROTOCOLS);
        try {
            return new TlsClient(
                    sslSetting("truststore.location").map(Path::of).orElse(null),
                    type,
                    sslSetting("truststore.password").map(String::toCharArray).orElse(null),
                    protocols,
                    ssl.getOrDefault("endpoint.identification.algorithm", TlsClient.HTTPS));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(PREFIX + "ssl.*: " + e.getMessage(), e);
        }
    }

    /**
     * The kafka-clients settings of a client of TLS internal listeners, the same as {@link
     * #tlsClient()}: the trust store, the TLS versions and {@code
     * ssl.endpoint.identification.algorithm} ({@code security.protocol}, {@code SSL} or {@code
     * SASL_SSL}, and the login are the caller's).
     */
    public Map<String, String> kafkaClientTlsProperties() {
        tlsClient(); // the same checks, and the trust store readable now
        Map<String, String> properties = new HashMap<>();
        sslSetting("truststore.location").ifPresent(v -> properties.put("ssl.truststore.location", v));
        sslSetting("truststore.password").ifPresent(v -> properties.put("ssl.truststore.password", v));
        properties.put(
                "ssl.truststore.type",
                sslSetting("truststore.type").orElse("JKS").toUpperCase(Locale.ROOT));
        sslSetting("enabled.protocols").ifPresent(v -> properties.put("ssl.enabled.protocols", v));
        properties.put(
                "ssl.endpoint.identification.algorithm",
                ssl.getOrDefault("endpoint.identification.algorithm", TlsClient.HTTPS)
                        .trim());
        return properties;
    }

    private Optional<String> sslSetting(String key) {
        return Optional.ofNullable(ssl.get(key)).map(String::trim).filter(v -> !v.isEmpty());
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
                shutdownTimeout,
                connectionThreads);
    }
}
