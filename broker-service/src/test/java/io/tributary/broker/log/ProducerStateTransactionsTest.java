package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link ProducerState}'s transaction rules (Kafka's {@code ProducerStateManager}), on headers of
 * batches built by kafka-clients: a transactional batch opens the producer's transaction, a marker
 * ends it and moves the producer to the marker's epoch; a non-transactional batch inside an open
 * transaction, a marker of an older epoch and one of an older coordinator epoch are refused; a
 * replayed marker ends the transaction too; the version-2 snapshot keeps the open transaction and the
 * coordinator epoch, and a version-1 snapshot still loads.
 */
class ProducerStateTransactionsTest {

    private static final long PID = 7;
    private static final long NOW = 1_000;

    private static BatchHeader transactional(long offset, int epoch, int sequence) {
        return header(MemoryRecords.withTransactionalRecords(
                offset, Compression.NONE, PID, (short) epoch, sequence, 0, record()));
    }

    private static BatchHeader idempotent(long offset, int epoch, int sequence) {
        return header(MemoryRecords.withIdempotentRecords(
                offset, Compression.NONE, PID, (short) epoch, sequence, 0, record()));
    }

    private static BatchHeader marker(long offset, int epoch, boolean commit, int coordinatorEpoch) {
        return header(MemoryRecords.withEndTransactionMarker(
                offset,
                NOW,
                0,
                PID,
                (short) epoch,
                new EndTransactionMarker(
                        commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, coordinatorEpoch)));
    }

    private static SimpleRecord record() {
        return new SimpleRecord(NOW, "v".getBytes(StandardCharsets.US_ASCII));
    }

    private static BatchHeader header(MemoryRecords records) {
        ByteBuffer buffer = records.buffer();
        return BatchHeader.read(buffer, buffer.position(), 0);
    }

    private static void append(ProducerState state, BatchHeader batch) {
        state.commit(state.analyze(List.of(batch), NOW));
    }

    @Test
    void aTransactionalBatchOpensTheTransactionAndAMarkerEndsIt() {
        ProducerState state = new ProducerState();
        append(state, transactional(10, 0, 0));
        append(state, transactional(11, 0, 1));
        assertThat(state.entry(PID).orElseThrow().currentTxnFirstOffset()).isEqualTo(10);

        ProducerState.MarkerAnalysis end = state.analyzeMarker(PID, (short) 0, 5, NOW);
        assertThat(end.transactionFirstOffset()).isEqualTo(10);
        assertThat(state.entry(PID).orElseThrow().currentTxnFirstOffset())
                .as("nothing changes before the marker is written")
                .isEqualTo(10);
        state.commitMarker(end);
        ProducerState.Entry entry = state.entry(PID).orElseThrow();
        assertThat(entry.currentTxnFirstOffset()).isEqualTo(ProducerState.NO_OFFSET);
        assertThat(entry.coordinatorEpoch()).isEqualTo(5);

        append(state, transactional(13, 0, 2));
        assertThat(state.entry(PID).orElseThrow().currentTxnFirstOffset())
                .as("the next transaction, same epoch (the first protocol)")
                .isEqualTo(13);
        assertThat(state.analyzeMarker(PID, (short) 0, 5, NOW).transactionFirstOffset())
                .isEqualTo(13);
    }

    @Test
    void aNonTransactionalBatchInsideAnOpenTransactionIsInvalidTxnState() {
        ProducerState state = new ProducerState();
        append(state, transactional(10, 0, 0));
        assertThatThrownBy(() -> state.analyze(List.of(idempotent(11, 0, 1)), NOW))
                .isInstanceOf(InvalidTxnStateException.class);
    }

