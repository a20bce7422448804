package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.log.cleaner.CleanerConfig;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** {@code tributary.broker.log-cleaner.*} as Spring binds it, and the core config it becomes. */
class LogCleanerPropertiesTest {

    private static LogCleanerProperties bind(Map<String, String> values) {
        return new Binder(new MapConfigurationPropertySource(values))
                .bindOrCreate("tributary.broker.log-cleaner", LogCleanerProperties.class);
    }

    @Test
    void theIoThrottleIsUnlimitedByDefault() {
        CleanerConfig config = bind(Map.of()).toCleanerConfig();

        assertThat(config.ioMaxBytesPerSecond()).isEmpty();
        assertThat(config).isEqualTo(CleanerConfig.defaults());
    }

    @Test
    void theIoThrottleTakesASizePerSecond() {
        CleanerConfig config = bind(Map.of("tributary.broker.log-cleaner.io-max-bytes-per-second", "10MB"))
                .toCleanerConfig();

        assertThat(config.ioMaxBytesPerSecond()).isEqualTo(OptionalLong.of(10L * 1024 * 1024));
    }

    @Test
    void anIoThrottleOfZeroBytesIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> bind(Map.of("tributary.broker.log-cleaner.io-max-bytes-per-second", "0B")))
                .hasStackTraceContaining("io-max-bytes-per-second");
    }

    @Test
    void oneCleanerThreadByDefaultAndTheThreadsSettingIsBound() {
        assertThat(bind(Map.of()).toCleanerConfig().threads()).isOne();

        CleanerConfig config = bind(Map.of(
                        "tributary.broker.log-cleaner.threads", "4",
                        "tributary.broker.log-cleaner.dedupe-buffer-size", "64MB"))
                .toCleanerConfig();

        assertThat(config.threads()).isEqualTo(4);
        assertThat(config.dedupeBufferBytesPerThread()).isEqualTo(16L * 1024 * 1024);
    }

    @Test
    void aThreadCountOutsideOneToSixteenIsRefusedNamingTheSettingAndItsBounds() {
        for (String threads : new String[] {"0", "17"}) {
            assertThatThrownBy(() -> bind(Map.of("tributary.broker.log-cleaner.threads", threads)))
                    .hasStackTraceContaining(
                            "tributary.broker.log-cleaner.threads must be between 1 and 16, got " + threads);
        }
    }

    @Test
    void aDedupeBufferTooSmallToDivideAmongTheThreadsIsRefusedNamingBothSettings() {
        assertThatThrownBy(() -> bind(Map.of(
                        "tributary.broker.log-cleaner.threads", "16",
                        "tributary.broker.log-cleaner.dedupe-buffer-size", "100B")))
                .hasStackTraceContaining("tributary.broker.log-cleaner.dedupe-buffer-size (100B) divided among"
                        + " tributary.broker.log-cleaner.threads (16)");
    }
}
