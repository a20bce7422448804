package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.log.index.IndexStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The idempotent producer's checks, made by {@link PartitionLog#appendAsLeader} with offset assignment. */
class ProducerStateTest {

    static final TopicIdPartition TP = new TopicIdPartition(new Uuid(5, 6), 0, "idem");
    static final long PID = 4242;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000_000);
    private IndexStore store;
    private PartitionLog log;

    @BeforeEach
    void open() {
        store = IndexStore.open(dir.resolve("index"));
        log = PartitionLog.open(dir.resolve("data"), TP, LogConfig.defaults(), store, clock);
    }

    @AfterEach
    void close() {
        log.close();
        store.close();
    }

    static MemoryRecords idempotent(long producerId, int epoch, int baseSequence, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(1000L + i, ("v" + (baseSequence + i)).getBytes(StandardCharsets.US_ASCII));
        }
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, (short) epoch, baseSequence, records);
    }

    @Test
    void aRetriedBatchIsAnsweredWithItsOriginalOffsetsAndNotWrittenAgain() {
        log.appendAsLeader(idempotent(PID, 0, 0, 3), 0);
        AppendResult second = log.appendAsLeader(idempotent(PID, 0, 3, 2), 0);

        AppendResult retry = log.appendAsLeader(idempotent(PID, 0, 3, 2), 0);

        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.firstOffset()).isEqualTo(second.firstOffset()).isEqualTo(3);
        assertThat(retry.lastOffset()).isEqualTo(4);
        assertThat(log.logEndOffset()).isEqualTo(5);
    }

    @Test
    void aDuplicateOfOneOfTheLastFiveBatchesIsDetectedButAnOlderOneIsNot() {
        for (int i = 0; i < 6; i++) {
            log.appendAsLeader(idempotent(PID, 0, i, 1), 0);
        }
        assertThat(log.appendAsLeader(idempotent(PID, 0, 1, 1), 0).firstOffset())
                .isEqualTo(1);
        // Batch 0 is the sixth newest: forgotten, so it is a sequence error, not a duplicate.
        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID, 0, 0, 1), 0))
                .isInstanceOf(OutOfOrderSequenceException.class);
    }

    @Test
    void aSequenceGapIsRefusedAndNothingIsWritten() {
        log.appendAsLeader(idempotent(PID, 0, 0, 3), 0);

        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID, 0, 4, 1), 0))
                .isInstanceOf(OutOfOrderSequenceException.class);
        assertThat(log.logEndOffset()).isEqualTo(3);
    }

    @Test
    void anOlderEpochIsFenced() {
        log.appendAsLeader(idempotent(PID, 1, 0, 1), 0);

        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID, 0, 1, 1), 0))
                .isInstanceOf(InvalidProducerEpochException.class);
    }

    @Test
    void aNewEpochMustStartAtSequenceZero() {
        log.appendAsLeader(idempotent(PID, 0, 0, 2), 0);

        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID, 1, 5, 1), 0))
                .isInstanceOf(OutOfOrderSequenceException.class);
        AppendResult restart = log.appendAsLeader(idempotent(PID, 1, 0, 1), 0);
        assertThat(restart.firstOffset()).isEqualTo(2);
        assertThat(log.producerEpoch(PID)).isEqualTo(OptionalInt.of(1));
    }

    @Test
    void anUnknownProducerIsAcceptedAtAnySequence() {
        AppendResult result = log.appendAsLeader(idempotent(PID, 3, 17, 2), 0);

        assertThat(result.duplicate()).isFalse();
        assertThat(log.appendAsLeader(idempotent(PID, 3, 19, 1), 0).firstOffset())
                .isEqualTo(2);
    }

    @Test
    void sequencesWrapFromIntegerMaxToZero() {
        log.appendAsLeader(idempotent(PID, 0, Integer.MAX_VALUE, 1), 0);

        assertThat(log.appendAsLeader(idempotent(PID, 0, 0, 1), 0).firstOffset())
                .isEqualTo(1);
    }

    @Test
    void transactionalBatchesAreRefused() {
        MemoryRecords transactional = MemoryRecords.withTransactionalRecords(
                Compression.NONE, PID, (short) 0, 0, new SimpleRecord("x".getBytes(StandardCharsets.US_ASCII)));

        assertThatThrownBy(() -> log.appendAsLeader(transactional, 0))
                .isInstanceOf(TransactionsUnsupportedException.class);
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void theStateSurvivesACleanRestart() {
        log.appendAsLeader(idempotent(PID, 2, 0, 3), 0);
        log.close();
        log = PartitionLog.open(dir.resolve("data"), TP, LogConfig.defaults(), store, clock);

        AppendResult retry = log.appendAsLeader(idempotent(PID, 2, 0, 3), 0);

        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.firstOffset()).isZero();
        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID, 2, 7, 1), 0))
                .isInstanceOf(OutOfOrderSequenceException.class);
    }

    @Test
    void theStateSurvivesACrash() {
        log.appendAsLeader(idempotent(PID, 0, 0, 2), 0);
        log.appendAsLeader(idempotent(PID, 0, 2, 2), 0);
        log.closeAsIfCrashed();
        log = PartitionLog.open(dir.resolve("data"), TP, LogConfig.defaults(), store, clock);

        assertThat(log.appendAsLeader(idempotent(PID, 0, 2, 2), 0).firstOffset())
                .isEqualTo(2);
        assertThat(log.logEndOffset()).isEqualTo(4);
    }

    @Test
    void truncationForgetsTheBatchesItRemoves() {
        log.appendAsLeader(idempotent(PID, 0, 0, 2), 0);
        log.appendAsLeader(idempotent(PID, 0, 2, 2), 0);

        log.truncateTo(2);

        // The batch at sequence 2 is gone, so it is new again rather than a duplicate.
        AppendResult again = log.appendAsLeader(idempotent(PID, 0, 2, 2), 0);
        assertThat(again.duplicate()).isFalse();
        assertThat(again.firstOffset()).isEqualTo(2);
    }

    @Test
    void followerAppendsFeedTheStateSoALeaderAfterThemDetectsDuplicates() {
        MemoryRecords fromLeader = idempotent(PID, 0, 0, 2);
        log.appendAsFollower(fromLeader);

        assertThat(log.appendAsLeader(idempotent(PID, 0, 0, 2), 1).duplicate()).isTrue();
    }

    @Test
    void idleProducersExpire() {
        PartitionLog expiring = log;
        expiring.close();
        log = PartitionLog.open(
                dir.resolve("data"),
                TP,
                LogConfig.defaults(),
                new ProducerStateConfig(ProducerStateConfig.DEFAULT_REBUILD_BYTES, Duration.ofMinutes(1)),
                store,
                clock);
        log.appendAsLeader(idempotent(PID, 0, 0, 1), 0);

        clock.advance(Duration.ofMinutes(2));

        assertThat(log.expireProducers()).isEqualTo(1);
        assertThat(log.producerEpoch(PID)).isEmpty();
    }

    @Test
    void rebuildReadsOnlyTheNewestSegmentsWithinTheBound() {
        log.close();
        LogConfig small = LogConfig.defaults().withSegmentBytes(200);
        ProducerStateConfig tiny = new ProducerStateConfig(1, ProducerStateConfig.DEFAULT_EXPIRATION);
        log = PartitionLog.open(dir.resolve("data"), TP, small, tiny, store, clock);
        log.appendAsLeader(idempotent(PID, 0, 0, 1), 0);
        log.appendAsLeader(idempotent(PID + 1, 0, 0, 1), 0);
        log.appendAsLeader(idempotent(PID + 1, 0, 1, 1), 0);
        assertThat(log.segmentBaseOffsets()).hasSizeGreaterThan(1);
        log.closeAsIfCrashed();

        log = PartitionLog.open(dir.resolve("data"), TP, small, tiny, store, clock);

        // Only the newest segment (holding producer PID + 1's last batch) was read.
        assertThat(log.producerEpoch(PID)).isEmpty();
        assertThat(log.producerEpoch(PID + 1)).isEqualTo(OptionalInt.of(0));
    }

    @Test
    void aCleanCloseSnapshotsTheStateSoTheNextOpenReadsNoBatches() {
        log.close();
        LogConfig small = LogConfig.defaults().withSegmentBytes(200);
        ProducerStateConfig tiny = new ProducerStateConfig(1, ProducerStateConfig.DEFAULT_EXPIRATION);
        log = PartitionLog.open(dir.resolve("data"), TP, small, tiny, store, clock);
        log.appendAsLeader(idempotent(PID, 4, 0, 1), 0);
        log.appendAsLeader(idempotent(PID + 1, 0, 0, 1), 0);
        log.appendAsLeader(idempotent(PID + 1, 0, 1, 1), 0);
        log.close();
        assertThat(store.partition(TP.topicId(), TP.partition()).readProducerSnapshot())
                .isPresent();

        log = PartitionLog.open(dir.resolve("data"), TP, small, tiny, store, clock);

        // A rebuild within the one-byte bound would have forgotten PID; the snapshot kept it.
        assertThat(log.producerEpoch(PID)).isEqualTo(OptionalInt.of(4));
        assertThat(log.appendAsLeader(idempotent(PID, 4, 0, 1), 0).duplicate()).isTrue();
        // Used once: a crash after this open rebuilds from the log.
        assertThat(store.partition(TP.topicId(), TP.partition()).readProducerSnapshot())
                .isEmpty();
    }

    @Test
    void snapshotsRoundTripAndRefuseAnotherLogEnd() {
        ProducerState state = new ProducerState();
        state.replay(new BatchHeader(0, 10, 12, 100, (byte) 2, 0, 5, 3, (short) 0, PID, (short) 2, 7), 1_000);
        state.replay(new BatchHeader(0, 13, 13, 100, (byte) 2, 0, 5, 1, (short) 0, PID, (short) 2, 10), 2_000);
        byte[] snapshot = state.encode(14);

        ProducerState loaded = new ProducerState();
        assertThat(loaded.load(snapshot, 15)).isFalse();
        assertThat(loaded.load(java.util.Arrays.copyOf(snapshot, snapshot.length - 1), 14))
                .isFalse();
        assertThat(loaded.load(snapshot, 14)).isTrue();

        assertThat(loaded.entry(PID).orElseThrow().batches())
                .isEqualTo(state.entry(PID).orElseThrow().batches())
                .containsExactly(
                        new ProducerState.BatchMetadata(7, 9, 10, 12), new ProducerState.BatchMetadata(10, 10, 13, 13));
        assertThat(loaded.entry(PID).orElseThrow().epoch()).isEqualTo((short) 2);
        assertThat(loaded.expire(2_000 + 999, 1_000)).isZero();
        assertThat(loaded.expire(2_000 + 1_000, 1_000)).isEqualTo(1);
    }
}
