package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.LogContents;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.cleaner.CleanResult;
import io.tributary.broker.log.cleaner.Cleaner;
import io.tributary.broker.log.cleaner.CleanerConfig;
import io.tributary.broker.log.cleaner.CleanerTestLogs;
import io.tributary.broker.log.cleaner.CorruptSegments;
import io.tributary.broker.log.cleaner.LogCleaner;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
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
        metrics.registerCleaner(cleaner, clock);

        cleaner.runRound(List.of(target(table), target(stream)));
        String afterFirst = scrape();
        cleaner.runRound(List.of(target(table), target(stream)));
        String afterSecond = scrape();
        cleaner.forget(table.topicIdPartition());
        String afterForget = scrape();

        // Measured before the pass: all dirty, its first record 60 s old.
        assertThat(afterFirst)
                .contains("tributary_broker_log_cleaner_dirty_ratio{partition=\"0\",topic=\"table\"} 1.0")
                .contains("tributary_broker_log_cleaner_lag_seconds{partition=\"0\",topic=\"table\"} 60.0")
                .doesNotContain("topic=\"stream\"")
                .contains("tributary_broker_log_cleaner_rounds_total{outcome=\"cleaned\"} 1.0")
                .contains("tributary_broker_log_cleaner_uncleanable_partitions 0.0")
                .containsPattern("tributary_broker_log_cleaner_bytes_cleaned_total [1-9]")
                .containsPattern("tributary_broker_log_cleaner_bytes_written_total [1-9]")
                .contains("tributary_broker_log_cleaner_time_seconds_total");
        // Cleaned: nothing dirty, no lag.
        assertThat(afterSecond)
                .contains("tributary_broker_log_cleaner_dirty_ratio{partition=\"0\",topic=\"table\"} 0.0")
                .contains("tributary_broker_log_cleaner_lag_seconds{partition=\"0\",topic=\"table\"} 0.0");
        assertThat(afterForget).doesNotContain("topic=\"table\"");
        assertThat(metrics.partitionsWithGauges()).isZero();
    }

    @Test
    void aFailedPartitionIsCountedAsUncleanableAndAsAFailedRound() {
        PartitionLog corrupt = dirtyLog("corrupt", COMPACT);
        CorruptSegments.corruptFirstRecord(corrupt);
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock, metrics);
        metrics.registerCleaner(cleaner, clock);

        long dirtyBytes = corrupt.compaction().cleanableSection(Long.MAX_VALUE).dirtyBytes();
        metrics.registerCleaner(cleaner, clock);
        cleaner.runRound(List.of(target(corrupt)));
        cleaner.runRound(List.of(target(corrupt)));

        assertThat(dirtyBytes).isPositive();
        assertThat(scrape())
                .contains("tributary_broker_log_cleaner_uncleanable_partitions 1.0")
                .contains("tributary_broker_log_cleaner_uncleanable_bytes " + (double) dirtyBytes)
                .contains("tributary_broker_log_cleaner_rounds_total{outcome=\"failed\"} 1.0")
                .contains("tributary_broker_log_cleaner_rounds_total{outcome=\"cleaned\"} 0.0");
    }

    @Test
    void kafkasCleanerGaugesReadTheLastRoundAndTheLastPassThatCleaned() {
        AtomicLong nowMs = new AtomicLong(NOW_MS);
        InstantSource cleanerClock = () -> Instant.ofEpochMilli(nowMs.get());
        PartitionLog table = dirtyLog("table", COMPACT);
        PartitionLog halfDirty = dirtyLog("half", COMPACT);
        new Cleaner(CleanerConfig.defaults(), clock).clean(halfDirty, Long.MAX_VALUE);
        CleanerTestLogs.fill(halfDirty, 1, 10, NOW_MS);
        // 101 slots (24 bytes each, a prime number): ten keys fill 9.9 % of them.
        LogCleaner cleaner = new LogCleaner(new CleanerConfig(101 * 24, 0.9, 512 * 1024), cleanerClock, metrics);
        metrics.registerCleaner(cleaner, cleanerClock);
        nowMs.addAndGet(2_500);
        String beforeAnyRound = scrape();

        Optional<CleanResult> pass = cleaner.runRound(List.of(target(halfDirty), target(table)));
        nowMs.addAndGet(4_000);
        String afterRound = scrape();

        assertThat(beforeAnyRound)
                .contains("tributary_broker_log_cleaner_time_since_last_run_seconds 2.5")
                .contains("tributary_broker_log_cleaner_max_dirty_percent 0.0")
                .contains("tributary_broker_log_cleaner_max_buffer_utilization_percent 0.0")
                .contains("tributary_broker_log_cleaner_recopy_percent 0.0")
                .contains("tributary_broker_log_cleaner_max_clean_time_seconds 0.0");
        CleanResult result = pass.orElseThrow();
        assertThat(result.outcome()).isEqualTo(CleanResult.Outcome.CLEANED);
        assertThat(result.bufferUtilization()).isEqualTo(10.0 / 101);
        int recopyPercent = (int) (100.0 * result.bytesWritten() / result.bytesRead());
        assertThat(recopyPercent).isBetween(1, 99);
        // "table" (all dirty) is the dirtiest; "half" (cleaned once, then a dirty segment) is not.
        assertThat(afterRound)
                .contains("tributary_broker_log_cleaner_time_since_last_run_seconds 4.0")
                .contains("tributary_broker_log_cleaner_max_dirty_percent 100.0")
                .contains("tributary_broker_log_cleaner_max_buffer_utilization_percent 9.0")
                .contains("tributary_broker_log_cleaner_recopy_percent " + (double) recopyPercent)
                .contains("tributary_broker_log_cleaner_max_clean_time_seconds 0.0");
    }

    @Test
    void withSeveralThreadsTheGaugesTakeTheLargestOverTheThreadsAndTheRecopyOfAllTheirLastPasses() {
        PartitionLog tenKeys = logs.open("ten", COMPACT);
        CleanerTestLogs.fill(tenKeys, 2, 10, NOW_MS - 60_000);
        PartitionLog twentyKeys = logs.open("twenty", COMPACT);
        for (int version = 0; version < 3; version++) {
            SimpleRecord[] batch = new SimpleRecord[20];
            for (int i = 0; i < 20; i++) {
                batch[i] = new SimpleRecord(
                        NOW_MS - 60_000, LogContents.bytes("k" + i), LogContents.bytes("v" + version + "-" + i));
            }
            twentyKeys.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, batch), 0);
            twentyKeys.roll();
        }
        // Two threads, 101 slots each (a prime number): ten keys fill 9.9 %, twenty 19.8 %; the largest
        // is the gauge's.
        LogCleaner cleaner =
                new LogCleaner(new CleanerConfig(2 * 101 * 24, 0.9, 512 * 1024).withThreads(2), clock, metrics);
        metrics.registerCleaner(cleaner, clock);

        CleanResult first =
                cleaner.threads().get(0).runRound(List.of(target(twentyKeys))).orElseThrow();
        CleanResult second =
                cleaner.threads().get(1).runRound(List.of(target(tenKeys))).orElseThrow();

        assertThat(first.bufferUtilization()).isEqualTo(20.0 / 101);
        assertThat(second.bufferUtilization()).isEqualTo(10.0 / 101);
        int recopyPercent = (int)
                (100.0 * (first.bytesWritten() + second.bytesWritten()) / (first.bytesRead() + second.bytesRead()));
        assertThat(scrape())
                .contains("tributary_broker_log_cleaner_max_buffer_utilization_percent 19.0")
                .contains("tributary_broker_log_cleaner_recopy_percent " + (double) recopyPercent)
                .contains("tributary_broker_log_cleaner_rounds_total{outcome=\"cleaned\"} 2.0");
        // One thread kept a third of what it read, the other half: the gauge is neither alone.
        assertThat(cleaner.threads().get(0).lastCleanedPass().recopyRatio()).isLessThan(0.4);
        assertThat(cleaner.threads().get(1).lastCleanedPass().recopyRatio()).isGreaterThan(0.45);
        assertThat(cleaner.recopyRatio())
                .isEqualTo((double) (first.bytesWritten() + second.bytesWritten())
                        / (first.bytesRead() + second.bytesRead()));
    }

    @Test
    void theCompactionDelayGaugeIsHowLongTheMostOverdueLogWaitedPastItsMaxLag() {
        LogConfig lagged =
                COMPACT.withCompaction(COMPACT.compaction().withMaxCompactionLag(Optional.of(Duration.ofSeconds(10))));
        PartitionLog overdue = dirtyLog("overdue", lagged);
        PartitionLog unbounded = dirtyLog("unbounded", COMPACT);
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), clock, metrics);
        metrics.registerCleaner(cleaner, clock);
        String before = scrape();

        cleaner.runRound(List.of(target(unbounded), target(overdue)));

        // Written 60 s ago, due after 10 s: 50 s overdue.
        assertThat(before).contains("tributary_broker_log_cleaner_max_compaction_delay_seconds 0.0");
        assertThat(scrape()).contains("tributary_broker_log_cleaner_max_compaction_delay_seconds 50.0");
    }

    @Test
    void theCleanTimeGaugeIsTheLastCleaningPassInWholeSeconds() {
        // Each reading of the cleaner's clock moves it 700 ms on: the pass spans several readings.
        AtomicLong nowMs = new AtomicLong(NOW_MS);
        InstantSource ticking = () -> Instant.ofEpochMilli(nowMs.addAndGet(700));
        PartitionLog table = dirtyLog("table", COMPACT);
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), ticking, metrics);
        metrics.registerCleaner(cleaner, ticking);

        cleaner.runRound(List.of(target(table)));

        long seconds = TimeUnit.NANOSECONDS.toSeconds(cleaner.maxCleanTimeNanos());
        assertThat(seconds).isPositive();
        assertThat(scrape()).contains("tributary_broker_log_cleaner_max_clean_time_seconds " + (double) seconds);
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
