package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** The data path's recompression meters as Prometheus scrapes them (the names the broker README lists). */
class DataPathMetricsTest {

    @Test
    void recompressedBatchesAndTheirBytesAreCountedUnderTheDocumentedNames() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ReplicaConfiguration.MicrometerDataPathMetrics metrics =
                new ReplicaConfiguration.MicrometerDataPathMetrics(registry);

        metrics.recompressed(2, 1_000, 400);
        metrics.recompressed(1, 500, 600);

        assertThat(registry.scrape())
                .contains("tributary_broker_recompressed_batches_total 3.0")
                .contains("tributary_broker_recompressed_bytes_in_total 1500.0")
                .contains("tributary_broker_recompressed_bytes_out_total 1000.0");
    }
}
