package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/** A broker with an invalid setting does not start, and says which setting. */
class BrokerConfigurationValidationTest {

    @Test
    void kafkaPortOutOfRangeStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.kafka.port=70000"))
                .hasStackTraceContaining("tributary.kafka.port")
                .hasStackTraceContaining("70000");
    }

    @Test
    void aHeartbeatIntervalNotBelowTheSessionTimeoutStopsStartup() {
        assertThatThrownBy(() -> start(
                        "--tributary.broker.cluster.heartbeat-interval=6s",
                        "--tributary.broker.cluster.session-timeout=6s"))
                .hasStackTraceContaining("tributary.broker.cluster.heartbeat-interval");
    }

    @Test
    void aMetadataWaitAboveTheCoordinatorsLimitStopsStartup() {
        assertThatThrownBy(() -> start("--tributary.broker.cluster.metadata-max-wait=20s"))
                .hasStackTraceContaining("tributary.broker.cluster.metadata-max-wait")
                .hasStackTraceContaining("PT20S");
    }

    @Test
    void aCoordinatorAddressThatIsNotHostAndPortStopsStartup() {
        assertThatThrownBy(() -> start("--tributary.broker.coordinators=http://c0:8091/x"))
                .hasStackTraceContaining("host:port")
                .hasStackTraceContaining("http://c0:8091/x");
    }

    @Test
    void aSegmentSizeBelowKafkasMinimumStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.kafka.port=0", "--tributary.broker.log.segment-size=1KB"))
                .hasStackTraceContaining("tributary.broker.log.segment-size");
    }

    @Test
    void aNonPositiveFetchWaitBoundStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.kafka.port=0", "--tributary.broker.replica.fetch-max-wait=0s"))
                .hasStackTraceContaining("tributary.broker.replica.fetch-max-wait");
    }

    @Test
    void anUnknownTimestampTypeStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.kafka.port=0", "--tributary.broker.log.message-timestamp-type=Now"))
                .hasStackTraceContaining("tributary.broker.log")
                .hasStackTraceContaining("messageTimestampType");
    }

    @Test
    void anUnknownCodecOrALevelOutOfRangeStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.kafka.port=0", "--tributary.broker.log.compression-type=brotli"))
                .hasStackTraceContaining("compressionType");
        assertThatThrownBy(() -> start("--tributary.kafka.port=0", "--tributary.broker.log.compression-lz4-level=18"))
                .hasStackTraceContaining("tributary.broker.log.compression-lz4-level");
    }

    @Test
    void anExternalListenerPortOutOfRangeStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start(
                        "--tributary.kafka.port=0",
                        "--tributary.broker.external-listener.enabled=true",
                        "--tributary.broker.external-listener.port=70000"))
                .hasStackTraceContaining("tributary.broker.external-listener.port")
                .hasStackTraceContaining("70000");
    }

    @Test
    void anAdvertisedExternalAddressThatIsNotHostAndPortStopsStartupNamingTheProperty() {
        assertThatThrownBy(
                        () -> start(
                                "--tributary.kafka.port=0",
                                "--tributary.broker.external-listener.enabled=true",
                                "--tributary.broker.external-listener.advertised-addresses=kafka.example.com:31092,kafka.example.com"))
                .hasStackTraceContaining("tributary.broker.external-listener.advertised-addresses")
                .hasStackTraceContaining("'kafka.example.com'");
    }

    @Test
    void aSaslSslExternalListenerWithoutAKeyStoreStopsStartupNamingTheKeysThatSetIt() {
        assertThatThrownBy(() -> start(
                        "--tributary.kafka.port=0",
                        "--tributary.broker.external-listener.enabled=true",
                        "--tributary.broker.external-listener.port=0",
                        "--tributary.broker.external-listener.security-protocol=SASL_SSL",
                        "--tributary.broker.sasl.enabled.mechanisms=SCRAM-SHA-512"))
                .hasStackTraceContaining("listener EXTERNAL is SASL_SSL")
                .hasStackTraceContaining("tributary.broker.listener.name.external.ssl.keystore.location");
    }

    @Test
    void aProtocolMapNamingTheExternalListenerStopsStartupNamingItsOwnSetting() {
        assertThatThrownBy(() -> start(
                        "--tributary.kafka.port=0",
                        "--tributary.broker.external-listener.enabled=true",
                        "--tributary.broker.external-listener.port=0",
                        "--tributary.broker.listener.security.protocol.map=EXTERNAL:SASL_SSL"))
                .hasStackTraceContaining("maps EXTERNAL")
                .hasStackTraceContaining("tributary.broker.external-listener.security-protocol");
    }

    @Test
    void externalListenerSettingsWithoutTheExternalListenerStopStartup() {
        assertThatThrownBy(() -> start(
                        "--tributary.kafka.port=0",
                        "--tributary.broker.listener.name.external.sasl.enabled.mechanisms=PLAIN"))
                .hasStackTraceContaining("there is no listener EXTERNAL");
    }

    @Test
    void aListenerMappedToAnUnknownSecurityProtocolStopsStartupNamingTheMap() {
        assertThatThrownBy(() -> start(
                        "--tributary.kafka.port=0",
                        "--tributary.broker.listeners=CLIENT://127.0.0.1:0",
                        "--tributary.broker.listener.security.protocol.map=CLIENT:TLS"))
                .hasStackTraceContaining("tributary.broker.listener.security.protocol.map")
                .hasStackTraceContaining("'TLS' is not a security protocol");
    }

    @Test
    void aListenerMissingFromTheProtocolMapStopsStartupNamingIt() {
        assertThatThrownBy(() -> start(
                        "--tributary.kafka.port=0",
                        "--tributary.broker.listeners=CLIENT://127.0.0.1:0",
                        "--tributary.broker.listener.security.protocol.map=OTHER:SSL"))
                .hasStackTraceContaining("listener CLIENT has no security protocol");
    }

    @Test
    void aNamedListenerCalledPlaintextStopsStartupPointingAtTheInternalListener() {
        assertThatThrownBy(() -> start("--tributary.kafka.port=0", "--tributary.broker.listeners=PLAINTEXT://:0"))
                .hasStackTraceContaining("PLAINTEXT is the name of the broker's internal listener");
    }

    @Test
    void aSaslListenerWithoutMechanismsOrATlsListenerWithoutKeyStoreStopsStartup() {
        assertThatThrownBy(() -> start("--tributary.kafka.port=0", "--tributary.broker.listeners=SASL_PLAINTEXT://:0"))
                .hasStackTraceContaining("set tributary.broker.sasl.enabled.mechanisms");
        assertThatThrownBy(() -> start("--tributary.kafka.port=0", "--tributary.broker.listeners=SSL://:0"))
                .hasStackTraceContaining("set tributary.broker.ssl.keystore.location");
        assertThatThrownBy(() -> start(
                        "--tributary.kafka.port=0",
                        "--tributary.broker.listeners=SSL://:0",
                        "--tributary.broker.ssl.keystore.location=target/no-such-store.p12"))
                .hasStackTraceContaining("no-such-store.p12");
    }

    /** Starts with {@code args} after a data directory under {@code target/}, so no run leaves data in the module. */
    private static void start(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "--tributary.broker.data-dir=target/test-data/configuration-validation";
        System.arraycopy(args, 0, all, 1, args.length);
        new SpringApplicationBuilder(BrokerApplication.class)
                .web(WebApplicationType.NONE)
                .run(all)
                .close();
    }
}
