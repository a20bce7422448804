package io.tributary.broker.app;

import static io.tributary.broker.testing.FixedMetadataView.broker;
import static io.tributary.broker.testing.FixedMetadataView.image;
import static io.tributary.broker.testing.FixedMetadataView.topic;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.LogContents;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.cleaner.IoThrottle;
import io.tributary.broker.log.cleaner.PassObserver;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.replication.ReplicaManagerConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.util.unit.DataSize;

/** The broker's cleaner thread, as the app runs it over a real replica manager. */
class LogCleanerRunnerTest {

    private static final int ME = 1;

    @TempDir
    Path dir;

    /**
     * Throttled to 1 byte a second, the pass would sleep for minutes; closing the runner (the
     * broker's shutdown) stops it at once. The timeout only fails a close that waits for the pass.
     */
    @Test
    @Timeout(120)
    void closingStopsAPassSleepingInTheThrottleInsteadOfWaitingForIt() throws InterruptedException {
        try (IndexStore store = IndexStore.open(dir.resolve("index"));
                ReplicaManager manager = manager(store)) {
            manager.onImage(
                    ClusterImage.EMPTY,
                    image(
                            1,
                            List.of(broker(ME, 9092)),
                            List.of(topic(
                                    "table", new Uuid(1, 1), 1, List.of(ME), 0, Map.of("cleanup.policy", "compact")))));
            Partition partition = manager.partition("table", 0).orElseThrow();
            writeThreeVersions(partition);
            var before = LogContents.records(partition.log());
            LogCleanerProperties properties = new LogCleanerProperties(
                    true,
                    DataSize.ofMegabytes(1),
                    0.9,
                    DataSize.ofKilobytes(512),
                    Duration.ofMillis(10),
                    16,
                    DataSize.ofBytes(1),
                    1);
            LogCleanerRunner runner = LogCleanerRunner.start(
                    manager, properties, new MicrometerCleanerMetrics(new SimpleMeterRegistry()));
            Thread cleanerThread = Awaitility.await()
                    .until(LogCleanerRunnerTest::throttledCleanerThread, Optional::isPresent)
                    .orElseThrow();

            runner.close();
            cleanerThread.join(); // the executor is terminated: its thread is exiting

            assertThat(throttledCleanerThread()).isEmpty();
            assertThat(LogContents.records(partition.log())).isEqualTo(before);
            assertThat(partition.log().compaction().cleanerCheckpoint()).isZero();
        }
    }

    @Test
    void schedulesEndedByAnErrorCountAsDeadThreadsAndCancelledOnesDoNot() {
        try (ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2)) {
            ScheduledFuture<?> healthy = scheduler.scheduleWithFixedDelay(() -> {}, 0, 10, TimeUnit.MILLISECONDS);
            ScheduledFuture<?> failing = scheduler.scheduleWithFixedDelay(
                    () -> {
                        throw new AssertionError("a cleaner run ending by an Error");
                    },
                    0,
                    10,
                    TimeUnit.MILLISECONDS);

            Awaitility.await().until(failing::isDone);

            assertThat(LogCleanerRunner.deadThreads(List.of(failing, healthy))).isOne();
            healthy.cancel(false);
            assertThat(LogCleanerRunner.deadThreads(List.of(failing, healthy))).isOne();
            assertThat(LogCleanerRunner.deadThreads(List.of(healthy))).isZero();
        }
    }

    /**
     * Three cleaner threads over four dirty compacted partitions; the first pass of any thread ends
     * by an Error: that thread is dead and counted by the gauge, and the two others clean every
     * partition, the dead thread's one included (its in-progress mark was removed).
     */
    @Test
    @Timeout(120)
    void aCleanerThreadEndedByAnErrorIsCountedDeadWhileTheOthersCleanEveryPartition() {
        try (IndexStore store = IndexStore.open(dir.resolve("index"));
                ReplicaManager manager = manager(store)) {
            List<String> topics = List.of("t0", "t1", "t2", "t3");
            manager.onImage(
                    ClusterImage.EMPTY,
                    image(
                            1,
                            List.of(broker(ME, 9092)),
                            topics.stream()
                                    .map(t -> topic(
                                            t,
                                            new Uuid(1, topics.indexOf(t) + 1),
                                            1,
                                            List.of(ME),
                                            0,
                                            Map.of("cleanup.policy", "compact")))
                                    .toList()));
            for (String topic : topics) {
                writeThreeVersions(manager.partition(topic, 0).orElseThrow());
            }
            Set<String> diedOn = ConcurrentHashMap.newKeySet();
            PassObserver firstPassDies = new PassObserver() {
                @Override
                public void passStarted(int thread, TopicIdPartition partition) {
                    if (diedOn.isEmpty() && diedOn.add(partition.topic())) {
                        throw new CleanerThreadDeath();
                    }
                }

                @Override
                public void passEnded(int thread, TopicIdPartition partition) {}
            };
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            LogCleanerProperties properties = new LogCleanerProperties(
                    true, DataSize.ofMegabytes(3), 0.9, DataSize.ofKilobytes(512), Duration.ofMillis(10), 16, null, 3);

            try (LogCleanerRunner runner = LogCleanerRunner.start(
                    manager, properties, new MicrometerCleanerMetrics(registry), firstPassDies)) {
                Awaitility.await()
                        .until(() -> topics.stream()
                                .allMatch(t -> manager.partition(t, 0)
                                                .orElseThrow()
                                                .log()
                                                .compaction()
                                                .cleanerCheckpoint()
                                        == 9));

                // The dead thread's schedule ends once its Error is out of its run, which may be
                // after the others cleaned everything.
                Awaitility.await().until(runner::deadThreads, dead -> dead == 1);
                assertThat(registry.get("tributary.broker.log.cleaner.dead.threads")
                                .gauge()
                                .value())
                        .isEqualTo(1.0);
                assertThat(diedOn).hasSize(1);
                assertThat(runner.cleaner().orElseThrow().uncleanablePartitions())
                        .isEmpty();
            }
        }
    }

    /** What kills a cleaner thread in the test above: an Error, which no run catches. */
    private static final class CleanerThreadDeath extends Error {
        CleanerThreadDeath() {
            super("a cleaner thread dying in a test", null, false, false);
        }
    }

    /** A replica manager of broker {@link #ME} over {@code store}, on the system clock. */
    private ReplicaManager manager(IndexStore store) {
        return new ReplicaManager(
                new ReplicaManagerConfig(
                        ME, dir.resolve("data"), LogConfig.defaults(), 1, ProducerStateConfig.defaults()),
                store,
                Clock.systemUTC(),
                Runnable::run);
    }

    /** Three versions of keys k0..k2, one closed segment each, flushed. */
    private static void writeThreeVersions(Partition partition) {
        for (int version = 0; version < 3; version++) {
            SimpleRecord[] records = new SimpleRecord[3];
            for (int i = 0; i < 3; i++) {
                records[i] = new SimpleRecord(1000L, LogContents.bytes("k" + i), LogContents.bytes("v" + version));
            }
            partition.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records));
            partition.log().roll();
        }
        partition.log().flush();
    }

    /** The {@code log-cleaner-0} thread, when it is inside the throttle. */
    private static Optional<Thread> throttledCleanerThread() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().equals("log-cleaner-0"))
                .filter(e -> Arrays.stream(e.getValue())
                        .anyMatch(frame -> frame.getClassName().equals(IoThrottle.class.getName())))
                .map(Map.Entry::getKey)
                .findFirst();
    }
}
