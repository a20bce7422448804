package io.tributary.broker.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.LogContents;
import io.tributary.broker.log.PartitionLog;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several cleaner threads of one {@link LogCleaner} over real logs: each thread takes a log no other
 * thread is cleaning, with its share of the dedupe buffer, and together they leave every log as one
 * thread would.
 */
class CleanerThreadsTest {

    /** Compacted, and cleaned whenever anything is dirty, so that every log is cleaned to its end. */
    private static final LogConfig COMPACT = CleanerTestLogs.COMPACT.withCompaction(
            CleanerTestLogs.COMPACT.compaction().withMinCleanableDirtyRatio(0.01));

    /** A map of about 20 keys a thread: the 25 keys of a log take several passes. */
    private static final long MAP_BYTES_PER_THREAD = 24 * 23;

    private static final int PARTITIONS = 8;

    private final InstantSource clock = InstantSource.fixed(Instant.ofEpochMilli(1_000_000));

    @RegisterExtension
    final CleanerTestLogs logs = new CleanerTestLogs(clock);

    private static CleanerConfig config(int threads) {
        return new CleanerConfig(MAP_BYTES_PER_THREAD * threads, 0.9, 4096 * threads).withThreads(threads);
    }

    /**
     * {@link #PARTITIONS} logs, each of 6 closed segments of one batch of 10 records over 25 keys,
     * every fifth a tombstone, with values and keys that differ by log.
     */
    private List<PartitionLog> dirtyLogs(String prefix) {
        List<PartitionLog> opened = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            PartitionLog log = logs.open(prefix + p, COMPACT);
            for (int s = 0; s < 6; s++) {
                SimpleRecord[] batch = new SimpleRecord[10];
                for (int i = 0; i < 10; i++) {
                    int key = (s * 7 + i * 3 + p) % 25;
                    byte[] value = (s + i + p) % 5 == 0 ? null : LogContents.bytes("v" + p + "-" + s + "-" + i);
                    batch[i] = new SimpleRecord(999_000, LogContents.bytes("k" + key), value);
                }
                log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, batch), 0);
                log.roll();
            }
            opened.add(log);
        }
        return opened;
    }

    private static List<LogCleaner.Target> targets(List<PartitionLog> partitionLogs) {
        return partitionLogs.stream().map(CleanerTestLogs::target).toList();
    }

    /** Each of {@code cleaner}'s threads on its own platform thread, rounds until none is due. */
    private static void runAllThreads(LogCleaner cleaner, List<LogCleaner.Target> targets) throws Exception {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> running = new ArrayList<>();
        for (CleanerThread thread : cleaner.threads()) {
            running.add(Thread.ofPlatform()
                    .name("test-cleaner-" + thread.index())
                    .start(() -> {
                        try {
                            // A thread whose round finds nothing while another is cleaning goes on: that
                            // log may need another pass, which the other thread also sees.
                            while (thread.runRound(targets).isPresent()
                                    || !cleaner.inProgressPartitions().isEmpty()) {
                                Thread.onSpinWait();
                            }
                        } catch (Throwable t) {
                            failures.add(t);
                        }
                    }));
        }
        for (Thread thread : running) {
            thread.join();
        }
        assertThat(failures).isEmpty();
    }

    @ParameterizedTest(name = "{0} threads")
    @ValueSource(ints = {2, 3, 4})
    void severalThreadsLeaveEveryLogAsOneThreadWithTheSameMapDoes(int threads) throws Exception {
        List<PartitionLog> alone = dirtyLogs("alone-");
        List<PartitionLog> together = dirtyLogs("together-");
        LogCleaner oneThread = new LogCleaner(config(1), clock);
        while (oneThread.runRound(targets(alone)).isPresent()) {
            // until nothing is due
        }
        LogCleaner cleaner = new LogCleaner(config(threads), clock);

        runAllThreads(cleaner, targets(together));

        for (int p = 0; p < PARTITIONS; p++) {
            PartitionLog expected = alone.get(p);
            PartitionLog actual = together.get(p);
            assertThat(expected.compaction().cleanerCheckpoint()).isEqualTo(60);
            assertThat(actual.compaction().cleanerCheckpoint())
                    .as("checkpoint of %s", actual)
                    .isEqualTo(60);
            assertThat(LogContents.records(actual))
                    .as("survivors of %s", actual)
                    .isEqualTo(LogContents.records(expected));
        }
        // Every log ended with at most one record per key.
        assertThat(LogContents.records(together.getFirst())).hasSizeLessThanOrEqualTo(25);
        assertThat(cleaner.runRound(targets(together))).isEmpty();
        assertThat(cleaner.uncleanablePartitions()).isEmpty();
        assertThat(cleaner.inProgressPartitions()).isEmpty();
    }

    /**
     * The observer holds each thread's first pass until every thread is inside one (a barrier), so
     * the threads overlap for sure; it counts the threads inside a pass over each log at each entry.
     */
    private static final class OverlapRecorder implements PassObserver {
        private final CyclicBarrier allInside;
        private final Map<TopicIdPartition, Integer> inside = new ConcurrentHashMap<>();
        private final List<String> overlaps = new CopyOnWriteArrayList<>();
        private final Set<Integer> held = ConcurrentHashMap.newKeySet();
        private final Set<TopicIdPartition> heldTogether = ConcurrentHashMap.newKeySet();
        private final List<Throwable> barrierFailures = new CopyOnWriteArrayList<>();

        OverlapRecorder(int threads) {
            this.allInside = new CyclicBarrier(threads);
        }

        @Override
        public void passStarted(int thread, TopicIdPartition partition) {
            int now = inside.merge(partition, 1, Integer::sum);
            if (now > 1) {
                overlaps.add(
                        partition + " entered by thread " + thread + " while " + (now - 1) + " other(s) cleaned it");
            }
            if (held.add(thread)) {
                heldTogether.add(partition);
                try {
                    // Not a timing assertion: only a guard against waiting forever if threads never meet.
                    allInside.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                    barrierFailures.add(e);
                }
            }
        }

        @Override
        public void passEnded(int thread, TopicIdPartition partition) {
            inside.merge(partition, -1, Integer::sum);
        }
    }

    @ParameterizedTest(name = "{0} threads")
    @ValueSource(ints = {2, 4})
    void noLogIsEverCleanedByTwoThreadsAtOnce(int threads) throws Exception {
        List<PartitionLog> dirty = dirtyLogs("log-");
        OverlapRecorder recorder = new OverlapRecorder(threads);
        LogCleaner cleaner = new LogCleaner(config(threads), clock, CleanerMetrics.NONE, recorder);

        runAllThreads(cleaner, targets(dirty));

        assertThat(recorder.barrierFailures).isEmpty();
        assertThat(recorder.overlaps).isEmpty();
        // All the threads were inside a pass at once, each over its own log.
        assertThat(recorder.held).hasSize(threads);
        assertThat(recorder.heldTogether).hasSize(threads);
        assertThat(dirty)
                .allSatisfy(
                        log -> assertThat(log.compaction().cleanerCheckpoint()).isEqualTo(60));
    }

    @Test
    void eachThreadsMapIsItsShareOfTheDedupeBuffer() throws Exception {
        int threads = 4;
        List<PartitionLog> dirty = dirtyLogs("log-");
        // The barrier makes every thread run a pass, so every thread allocates its map.
        LogCleaner cleaner = new LogCleaner(config(threads), clock, CleanerMetrics.NONE, new OverlapRecorder(threads));

        runAllThreads(cleaner, targets(dirty));

        int shareSlots = new OffsetMap(MAP_BYTES_PER_THREAD, 0.9).slots();
        assertThat(shareSlots).isLessThan(new OffsetMap(MAP_BYTES_PER_THREAD * threads, 0.9).slots());
        assertThat(cleaner.threads()).hasSize(threads).allSatisfy(thread -> {
            assertThat(thread.holdsMap()).isTrue();
            assertThat(thread.mapSlots()).isEqualTo(shareSlots);
        });
        assertThat(config(threads).dedupeBufferBytesPerThread()).isEqualTo(MAP_BYTES_PER_THREAD);
    }

    @Test
    void aThreadEndedByAnErrorLeavesItsLogUnmarkedAndAnotherThreadCleansIt() {
        List<PartitionLog> dirty = dirtyLogs("log-");
        Set<TopicIdPartition> diedOn = ConcurrentHashMap.newKeySet();
        PassObserver threadZeroDies = new PassObserver() {
            @Override
            public void passStarted(int thread, TopicIdPartition partition) {
                if (thread == 0) {
                    diedOn.add(partition);
                    throw new CleanerThreadDeath();
                }
            }

            @Override
            public void passEnded(int thread, TopicIdPartition partition) {}
        };
        LogCleaner cleaner = new LogCleaner(config(2), clock, CleanerMetrics.NONE, threadZeroDies);
        // Only the first log, so that thread 1 has no other choice.
        List<LogCleaner.Target> first = targets(dirty.subList(0, 1));

        assertThatThrownBy(() -> cleaner.threads().get(0).runRound(first)).isInstanceOf(CleanerThreadDeath.class);

        assertThat(diedOn).containsExactly(dirty.getFirst().topicIdPartition());
        assertThat(cleaner.inProgressPartitions()).isEmpty();
        assertThat(cleaner.uncleanablePartitions()).isEmpty();
        assertThat(cleaner.threads().get(1).runRound(first))
                .hasValueSatisfying(r -> assertThat(r.outcome()).isEqualTo(CleanResult.Outcome.CLEANED));
    }

    @Test
    void aLogBeingCleanedIsNotAnotherThreadsChoice() {
        List<PartitionLog> dirty = dirtyLogs("log-");
        List<LogCleaner.Target> both = targets(dirty.subList(0, 2));
        List<TopicIdPartition> chosenWhileHeld = new CopyOnWriteArrayList<>();
        LogCleaner[] cleaner = new LogCleaner[1];
        // While thread 0 is inside its pass over the first log, thread 1 runs a round.
        PassObserver nested = new PassObserver() {
            @Override
            public void passStarted(int thread, TopicIdPartition partition) {
                if (thread == 0) {
                    cleaner[0].threads().get(1).runRound(both);
                } else {
                    chosenWhileHeld.add(partition);
                }
            }

            @Override
            public void passEnded(int thread, TopicIdPartition partition) {}
        };
        cleaner[0] = new LogCleaner(config(2), clock, CleanerMetrics.NONE, nested);

        cleaner[0].threads().get(0).runRound(both);

        // Equal dirty ratios: thread 0 took the first log, thread 1 the second.
        assertThat(chosenWhileHeld).containsExactly(dirty.get(1).topicIdPartition());
        assertThat(dirty.get(0).compaction().cleanerCheckpoint()).isPositive();
        assertThat(dirty.get(1).compaction().cleanerCheckpoint()).isPositive();
    }

    @Test
    void theThreadCountIsBoundedAndTheDedupeBufferMustLeaveEachThreadAMap() {
        assertThatThrownBy(() -> CleanerConfig.defaults().withThreads(0))
                .hasMessageContaining("log.cleaner.threads must be between 1 and 16");
        assertThatThrownBy(() -> CleanerConfig.defaults().withThreads(17))
                .hasMessageContaining("log.cleaner.threads must be between 1 and 16");
        assertThatThrownBy(() -> new CleanerConfig(24 * 3, 0.9, 4096).withThreads(2))
                .hasMessageContaining("log.cleaner.dedupe.buffer.size is too small");
        assertThat(CleanerConfig.defaults().withThreads(16).dedupeBufferBytesPerThread())
                .isEqualTo(CleanerConfig.DEFAULT_DEDUPE_BUFFER_BYTES / 16);
    }

    /** What kills a cleaner thread in these tests: an Error, which a round does not catch. */
    private static final class CleanerThreadDeath extends Error {
        CleanerThreadDeath() {
            super("a cleaner thread dying in a test", null, false, false);
        }
    }
}
