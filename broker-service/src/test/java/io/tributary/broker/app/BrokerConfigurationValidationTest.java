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

    private static void start(String... args) {
        ServiceStartup.startAndClose(BrokerApplication.class, args);
    }
}
