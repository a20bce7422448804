package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.cleaner.CleanerConfig;
import io.tributary.broker.log.cleaner.CleanerTestLogs;
import io.tributary.broker.log.cleaner.CorruptSegments;
import io.tributary.broker.log.cleaner.LogCleaner;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cleaner's meters as Prometheus scrapes them (the names the broker README lists), from a real
 * cleaner over real logs.
 */
class MicrometerCleanerMetricsTest {

    private static final LogConfig COMPACT = CleanerTestLogs.COMPACT;
    private static final long NOW_MS = 1_000_000;

    private final InstantSource clock = InstantSource.fixed(Instant.ofEpochMilli(NOW_MS));
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final MicrometerCleanerMetrics metrics = new MicrometerCleanerMetrics(registry);

    @RegisterExtension
    final CleanerTestLogs logs = new CleanerTestLogs(clock);

    /** Three closed segments of ten records over ten keys, written 60 s before now. */
    private PartitionLog dirtyLog(String topic, LogConfig config) {
        PartitionLog log = logs.open(topic, config);
        CleanerTestLogs.fill(log, 3, 10, NOW_MS - 60_000);
        return log;
    }

    private static LogCleaner.Target target(PartitionLog log) {
        return CleanerTestLogs.target(log);
    }

    private String scrape() {
        return registry.scrape();
    }

    @Test
    void aRoundReportsEachCompactedPartitionAndItsPassAndForgettingDropsThePartitionsGauges() {
        PartitionLog table = dirtyLog("table", COMPACT);
        PartitionLog stream = dirtyLog("stream", LogConfig.defaults());
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock, metrics);
        metrics.registerUncleanable(cleaner);

        cleaner.runRound(List.of(target(table), target(stream)));
        String afterFirst = scrape();
        cleaner.runRound(List.of(target(table), target(stream)));
        String afterSecond = scrape();
        cleaner.forget(table.topicIdPartition());
        String afterForget = scrape();

        // Measured before the pass: all dirty, its first record 60 s old.
        assertThat(afterFirst)
                .contains("tributary_broker_log_cleaner_dirty_ratio{partition=\"0\",topic=\"table\"} 1.0")
                .contains("tributary_broker_log_cleaner_lag_ms{partition=\"0\",topic=\"table\"} 60000.0")
                .doesNotContain("topic=\"stream\"")
                .contains("tributary_broker_log_cleaner_rounds_total{outcome=\"cleaned\"} 1.0")
                .contains("tributary_broker_log_cleaner_uncleanable_partitions 0.0")
                .containsPattern("tributary_broker_log_cleaner_bytes_cleaned_total [1-9]")
                .containsPattern("tributary_broker_log_cleaner_bytes_written_total [1-9]")
                .contains("tributary_broker_log_cleaner_time_seconds_total");
        // Cleaned: nothing dirty, no lag.
        assertThat(afterSecond)
                .contains("tributary_broker_log_cleaner_dirty_ratio{partition=\"0\",topic=\"table\"} 0.0")
                .contains("tributary_broker_log_cleaner_lag_ms{partition=\"0\",topic=\"table\"} 0.0");
        assertThat(afterForget).doesNotContain("topic=\"table\"");
        assertThat(metrics.partitionsWithGauges()).isZero();
    }

    @Test
    void aFailedPartitionIsCountedAsUncleanableAndAsAFailedRound() {
        PartitionLog corrupt = dirtyLog("corrupt", COMPACT);
        CorruptSegments.corruptFirstRecord(corrupt);
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock, metrics);
        metrics.registerUncleanable(cleaner);

        cleaner.runRound(List.of(target(corrupt)));
        cleaner.runRound(List.of(target(corrupt)));

        assertThat(scrape())
                .contains("tributary_broker_log_cleaner_uncleanable_partitions 1.0")
                .contains("tributary_broker_log_cleaner_rounds_total{outcome=\"failed\"} 1.0")
                .contains("tributary_broker_log_cleaner_rounds_total{outcome=\"cleaned\"} 0.0");
    }

    @Test
    void aPartitionThatStopsCompactingLosesItsGauges() {
        PartitionLog log = dirtyLog("switched", COMPACT);
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock, metrics);
        cleaner.runRound(List.of(target(log)));
        assertThat(metrics.partitionsWithGauges()).isOne();

        log.updateConfig(LogConfig.defaults());
        cleaner.runRound(List.of(target(log)));

        assertThat(metrics.partitionsWithGauges()).isZero();
        assertThat(scrape()).doesNotContain("topic=\"switched\"");
    }
}
