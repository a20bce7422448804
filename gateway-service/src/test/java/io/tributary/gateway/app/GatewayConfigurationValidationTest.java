package io.tributary.gateway.app;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.testing.ServiceStartup;
import org.junit.jupiter.api.Test;

/** A gateway with an invalid setting does not start, and says which setting. */
class GatewayConfigurationValidationTest {

    @Test
    void emptyBootstrapServersStopStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.gateway.bootstrap-servers="))
                .hasStackTraceContaining("tributary.gateway.bootstrap-servers");
    }

    private static void start(String... args) {
        ServiceStartup.startAndClose(GatewayApplication.class, args);
    }
}
