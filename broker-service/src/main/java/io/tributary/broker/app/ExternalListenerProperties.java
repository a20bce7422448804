package io.tributary.broker.app;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerListeners;
import io.tributary.common.app.KafkaListenerProperties;
import io.tributary.common.listeners.ListenerAddress;
import io.tributary.common.listeners.SecurityProtocol;
import io.tributary.common.protocol.ProtocolServerConfig;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The broker's optional second Kafka listener, for clients outside the network the brokers share
 * (outside a Kubernetes cluster): {@code tributary.broker.external-listener.*}. It serves the same
 * APIs as the internal listener ({@code tributary.kafka.*}) and its endpoint is registered with the
 * coordinators under the name {@value BrokerListeners#EXTERNAL}, so a client that came in on it is
 * told every broker's external address (see {@link BrokerListeners}). Its request bounds (largest
 * frame, request bytes in flight, idle and shutdown timeouts, connection threads) are the internal listener's, held
 * separately per listener; its connection bound is its own.
 *
 * <p>Its security protocol is its own setting ({@code security-protocol}); its TLS and SASL
 * settings are those of a named listener called {@value BrokerListeners#EXTERNAL}, with Kafka's
 * names ({@link NamedListenersProperties}): the global {@code tributary.broker.ssl.*}, {@code
 * tributary.broker.sasl.*} and {@code tributary.broker.connections.max.reauth.ms}, each replaced by
 * its {@code tributary.broker.listener.name.external.} form when that is set. Its clients' principals
 * are found as on a named listener of the same protocol, and the same ACLs and quotas apply to them.
 *
 * @param enabled whether the broker opens the external listener at all; off by default
 * @param host address to bind; {@code 127.0.0.1} by default, {@code 0.0.0.0} for every interface
 * @param port port to bind; 0 picks a free one
 * @param advertisedHost the host external clients are told to connect to; empty: the bind host, or
 *     this machine's host name when bound to every interface. Ignored when {@code
 *     advertisedAddresses} is set
 * @param advertisedPort the port external clients are told to connect to; 0: the port actually
 *     bound. Ignored when {@code advertisedAddresses} is set
 * @param advertisedAddresses per-broker advertised addresses, {@code host:port}, entry {@code i}
 *     for broker id {@code i}: one value shared by every broker of a StatefulSet (a Helm chart
 *     renders it) where each broker's external address differs (a node port or load balancer per
 *     broker); empty: {@code advertisedHost} and {@code advertisedPort}
 * @param maxConnections connections open at once on this listener; more are closed on accept
 * @param securityProtocol what secures its connections, one of Kafka's protocols: {@code
 *     PLAINTEXT} (the default: every client is {@code User:ANONYMOUS}), {@code SSL}, {@code
 *     SASL_PLAINTEXT} or {@code SASL_SSL}
 */
@Validated
@ConfigurationProperties("tributary.broker.external-listener")
public record ExternalListenerProperties(
        @DefaultValue("false") boolean enabled,
        @DefaultValue("127.0.0.1") @NotBlank String host,
        @DefaultValue("9094") @Min(0) @Max(65535) int port,
        @DefaultValue("") String advertisedHost,
        @DefaultValue("0") @Min(0) @Max(65535) int advertisedPort,
        @DefaultValue("") @NotNull List<String> advertisedAddresses,
        @DefaultValue("1000") @Min(1) @Max(1_000_000) int maxConnections,
        @DefaultValue("PLAINTEXT") @NotNull SecurityProtocol securityProtocol) {

    private static final String PREFIX = "tributary.broker.external-listener.";

    /** The setting of its security protocol, as the messages name it. */
    static final String SECURITY_PROTOCOL = PREFIX + "security-protocol";

    public ExternalListenerProperties {
        advertisedAddresses = advertisedAddresses == null
                ? List.of()
                : advertisedAddresses.stream()
                        .map(String::trim)
                        .filter(a -> !a.isEmpty())
                        .toList();
        for (String address : advertisedAddresses) {
            parse(address);
        }
    }

    /** The listener's core config: its own address and connection bound, the other bounds from {@code kafka}. */
    public ProtocolServerConfig toConfig(KafkaListenerProperties kafka) {
        ProtocolServerConfig internal = kafka.toConfig(BrokerListeners.EXTERNAL_SERVER_NAME);
        return new ProtocolServerConfig(
                BrokerListeners.EXTERNAL_SERVER_NAME,
                host,
                port,
                internal.maxFrameBytes(),
                maxConnections,
                internal.maxInFlightRequestBytes(),
                internal.idleTimeout(),
                internal.shutdownTimeout(),
                internal.connectionThreads());
    }

    /** Its bind address under its registered name, as the listener settings see it. */
    ListenerAddress bind() {
        return new ListenerAddress(BrokerListeners.EXTERNAL, host, port);
    }

    /**
     * The endpoint broker {@code brokerId} registers for this listener, bound on {@code boundPort}.
     *
     * @throws IllegalStateException when {@code advertised-addresses} is set but has no entry for
     *     this broker id
     */
    public BrokerEndpoint endpoint(int brokerId, int boundPort) {
        if (!advertisedAddresses.isEmpty()) {
            if (brokerId >= advertisedAddresses.size()) {
                throw new IllegalStateException(
                        "%sadvertised-addresses has %d entries (one per broker id from 0), none for broker id %d"
                                .formatted(PREFIX, advertisedAddresses.size(), brokerId));
            }
            return parse(advertisedAddresses.get(brokerId));
        }
        String advertised =
                KafkaListenerProperties.resolveAdvertisedHost(advertisedHost, host, PREFIX + "advertised-host");
        return new BrokerEndpoint(
                BrokerListeners.EXTERNAL, advertised, advertisedPort > 0 ? advertisedPort : boundPort);
    }

    private static BrokerEndpoint parse(String address) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException(
                    "%sadvertised-addresses entries are host:port, got '%s'".formatted(PREFIX, address));
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "%sadvertised-addresses entries are host:port, got '%s'".formatted(PREFIX, address), e);
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(
                    "%sadvertised-addresses: port of '%s' must be 1..65535".formatted(PREFIX, address));
        }
        return new BrokerEndpoint(BrokerListeners.EXTERNAL, address.substring(0, colon), port);
    }
}
