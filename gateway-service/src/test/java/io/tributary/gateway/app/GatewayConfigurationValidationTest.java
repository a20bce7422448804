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

    @Test
    void aZeroRecordsPerRequestLimitStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.gateway.produce.max-records-per-request=0"))
                .hasStackTraceContaining("tributary.gateway.produce")
                .hasStackTraceContaining("maxRecordsPerRequest");
    }

    @Test
    void aZeroConsumerPoolStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.gateway.fetch.consumers=0"))
                .hasStackTraceContaining("tributary.gateway.fetch")
                .hasStackTraceContaining("consumers");
    }

    private static void start(String... args) {
        ServiceStartup.startAndClose(GatewayApplication.class, args);
    }
}
