package io.tributary.coordinator.app;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.testing.ServiceStartup;
import org.junit.jupiter.api.Test;

/** A coordinator with an invalid setting does not start, and says which setting. */
class CoordinatorConfigurationValidationTest {

    @Test
    void twoRaftPeersStopStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.peers=127.0.0.1:9291,127.0.0.1:9292"))
                .hasStackTraceContaining("tributary.coordinator.peers")
                .hasStackTraceContaining("1 or 3");
    }

    @Test
    void kafkaPortOutOfRangeStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.kafka.port=70000"))
                .hasStackTraceContaining("tributary.kafka.port")
                .hasStackTraceContaining("70000");
    }

    private static void start(String... args) {
        ServiceStartup.startAndClose(CoordinatorApplication.class, args);
    }
}
