package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.common.app.KafkaListenerProperties;
import io.tributary.common.listeners.ListenerAddress;
import io.tributary.common.listeners.SecurityProtocol;
import io.tributary.common.protocol.ProtocolServerConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/** The external listener's settings: its own bind address and connection bound, and what it advertises. */
class ExternalListenerPropertiesTest {

    private static final KafkaListenerProperties KAFKA = new KafkaListenerProperties(
            "0.0.0.0",
            9092,
            DataSize.ofMegabytes(8),
            1000,
            DataSize.ofMegabytes(64),
            Duration.ofMinutes(3),
            Duration.ofSeconds(4),
            "broker-0.brokers.ns.svc",
            0,
            java.util.Map.of(),
            Duration.ofSeconds(30),
            ProtocolServerConfig.ConnectionThreads.PLATFORM);

    @Test
    void itBindsItsOwnAddressWithItsOwnConnectionBoundAndTheInternalListenersOtherBounds() {
        ProtocolServerConfig config = properties("", 0, List.of(), 7).toConfig(KAFKA);

        assertThat(config.name()).isEqualTo("external");
        assertThat(config.host()).isEqualTo("0.0.0.0");
        assertThat(config.port()).isEqualTo(9094);
        assertThat(config.maxConnections()).isEqualTo(7);
        assertThat(config.maxFrameBytes()).isEqualTo(8 * 1024 * 1024);
        assertThat(config.maxInFlightRequestBytes()).isEqualTo(64L * 1024 * 1024);
        assertThat(config.idleTimeout()).isEqualTo(Duration.ofMinutes(3));
        assertThat(config.shutdownTimeout()).isEqualTo(Duration.ofSeconds(4));
        assertThat(config.connectionThreads()).isEqualTo(ProtocolServerConfig.ConnectionThreads.PLATFORM);
    }

    @Test
    void theAdvertisedHostAndPortAreRegisteredUnderExternal() {
        assertThat(properties("kafka.example.com", 31092, List.of(), 10).endpoint(3, 9094))
                .isEqualTo(new BrokerEndpoint("EXTERNAL", "kafka.example.com", 31092));
    }

    @Test
    void withoutAnAdvertisedPortTheBoundPortIsAdvertised() {
        assertThat(properties("kafka.example.com", 0, List.of(), 10).endpoint(3, 40123))
                .isEqualTo(new BrokerEndpoint("EXTERNAL", "kafka.example.com", 40123));
    }

    @Test
    void perBrokerAdvertisedAddressesGiveEachBrokerIdItsEntry() {
        var properties =
                properties("ignored.example.com", 1, List.of("node.example.com:31092", " node.example.com:31093 "), 10);

        assertThat(properties.endpoint(0, 9094)).isEqualTo(new BrokerEndpoint("EXTERNAL", "node.example.com", 31092));
        assertThat(properties.endpoint(1, 9094)).isEqualTo(new BrokerEndpoint("EXTERNAL", "node.example.com", 31093));
        assertThatThrownBy(() -> properties.endpoint(2, 9094))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("tributary.broker.external-listener.advertised-addresses")
                .hasMessageContaining("none for broker id 2");
    }

    @Test
    void anAdvertisedAddressWithoutAValidPortIsRefused() {
        for (String bad : List.of("node.example.com", "node.example.com:", ":31092", "node.example.com:x", "n:70000")) {
            assertThatThrownBy(() -> properties("", 0, List.of(bad), 10))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tributary.broker.external-listener.advertised-addresses");
        }
    }

    @Test
    void itIsBoundAsTheListenerNamedExternalAndPlaintextByDefault() {
        var properties = properties("", 0, List.of(), 10);

        assertThat(properties.bind()).isEqualTo(new ListenerAddress("EXTERNAL", "0.0.0.0", 9094));
        assertThat(properties.securityProtocol()).isEqualTo(SecurityProtocol.PLAINTEXT);
    }

    private static ExternalListenerProperties properties(
            String advertisedHost, int advertisedPort, List<String> advertisedAddresses, int maxConnections) {
        return new ExternalListenerProperties(
                true,
                "0.0.0.0",
                9094,
                advertisedHost,
                advertisedPort,
                advertisedAddresses,
                maxConnections,
                SecurityProtocol.PLAINTEXT);
    }
}