    @Test
    void staleMarkersAreRefusedAndABumpedEpochFencesTheOldOne() {
        ProducerState state = new ProducerState();
        append(state, transactional(10, 3, 0));
        state.commitMarker(state.analyzeMarker(PID, (short) 4, 6, NOW)); // an abort by fencing: epoch 4
        assertThat(state.entry(PID).orElseThrow().epoch()).isEqualTo((short) 4);
        assertThat(state.entry(PID).orElseThrow().batches())
                .as("the old epoch's batches are gone")
                .isEmpty();

        assertThatThrownBy(() -> state.analyzeMarker(PID, (short) 3, 6, NOW))
                .isInstanceOf(InvalidProducerEpochException.class);
        assertThatThrownBy(() -> state.analyzeMarker(PID, (short) 4, 5, NOW))
                .isInstanceOf(TransactionCoordinatorFencedException.class);
        assertThatThrownBy(() -> state.analyze(List.of(transactional(11, 3, 1)), NOW))
                .as("the zombie's late write")
                .isInstanceOf(InvalidProducerEpochException.class);
        assertThat(state.analyzeMarker(PID, (short) 4, 6, NOW).transactionFirstOffset())
                .as("a coordinator's retried marker ends nothing")
                .isEqualTo(ProducerState.NO_OFFSET);
    }

    @Test
    void aControlBatchIsNotAClientsToWriteButIsReplayed() {
        ProducerState state = new ProducerState();
        assertThatThrownBy(() -> state.analyze(List.of(marker(0, 0, true, 1)), NOW))
                .isInstanceOf(IllegalArgumentException.class);
        state.replay(transactional(0, 0, 0), NOW);
        assertThat(state.entry(PID).orElseThrow().currentTxnFirstOffset()).isZero();
        state.replay(marker(1, 1, false, 2), NOW);
        ProducerState.Entry entry = state.entry(PID).orElseThrow();
        assertThat(entry.currentTxnFirstOffset()).isEqualTo(ProducerState.NO_OFFSET);
        assertThat(entry.epoch()).isEqualTo((short) 1);
    }

    @Test
    void theSnapshotKeepsTheOpenTransactionAndTheCoordinatorEpoch() {
        ProducerState state = new ProducerState();
        append(state, transactional(10, 0, 0));
        state.commitMarker(state.analyzeMarker(PID, (short) 0, 9, NOW));
        append(state, transactional(12, 0, 1));
        byte[] snapshot = state.encode(13);
        assertThat(snapshot[0]).isEqualTo(ProducerState.SNAPSHOT_VERSION);

        ProducerState loaded = new ProducerState();
        assertThat(loaded.load(snapshot, 13)).isTrue();
        ProducerState.Entry entry = loaded.entry(PID).orElseThrow();
        assertThat(entry.currentTxnFirstOffset()).isEqualTo(12);
        assertThat(entry.coordinatorEpoch()).isEqualTo(9);
        assertThat(entry.batches()).isEqualTo(state.entry(PID).orElseThrow().batches());

        ProducerState markersOnly = new ProducerState();
        markersOnly.commitMarker(markersOnly.analyzeMarker(PID, (short) 2, 1, NOW));
        ProducerState again = new ProducerState();
        assertThat(again.load(markersOnly.encode(0), 0))
                .as("a producer with no batch")
                .isTrue();
        assertThat(again.entry(PID).orElseThrow().epoch()).isEqualTo((short) 2);
    }

    @Test
    void aVersionOneSnapshotStillLoads() {
        // Version 1: one producer (id 7, epoch 3, last append 1000) with one batch, at log end 5.
        ByteBuffer v1 = ByteBuffer.allocate(13 + 19 + 24)
                .put((byte) 1)
                .putLong(5)
                .putInt(1)
                .putLong(PID)
                .putShort((short) 3)
                .putLong(1000)
                .put((byte) 1)
                .putInt(0)
                .putInt(2)
                .putLong(2)
                .putLong(4);
        ProducerState state = new ProducerState();
        assertThat(state.load(v1.array(), 5)).isTrue();
        ProducerState.Entry entry = state.entry(PID).orElseThrow();
        assertThat(entry.epoch()).isEqualTo((short) 3);
        assertThat(entry.currentTxnFirstOffset()).isEqualTo(ProducerState.NO_OFFSET);
        assertThat(entry.coordinatorEpoch()).isEqualTo(ProducerState.NO_COORDINATOR_EPOCH);
        assertThat(entry.batches()).containsExactly(new ProducerState.BatchMetadata(0, 2, 2, 4));
    }
}
