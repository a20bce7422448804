package io.tributary.broker.log;

import static io.tributary.broker.log.TestBatches.batch;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.index.IndexStore;
import io.tributary.broker.log.index.PartitionState;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A roll's fsync runs on the roll flusher, not on the appending thread, and moves the recovery
 * point only to what is still durable when it finishes. Most tests hold the flushes in a queue and
 * run them at a chosen point (the races made deterministic); the others use the real {@link
 * RollFlusher} thread.
 */
class RollFlushTest {

    private static final TopicIdPartition TP = new TopicIdPartition(new Uuid(7, 7), 0, "rolled");
    private static final int BATCH_BYTES = batch(1, 0, 100).sizeInBytes();
    /** Two batches per segment. */
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(2 * BATCH_BYTES);

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000_000);
    /** Roll flushes handed over and not run yet. */
    private final Deque<Runnable> held = new ArrayDeque<>();

    private final Executor holding = held::add;
    private IndexStore store;
    private PartitionLog log;

    @BeforeEach
    void openStore() {
        store = IndexStore.open(dir.resolve("index"));
    }

    @AfterEach
    void closeAll() {
        if (log != null) {
            log.close();
        }
        store.close();
    }

    private PartitionLog open(Executor rollFlusher) {
        return PartitionLog.open(
                dir.resolve("data"), TP, CONFIG, ProducerStateConfig.defaults(), store, clock, rollFlusher);
    }

    private void append(int batches) {
        for (int i = 0; i < batches; i++) {
            log.appendAsLeader(batch(1, clock.millis(), 100), 0);
        }
    }

    private PartitionState savedState() {
        return store.partition(TP.topicId(), TP.partition()).readState().orElseThrow();
    }

    private void runHeld() {
        assertThat(held).as("a roll flush is held").isNotEmpty();
        while (!held.isEmpty()) {
            held.poll().run();
        }
    }

    @Test
    void aRollLeavesTheRecoveryPointUntilTheFlushHasRun() throws Exception {
        log = open(holding);
        append(3); // segments [0, 1] and [2]: one roll at 2

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L);
        assertThat(held).hasSize(1);
        assertThat(log.recoveryPoint()).isZero();
        assertThat(savedState().recoveryPoint()).isZero();

        runHeld();

        assertThat(log.recoveryPoint()).isEqualTo(2);
        assertThat(log.lastRollFlush().get()).isEqualTo(2);
        assertThat(savedState().recoveryPoint()).isEqualTo(2);
        assertThat(savedState().shutdown()).isEqualTo(PartitionState.Shutdown.UNCLEAN);
    }

    @Test
    void theRollFlusherThreadMovesTheRecoveryPointToTheRolledSegmentsEnd() throws Exception {
        try (RollFlusher flusher = new RollFlusher(4)) {
            log = open(flusher);
            append(5); // segments [0, 1], [2, 3], [4]

            assertThat(log.lastRollFlush().get(30, TimeUnit.SECONDS)).isEqualTo(4);
            assertThat(log.recoveryPoint()).isEqualTo(4);
            assertThat(savedState().recoveryPoint()).isEqualTo(4);
            log.close();
        }
    }

    @Test
    void aTruncationBelowAPendingFlushLowersWhereItMovesTheRecoveryPoint() throws Exception {
        log = open(holding);
        append(3); // roll at 2, flush pending with target 2
        log.truncateTo(1); // segment [2] deleted, segment 0 cut after offset 0
        append(1); // offset 1 again, in segment 0, after the truncation: not in what the flush covers

        assertThat(log.logEndOffset()).isEqualTo(2);
        runHeld();

        // Not 2 (the flush's target, which is also the log end again): the new batch at 1 may not be durable.
        assertThat(log.recoveryPoint()).isEqualTo(1);
        assertThat(savedState().recoveryPoint()).isEqualTo(1);
        assertThat(log.lastRollFlush().get()).isEqualTo(1);
    }

    @Test
    void aFullTruncationCancelsAPendingFlush() throws Exception {
        log = open(holding);
        append(5); // rolls at 2 and 4
        log.truncateFullyAndStartAt(0);
        append(1);

        runHeld(); // their segments are deleted: the fsyncs fail with ClosedChannelException

        assertThat(log.recoveryPoint()).isZero();
        assertThat(savedState().recoveryPoint()).isZero();
        assertThat(log.lastRollFlush()).isCompleted();
        assertThat(log.lastRollFlush().isCompletedExceptionally()).isFalse();
    }

    @Test
    void aSegmentDeletedWhileItsFlushIsPendingIsSkipped() throws Exception {
        log = open(holding);
        append(5); // rolls at 2 (covers [0, 1]) and at 4 (covers [0, 1] and [2, 3])
        log.deleteRecordsBefore(2); // segment 0 is deleted

        assertThat(log.segmentBaseOffsets()).containsExactly(2L, 4L);
        runHeld();

        assertThat(log.lastRollFlush().isCompletedExceptionally()).isFalse();
        assertThat(log.recoveryPoint()).isEqualTo(4);
        assertThat(savedState().recoveryPoint()).isEqualTo(4);
        assertThat(savedState().logStartOffset()).isEqualTo(2);
    }

    @Test
    void retentionDeletingASegmentWhoseFlushIsPendingIsSkipped() throws Exception {
        log = PartitionLog.open(
                dir.resolve("data"),
                TP,
                CONFIG.withRetentionTime(java.util.Optional.empty())
                        .withRetentionBytes(java.util.OptionalLong.of(BATCH_BYTES)),
                ProducerStateConfig.defaults(),
                store,
                clock,
                holding);
        append(5);
        assertThat(log.deleteExpiredSegments(10).segmentsDeleted()).isEqualTo(2);

        runHeld();

        assertThat(log.lastRollFlush().isCompletedExceptionally()).isFalse();
        assertThat(log.recoveryPoint()).isEqualTo(4);
    }

    @Test
    void closeIncludesAPendingFlushAndAFlushRunAfterItChangesNothing() throws Exception {
        log = open(holding);
        append(3);

        log.close();
        PartitionState closedState = savedState();
        assertThat(closedState.shutdown()).isEqualTo(PartitionState.Shutdown.CLEAN);
        assertThat(closedState.recoveryPoint()).isEqualTo(3);

        runHeld(); // its segment's channel is closed
        assertThat(log.lastRollFlush().isCompletedExceptionally()).isFalse();
        assertThat(savedState()).isEqualTo(closedState);

        log = open(holding);
        assertThat(log.openReport().cleanShutdown()).isTrue();
        assertThat(log.logEndOffset()).isEqualTo(3);
    }

    @Test
    void aFullQueueFlushesOnTheRollingThread() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        try (RollFlusher flusher = new RollFlusher(1)) {
            flusher.execute(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            // The thread may not have taken the first task yet: fill until one runs here.
            for (int i = 0; i < 3 && !ranOn.contains(Thread.currentThread()); i++) {
                flusher.execute(() -> ranOn.add(Thread.currentThread()));
            }
            assertThat(ranOn).contains(Thread.currentThread());
            release.countDown();
        }
        // close() waited for the queued task, which ran on the flusher thread.
        assertThat(ranOn).anySatisfy(t -> assertThat(t.getName()).isEqualTo(RollFlusher.THREAD_NAME));
    }

    /**
     * Appends, truncations, deletions and flushes racing the real flusher thread: the recovery point
     * never passes the log end, and a crash right after leaves every batch below it readable.
     */
    @Test
    void racingTheFlusherThreadKeepsTheRecoveryPointWithinTheLog() throws Exception {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(3);
        try (RollFlusher flusher = new RollFlusher(2)) {
            log = open(flusher);
            for (int step = 0; step < 2_000; step++) {
                int action = random.nextInt(100);
                if (action < 80) {
                    append(1);
                } else if (action < 90 && log.logEndOffset() > log.logStartOffset()) {
                    log.truncateTo(random.nextLong(log.logStartOffset(), log.logEndOffset()));
                } else if (action < 95 && log.logEndOffset() > log.logStartOffset()) {
                    log.deleteRecordsBefore(random.nextLong(log.logStartOffset(), log.logEndOffset() + 1));
                } else if (action < 97) {
                    log.truncateFullyAndStartAt(log.logEndOffset() + random.nextInt(3));
                } else {
                    log.flush();
                }
                assertThat(log.recoveryPoint()).as("step %d", step).isLessThanOrEqualTo(log.logEndOffset());
            }
            log.lastRollFlush().get(30, TimeUnit.SECONDS);
            long recoveryPoint = log.recoveryPoint();
            long end = log.logEndOffset();
            assertThat(recoveryPoint).isLessThanOrEqualTo(end);
            log.closeAsIfCrashed();
            log = open(flusher);
            assertThat(log.openReport().cleanShutdown()).isFalse();
            assertThat(log.logEndOffset()).isEqualTo(end);
            assertThat(log.recoveryPoint()).isLessThanOrEqualTo(end);
            log.close();
        }
    }
}
