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
    void aBadProducerSettingStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.gateway.produce.producer-batch-size=0B"))
                .hasStackTraceContaining("tributary.gateway.produce.producer-batch-size must be between");
        assertThatThrownBy(() -> start("--tributary.gateway.produce.producer-linger=-1ms"))
                .hasStackTraceContaining("tributary.gateway.produce.producer-linger must be 0 to 60s");
        assertThatThrownBy(() -> start(
                        "--tributary.gateway.produce.producer-batch-size=1MB",
                        "--tributary.gateway.produce.producer-buffer-memory=512KB"))
                .hasStackTraceContaining(
                        "tributary.gateway.produce.producer-buffer-memory must be at least producer-batch-size");
        assertThatThrownBy(() -> start("--tributary.gateway.produce.producer-multi-record-batch-size=3GB"))
                .hasStackTraceContaining("tributary.gateway.produce.producer-multi-record-batch-size must be between");
        assertThatThrownBy(() -> start(
                        "--tributary.gateway.produce.producer-multi-record-batch-size=64MB",
                        "--tributary.gateway.produce.producer-buffer-memory=32MB"))
                .hasStackTraceContaining("tributary.gateway.produce.producer-buffer-memory must be at least"
                        + " producer-multi-record-batch-size");
    }

    @Test
    void clientPropertiesReachTheKafkaClientsKeysWithDotsIncluded() {
        // kafka-clients refuses an unknown security protocol when the admin client is made, at start
        assertThatThrownBy(() -> start("--tributary.gateway.client-properties.security.protocol=SASL_NOPE"))
                .hasStackTraceContaining("SASL_NOPE");
    }

    @Test
    void aZeroConsumerPoolStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.gateway.fetch.consumers=0"))
                .hasStackTraceContaining("tributary.gateway.fetch")
                .hasStackTraceContaining("consumers");
    }

    @Test
    void aZeroSseBoundStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.gateway.sse.max-streams=0"))
                .hasStackTraceContaining("tributary.gateway.sse")
                .hasStackTraceContaining("maxStreams");
        assertThatThrownBy(() -> start("--tributary.gateway.sse.buffer-size=0B"))
                .hasStackTraceContaining("tributary.gateway.sse.buffer-size must be positive");
        assertThatThrownBy(() -> start("--tributary.gateway.sse.heartbeat-interval=0s"))
                .hasStackTraceContaining("tributary.gateway.sse.heartbeat-interval must be positive");
    }

    @Test
    void aBadTableBoundStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.gateway.table.max-keys=0"))
                .hasStackTraceContaining("tributary.gateway.table")
                .hasStackTraceContaining("maxKeys");
        assertThatThrownBy(() -> start("--tributary.gateway.table.max-scans=1"))
                .hasStackTraceContaining("tributary.gateway.table")
                .hasStackTraceContaining("maxScans");
        assertThatThrownBy(() -> start("--tributary.gateway.table.fetch-size=0B"))
                .hasStackTraceContaining("tributary.gateway.table.fetch-size must be positive");
    }

    @Test
    void aZeroWriteTimeoutStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.gateway.write-timeout=0s"))
                .hasStackTraceContaining("tributary.gateway.write-timeout must be positive");
        assertThatThrownBy(() -> start("--tributary.gateway.sse.tail-history-size=0B"))
                .hasStackTraceContaining("tributary.gateway.sse.tail-history-size must be positive");
    }

    @Test
    void anAllowedOriginThatIsNotAnOriginStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.gateway.cors.allowed-origins=app.test/path"))
                .hasStackTraceContaining("tributary.gateway.cors.allowed-origins");
    }

    @Test
    void aBadGroupSettingStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start("--tributary.gateway.groups.max-streams=0"))
                .hasStackTraceContaining("tributary.gateway.groups")
                .hasStackTraceContaining("maxStreams");
        assertThatThrownBy(() -> start("--tributary.gateway.groups.session-timeout=0s"))
                .hasStackTraceContaining("tributary.gateway.groups.session-timeout must be positive");
        assertThatThrownBy(() -> start("--tributary.gateway.groups.advertised-url=gateway-1:8080"))
                .hasStackTraceContaining("tributary.gateway.groups.advertised-url");
    }

    @Test
    void aBadIdempotencySettingStopsStartupNamingTheProperty() {
        assertThatThrownBy(() -> start(
                        "--tributary.gateway.cluster-timeout=15s", "--tributary.gateway.idempotency.claim-timeout=59s"))
                .hasStackTraceContaining(
                        "tributary.gateway.idempotency.claim-timeout must be at least 4 x tributary.gateway.cluster-timeout");
        assertThatThrownBy(() -> start(
                        "--tributary.gateway.idempotency.key-ttl=1m",
                        "--tributary.gateway.idempotency.claim-timeout=2m"))
                .hasStackTraceContaining("tributary.gateway.idempotency.claim-timeout must be shorter than key-ttl");
        assertThatThrownBy(() -> start("--tributary.gateway.idempotency.topic-replication-factor=0"))
                .hasStackTraceContaining("tributary.gateway.idempotency.topic-replication-factor");
        assertThatThrownBy(() -> start("--tributary.gateway.idempotency.cache-max-entries=0"))
                .hasStackTraceContaining("tributary.gateway.idempotency")
                .hasStackTraceContaining("cacheMaxEntries");
    }

    private static void start(String... args) {
        ServiceStartup.startAndClose(GatewayApplication.class, args);
    }
}
