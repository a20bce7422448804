package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.testing.ServiceStartup;
import org.junit.jupiter.api.Test;

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

    private static void start(String... args) {
        ServiceStartup.startAndClose(BrokerApplication.class, args);
    }
}
