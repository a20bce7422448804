package io.tributary.common.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.protocol.ProtocolServerConfig;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.util.unit.DataSize;

/** What a service advertises for its Kafka listener, and settings as Spring binds them. */
class KafkaListenerPropertiesTest {

    private static KafkaListenerProperties bind(Map<String, String> values) {
        return new Binder(new MapConfigurationPropertySource(values))
                .bindOrCreate("tributary.kafka", KafkaListenerProperties.class);
    }

    @Test
    void connectionThreadsAreAutoUnlessVirtualOrPlatformIsSet() {
        assertThat(bind(Map.of()).toConfig("test").connectionThreads())
                .isEqualTo(ProtocolServerConfig.ConnectionThreads.AUTO);
        assertThat(bind(Map.of("tributary.kafka.connection-threads", "virtual"))
                        .toConfig("test")
                        .connectionThreads())
                .isEqualTo(ProtocolServerConfig.ConnectionThreads.VIRTUAL);
        assertThat(bind(Map.of("tributary.kafka.connection-threads", "platform"))
                        .toConfig("test")
                        .connectionThreads())
                .isEqualTo(ProtocolServerConfig.ConnectionThreads.PLATFORM);
        assertThatThrownBy(() -> bind(Map.of("tributary.kafka.connection-threads", "green")))
                .hasStackTraceContaining("connection-threads");
    }

    @Test
    void anExplicitAdvertisedHostAndPortWin() {
        var properties = properties("0.0.0.0", 9092, "broker-0.brokers.ns.svc", 19092);

        assertThat(properties.resolvedAdvertisedHost()).isEqualTo("broker-0.brokers.ns.svc");
        assertThat(properties.resolvedAdvertisedPort(9092)).isEqualTo(19092);
    }

    @Test
    void withoutAnAdvertisedHostTheBindHostIsAdvertised() {
        assertThat(properties("127.0.0.1", 0, "", 0).resolvedAdvertisedHost()).isEqualTo("127.0.0.1");
    }

    @Test
    void aWildcardBindAdvertisesTheMachinesHostName() throws Exception {
        String hostName = InetAddress.getLocalHost().getHostName();

        assertThat(properties("0.0.0.0", 0, "", 0).resolvedAdvertisedHost()).isEqualTo(hostName);
        assertThat(properties("::", 0, " ", 0).resolvedAdvertisedHost()).isEqualTo(hostName);
    }

    @Test
    void withoutAnAdvertisedPortTheBoundPortIsAdvertised() {
        assertThat(properties("127.0.0.1", 0, "", 0).resolvedAdvertisedPort(40123))
                .isEqualTo(40123);
    }

    private static KafkaListenerProperties properties(
            String host, int port, String advertisedHost, int advertisedPort) {
        return new KafkaListenerProperties(
                host,
                port,
                DataSize.ofMegabytes(100),
                1000,
                DataSize.ofMegabytes(512),
                Duration.ofMinutes(10),
                Duration.ofSeconds(10),
                advertisedHost,
                advertisedPort,
                Map.of(),
                Duration.ofSeconds(30),
                ProtocolServerConfig.ConnectionThreads.VIRTUAL);
    }
}
