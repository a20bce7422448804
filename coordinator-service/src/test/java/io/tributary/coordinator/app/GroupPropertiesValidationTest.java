package io.tributary.coordinator.app;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.testing.ServiceStartup;
import org.junit.jupiter.api.Test;

/** Bad {@code tributary.coordinator.groups.*} values stop startup, naming what is wrong. */
class GroupPropertiesValidationTest {

    @Test
    void anUnknownDefaultAssignorStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.groups.default-assignor=sticky"))
                .hasStackTraceContaining("defaultAssignor");
    }

    @Test
    void aSessionTimeoutNotLongerThanTheHeartbeatIntervalStopsStartup() {
        assertThatThrownBy(() -> start(
                        "--tributary.coordinator.groups.session-timeout=5s",
                        "--tributary.coordinator.groups.heartbeat-interval=5s"))
                .hasStackTraceContaining("sessionTimeout");
    }

    @Test
    void aZeroGroupSizeStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.groups.max-group-size=0"))
                .hasStackTraceContaining("maxGroupSize");
    }

    @Test
    void aZeroOffsetsRetentionStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.coordinator.groups.offsets-retention=0s"))
                .hasStackTraceContaining("offsetsRetention");
    }

    private static void start(String... args) {
        ServiceStartup.startAndClose(CoordinatorApplication.class, args);
    }
}
