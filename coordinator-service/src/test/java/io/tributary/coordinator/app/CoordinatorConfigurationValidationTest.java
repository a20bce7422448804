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

    @Test
    void httpPeersOfAnotherCountThanPeersStopStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.http-peers=127.0.0.1:8091,127.0.0.1:8092"))
                .hasStackTraceContaining("tributary.coordinator.http-peers");
    }

    @Test
    void anHttpPeerWithoutAPortStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.http-peers=localhost"))
                .hasStackTraceContaining("tributary.coordinator.http-peers");
    }

    @Test
    void kafkaPeersOfAnotherCountThanPeersOrWithoutAPortStopStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.kafka-peers=127.0.0.1:9191,127.0.0.1:9192"))
                .hasStackTraceContaining("tributary.coordinator.kafka-peers");
        assertThatThrownBy(() -> start("--tributary.coordinator.kafka-peers=localhost:99999"))
                .hasStackTraceContaining("tributary.coordinator.kafka-peers");
    }

    @Test
    void aZeroLongPollWaitStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.control.max-wait=0s"))
                .hasStackTraceContaining("tributary.coordinator.control.max-wait");
    }

    @Test
    void aZeroHistoryLengthStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.control.history-length=0"))
                .hasStackTraceContaining("history-length");
    }

    @Test
    void aZeroProducerIdBlockStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.metadata.max-producer-ids-per-block=0"))
                .hasStackTraceContaining("maxProducerIdsPerBlock");
    }

    @Test
    void aZeroClassicGroupBoundStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.metadata.max-classic-groups=0"))
                .hasStackTraceContaining("maxClassicGroups");
    }

    private static void start(String... args) {
        ServiceStartup.startAndClose(CoordinatorApplication.class, args);
    }
}
