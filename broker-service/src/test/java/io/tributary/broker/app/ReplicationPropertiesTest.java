package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.replication.ReplicationConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

class ReplicationPropertiesTest {

    private static ReplicationProperties properties(
            DataSize fetchMaxBytes, Duration fetchMaxWait, Duration socketTimeout, Duration isrCheckInterval) {
        return new ReplicationProperties(
                fetchMaxBytes,
                DataSize.ofMegabytes(10),
                fetchMaxWait,
                1,
                Duration.ofSeconds(1),
                Duration.ofSeconds(5),
                socketTimeout,
                Duration.ofSeconds(30),
                isrCheckInterval,
                Duration.ofSeconds(1),
                Duration.ofSeconds(5));
    }

    @Test
    void theIsrCheckIntervalDefaultsToHalfTheLagTimeAsInKafka() {
        ReplicationConfig config = properties(
                        DataSize.ofMegabytes(1), Duration.ofMillis(500), Duration.ofSeconds(30), null)
                .toConfig();

        assertThat(config.isrCheckInterval()).isEqualTo(Duration.ofSeconds(15));
        assertThat(config.fetchMaxBytes()).isEqualTo(1024 * 1024);
        assertThat(config.listener()).isEqualTo("PLAINTEXT");
    }

    @Test
    void aSocketTimeoutNotAboveTheFetchWaitIsRefused() {
        assertThatThrownBy(
                        () -> properties(DataSize.ofMegabytes(1), Duration.ofSeconds(30), Duration.ofSeconds(30), null)
                                .toConfig())
                .hasMessageContaining("socket timeout");
    }

    @Test
    void aFetchSizeAboveTwoGigabytesIsRefusedNamingTheProperty() {
        assertThatThrownBy(
                        () -> properties(DataSize.ofGigabytes(3), Duration.ofMillis(500), Duration.ofSeconds(30), null)
                                .toConfig())
                .hasMessageContaining("fetch-max-bytes");
    }
}
