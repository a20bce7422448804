package io.tributary.coordinator.transaction;

import static io.tributary.coordinator.transaction.TransactionState.COMPLETE_ABORT;
import static io.tributary.coordinator.transaction.TransactionState.COMPLETE_COMMIT;
import static io.tributary.coordinator.transaction.TransactionState.EMPTY;
import static io.tributary.coordinator.transaction.TransactionState.ONGOING;
import static io.tributary.coordinator.transaction.TransactionState.PREPARE_ABORT;
import static io.tributary.coordinator.transaction.TransactionState.PREPARE_COMMIT;
import static io.tributary.coordinator.transaction.TransactionTransitions.LAST_EPOCH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.metadata.TopicPartition;
import io.tributary.coordinator.transaction.TransactionTransitions.Decision;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.protocol.Errors;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pins down the contract of {@link TransactionTransitions}: for each request (InitProducerId,
 * AddPartitionsToTxn, AddOffsetsToTxn, a broker's verification, EndTxn) in each state of the stored
 * record, the Kafka error answered or the record written; and the coordinator's own steps (the abort
 * of a timed-out transaction, the completion once markers are written, the expiration of an idle
 * id). The rules are those of Kafka's TransactionCoordinator and TransactionMetadata for its first
 * transaction protocol (KIP-98, with KIP-360's expected producer id and epoch, and KIP-890 part 1's
 * verification of a partition by the broker). Among them: a plain InitProducerId bumps the epoch and
 * forgets the last one, so no older instance passes for a retry, while a producer naming its current
 * producer id and epoch keeps its old epoch as the last one; a retried InitProducerId whose bump or
 * change of producer id was stored is answered the same again, as a write to Empty; an exhausted
 * epoch ({@code Short.MAX_VALUE - 1} or more) moves to a new producer id at epoch 0; the epoch fence
 * of an open transaction (InitProducerId, timeout) bumps the epoch up to {@code Short.MAX_VALUE} and
 * forgets the last one; a completed transaction keeps its start time; an idle id expires once
 * unchanged for the expiration.
 */
class TransactionTransitionsTest {

    private static final String ID = "txn";
    private static final long PID = 1_000;
    private static final long NEW_PID = 2_000;
    private static final long T0 = 1_800_000_000_000L;
    private static final long NOW = T0 + 1_000;
    private static final long REVISION = 5;
    private static final int TIMEOUT_MS = 60_000;
    private static final TransactionConfig CONFIG =
            new TransactionConfig(Duration.ofMinutes(15), Duration.ofDays(7), 3, 2, Duration.ofMillis(500));
    private static final TopicPartition A = new TopicPartition("t", 0);
    private static final TopicPartition B = new TopicPartition("t", 1);
    private static final TopicPartition C = new TopicPartition("u", 0);
    private static final TopicPartition D = new TopicPartition("u", 1);

    /**
     * A record at revision 5, made at T0; an open one holds partitions A and B and group g; an open or
     * completed transaction started at T0 (only an Empty record has no start).
     */
    private static TransactionRecord record(
            TransactionState state, long producerId, long previousProducerId, int epoch, int lastEpoch) {
        boolean open = state == ONGOING || state.preparing();
        return new TransactionRecord(
                ID,
                REVISION,
                producerId,
                previousProducerId,
                -1,
                (short) epoch,
                (short) lastEpoch,
                TIMEOUT_MS,
                state,
                new TreeSet<>(open ? Set.of(A, B) : Set.<TopicPartition>of()),
                new TreeSet<>(open ? Set.of("g") : Set.<String>of()),
                state == EMPTY ? -1 : T0,
                T0,
                (byte) 0);
    }

    /** An idle record of producer id PID at epoch 4 whose last transaction started at {@code start}. */
    private static TransactionRecord idleRecordStartedAt(TransactionState state, long start) {
        return new TransactionRecord(
                ID,
                REVISION,
                PID,
                -1,
                -1,
                (short) 4,
                (short) -1,
                TIMEOUT_MS,
                state,
                new TreeSet<>(),
                new TreeSet<>(),
                start,
                T0,
                (byte) 0);
    }

    private static TransactionRecord record(TransactionState state, int epoch, int lastEpoch) {
        return record(state, PID, -1, epoch, lastEpoch);
    }

    /** What a transition decides: state, producer id, epoch, last epoch, partitions, groups, start. */
    private static List<Object> shape(TransactionRecord r) {
        return List.of(
                r.state(),
                r.producerId(),
                r.producerEpoch(),
                r.lastProducerEpoch(),
                r.partitions(),
                r.groups(),
                r.startTimestampMs());
    }

    /** The record {@code d} writes, checked to be the next revision made at {@code nowMs}. */
    private static TransactionRecord written(Decision d, long nowMs) {
        assertThat(d.write().revision()).isEqualTo(REVISION + 1);
        assertThat(d.write().updateTimestampMs()).isEqualTo(nowMs);
        return d.write();
    }

    private static Decision init(Optional<TransactionRecord> current, int timeoutMs, long expectedPid, int epoch) {
        return TransactionTransitions.initProducerId(
                current, ID, timeoutMs, expectedPid, (short) epoch, NOW, CONFIG, () -> NEW_PID);
    }

    private static Decision init(Optional<TransactionRecord> current, long expectedPid, int expectedEpoch) {
        return init(current, TIMEOUT_MS, expectedPid, expectedEpoch);
    }

    private static Decision init(TransactionRecord current) {
        return init(Optional.of(current), -1, -1);
    }

    private static Decision add(TransactionRecord r, TopicPartition... partitions) {
        return TransactionTransitions.addPartitions(
                Optional.of(r), ID, PID, r.producerEpoch(), List.of(partitions), NOW, CONFIG);
    }

    private static Decision addGroup(TransactionRecord r, String group) {
        return TransactionTransitions.addOffsets(Optional.of(r), ID, PID, r.producerEpoch(), group, NOW, CONFIG);
    }

    private static Decision end(TransactionRecord r, boolean commit) {
        return TransactionTransitions.endTxn(Optional.of(r), ID, PID, r.producerEpoch(), commit, NOW);
    }

    /** AddPartitionsToTxn, AddOffsetsToTxn, EndTxn(commit) and EndTxn(abort) from producer id {@code pid}. */
    private static List<ThrowingCallable> producerRequests(Optional<TransactionRecord> r, long pid, int epoch) {
        short e = (short) epoch;
        return List.of(
                () -> TransactionTransitions.addPartitions(r, ID, pid, e, List.of(C), NOW, CONFIG),
                () -> TransactionTransitions.addOffsets(r, ID, pid, e, "h", NOW, CONFIG),
                () -> TransactionTransitions.endTxn(r, ID, pid, e, true, NOW),
                () -> TransactionTransitions.endTxn(r, ID, pid, e, false, NOW));
    }

    private static void assertError(Errors error, ThrowingCallable call) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        TransactionException.class, e -> assertThat(e.error()).isEqualTo(error));
    }

    private static void assertUnchanged(Decision d, TransactionRecord current) {
        assertThat(d).isEqualTo(new Decision(null, Errors.NONE, current.producerId(), current.producerEpoch()));
    }

    // InitProducerId

    @Test
    void aNewIdGetsANewProducerIdAtEpochZeroRevisionZero() {
        Decision d = init(Optional.empty(), -1, -1);

        assertThat(d.error()).isEqualTo(Errors.NONE);
        assertThat(List.of(d.producerId(), d.producerEpoch())).containsExactly(NEW_PID, (short) 0);
        assertThat(shape(d.write())).containsExactly(EMPTY, NEW_PID, (short) 0, (short) -1, Set.of(), Set.of(), -1L);
        assertThat(d.write().revision()).isZero();
        assertThat(d.write().previousProducerId()).isEqualTo(-1);
        assertThat(d.write().timeoutMs()).isEqualTo(TIMEOUT_MS);
    }

    @Test
    void anExpectedProducerIdForAnUnknownIdGetsANewProducerIdAtEpochZero() {
        // A producer recovering (KIP-360) after its id expired: not fenced, answered as a new id.
        Decision d = init(Optional.empty(), PID, 3);

        assertThat(d).isEqualTo(init(Optional.empty(), -1, -1));
        assertThat(List.of(d.error(), d.producerId(), d.producerEpoch()))
                .containsExactly(Errors.NONE, NEW_PID, (short) 0);
        assertThat(shape(d.write())).containsExactly(EMPTY, NEW_PID, (short) 0, (short) -1, Set.of(), Set.of(), -1L);
    }

    @ParameterizedTest
    @EnumSource(names = {"EMPTY", "COMPLETE_COMMIT", "COMPLETE_ABORT"})
    void aPlainInitOnAnIdleIdBumpsTheEpochAndForgetsTheLastEpoch(TransactionState idle) {
        Decision d = init(Optional.of(record(idle, 7, 3)), 30_000, -1, -1);

        assertThat(List.of(d.error(), d.producerId(), d.producerEpoch())).containsExactly(Errors.NONE, PID, (short) 8);
        TransactionRecord w = written(d, NOW);
        assertThat(shape(w)).containsExactly(EMPTY, PID, (short) 8, (short) -1, Set.of(), Set.of(), -1L);
        assertThat(w.timeoutMs()).isEqualTo(30_000);
    }

    @ParameterizedTest
    @EnumSource(names = {"EMPTY", "COMPLETE_COMMIT", "COMPLETE_ABORT"})
    void anInitExpectingTheCurrentProducerIdAndEpochBumpsItWithTheOldEpochAsLastEpoch(TransactionState idle) {
        Decision d = init(Optional.of(record(idle, 7, 3)), 30_000, PID, 7);

        assertThat(List.of(d.error(), d.producerId(), d.producerEpoch())).containsExactly(Errors.NONE, PID, (short) 8);
        TransactionRecord w = written(d, NOW);
        assertThat(shape(w)).containsExactly(EMPTY, PID, (short) 8, (short) 7, Set.of(), Set.of(), -1L);
        assertThat(w.timeoutMs()).isEqualTo(30_000);
    }

    @ParameterizedTest
    @EnumSource(names = {"EMPTY", "COMPLETE_COMMIT", "COMPLETE_ABORT"})
    void aRetriedInitWhoseBumpWasStoredGetsTheSameEpochAgainAsAWriteToEmpty(TransactionState idle) {
        // The expected epoch is the last one: the bump from 7 to 8 was stored, its answer lost.
        Decision d = init(Optional.of(record(idle, 8, 7)), 30_000, PID, 7);

        assertThat(List.of(d.error(), d.producerId(), d.producerEpoch())).containsExactly(Errors.NONE, PID, (short) 8);
        TransactionRecord w = written(d, NOW);
        assertThat(shape(w)).containsExactly(EMPTY, PID, (short) 8, (short) 7, Set.of(), Set.of(), -1L);
        assertThat(w.timeoutMs()).isEqualTo(30_000);
    }

    @Test
    void aPlainInitFencesTheRetryOfAnOlderInstance() {
        TransactionRecord bumped =
                init(Optional.of(record(EMPTY, 7, -1)), PID, 7).write(); // 8, last 7
        assertThat(init(Optional.of(bumped), PID, 7).producerEpoch()).isEqualTo((short) 8); // still a retry

        // A new instance of the producer: the last epoch is forgotten, the first instance is fenced.
        TransactionRecord newInstance = init(bumped).write();

        assertThat(List.of(newInstance.producerEpoch(), newInstance.lastProducerEpoch()))
                .containsExactly((short) 9, (short) -1);
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(newInstance), PID, 7));
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(newInstance), PID, 8));
    }

    /** Epochs {@code Short.MAX_VALUE - 1} and {@code Short.MAX_VALUE} (reached by an epoch fence) are exhausted. */
    @ParameterizedTest
    @CsvSource({"EMPTY, 32766", "COMPLETE_COMMIT, 32766", "COMPLETE_ABORT, 32766", "COMPLETE_ABORT, 32767"})
    void anExhaustedEpochMovesToANewProducerIdAtEpochZero(TransactionState idle, short epoch) {
        TransactionRecord r = record(idle, epoch, -1);

        Decision plain = init(Optional.of(r), 30_000, -1, -1);

        assertThat(List.of(plain.error(), plain.producerId(), plain.producerEpoch()))
                .containsExactly(Errors.NONE, NEW_PID, (short) 0);
        TransactionRecord w = written(plain, NOW);
        assertThat(shape(w)).containsExactly(EMPTY, NEW_PID, (short) 0, (short) -1, Set.of(), Set.of(), -1L);
        assertThat(List.of(w.previousProducerId(), (long) w.timeoutMs())).containsExactly(PID, 30_000L);
        // Expecting the current producer id and epoch (KIP-360): the same, the old epoch kept as the last one.
        TransactionRecord recovering = written(init(Optional.of(r), 30_000, PID, epoch), NOW);
        assertThat(shape(recovering)).containsExactly(EMPTY, NEW_PID, (short) 0, epoch, Set.of(), Set.of(), -1L);
        assertThat(recovering.previousProducerId()).isEqualTo(PID);
    }

    @Test
    void aRetriedInitWhoseNewProducerIdWasStoredGetsItAgainAsAWriteToEmpty() {
        // The producer expecting PID at the exhausted epoch was moved to NEW_PID; its answer was lost.
        TransactionRecord rotated = written(init(Optional.of(record(EMPTY, LAST_EPOCH, -1)), PID, LAST_EPOCH), NOW);
        assertThat(List.of(rotated.producerId(), rotated.previousProducerId())).containsExactly(NEW_PID, PID);

        Decision retry = init(Optional.of(rotated), 30_000, PID, LAST_EPOCH);

        assertThat(List.of(retry.error(), retry.producerId(), retry.producerEpoch()))
                .containsExactly(Errors.NONE, NEW_PID, (short) 0);
        TransactionRecord w = retry.write();
        assertThat(shape(w)).containsExactly(EMPTY, NEW_PID, (short) 0, LAST_EPOCH, Set.of(), Set.of(), -1L);
        assertThat(List.of(w.previousProducerId(), (long) w.timeoutMs(), w.revision()))
                .containsExactly(PID, 30_000L, REVISION + 2);
    }

    @Test
    void theOldProducerIdIsFencedOnceTheRecordIsNoLongerTheOneTheMoveWrote() {
        // A plain InitProducerId moved PID to NEW_PID: no last epoch is kept, so the old instance at
        // the exhausted epoch is a zombie, not a retry.
        TransactionRecord plainMove = written(init(Optional.of(record(EMPTY, LAST_EPOCH, -1)), -1, -1), NOW);
        assertThat(plainMove.previousProducerId()).isEqualTo(PID);
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(plainMove), PID, LAST_EPOCH));
        // A recovering producer's move, then the new producer id moved on (its epoch bumped): fenced.
        TransactionRecord moved = written(init(Optional.of(record(EMPTY, LAST_EPOCH, -1)), PID, LAST_EPOCH), NOW);
        TransactionRecord bumped = init(Optional.of(moved), -1, -1).write();
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(bumped), PID, LAST_EPOCH));
        // ... or with a transaction open: fenced too, never aborting the new producer's transaction.
        TransactionRecord open = new TransactionRecord(
                moved.transactionalId(),
                moved.revision() + 1,
                moved.producerId(),
                moved.previousProducerId(),
                -1,
                moved.producerEpoch(),
                moved.lastProducerEpoch(),
                moved.timeoutMs(),
                ONGOING,
                new java.util.TreeSet<>(Set.of(new io.tributary.coordinator.metadata.TopicPartition("t", 0))),
                new java.util.TreeSet<>(),
                NOW,
                NOW,
                (byte) 0);
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(open), PID, LAST_EPOCH));
        // An expected epoch other than the kept one: fenced.
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(moved), PID, Short.MAX_VALUE));
    }

    @Test
    void aTimeoutOfZeroOrAboveTheMaximumIsInvalidTransactionTimeout() {
        int max = CONFIG.maxTimeoutMs();
        for (int timeout : new int[] {0, -1, max + 1}) {
            // Checked before the state: even markers being written do not hide it.
            Optional<TransactionRecord> r = Optional.of(record(PREPARE_COMMIT, 1, -1));
            assertError(Errors.INVALID_TRANSACTION_TIMEOUT, () -> init(r, timeout, -1, -1));
        }
        assertThat(init(Optional.empty(), max, -1, -1).write().timeoutMs()).isEqualTo(max);
    }

    @ParameterizedTest
    @EnumSource(names = {"PREPARE_COMMIT", "PREPARE_ABORT"})
    void initWhileMarkersAreWrittenIsConcurrentTransactions(TransactionState preparing) {
        assertError(Errors.CONCURRENT_TRANSACTIONS, () -> init(record(preparing, 4, -1)));
        assertError(Errors.CONCURRENT_TRANSACTIONS, () -> init(Optional.of(record(preparing, 4, -1)), PID, 4));
    }

    @Test
    void initOnAnOngoingTransactionAbortsItWithTheEpochBumpedAndAnswersConcurrentTransactions() {
        TransactionRecord ongoing = record(ONGOING, 4, 2);

        Decision d = init(Optional.of(ongoing), 30_000, -1, -1);

        assertThat(d.error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        TransactionRecord w = written(d, NOW);
        assertThat(shape(w)).containsExactly(PREPARE_ABORT, PID, (short) 5, (short) -1, Set.of(A, B), Set.of("g"), T0);
        assertThat(w.timeoutMs()).isEqualTo(TIMEOUT_MS); // the transaction's own, until the producer's retry
        // The same with the current producer id expected (KIP-360), whatever the epoch: only the id is checked.
        for (int epoch : new int[] {4, 2, 3, 5, 9}) {
            assertThat(init(Optional.of(ongoing), 30_000, PID, epoch)).isEqualTo(d);
        }
    }

    @Test
    void anExpectedProducerIdOrEpochThatIsNeitherCurrentNorARetryIsProducerFenced() {
        TransactionRecord r = record(EMPTY, 8, 7);

        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(r), PID, 6));
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(r), PID, 9));
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(record(COMPLETE_ABORT, 8, -1)), PID, 7));
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(r), 999, 8));
        // Another producer id is fenced whatever the state.
        for (TransactionState state : List.of(ONGOING, PREPARE_COMMIT, PREPARE_ABORT, COMPLETE_COMMIT)) {
            assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(record(state, 8, 7)), 999, 8));
        }
        // The previous producer id passes only at an exhausted epoch (a retry of the move to a new one).
        TransactionRecord rotated = record(EMPTY, NEW_PID, PID, 0, LAST_EPOCH);
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(rotated), PID, LAST_EPOCH - 1));
        assertError(Errors.PRODUCER_FENCED, () -> init(Optional.of(rotated), 999, LAST_EPOCH));
    }

    // The producer checks of AddPartitionsToTxn, AddOffsetsToTxn and EndTxn

    @Test
    void anUnknownIdOrAnotherProducerIdIsInvalidMappingAndAnotherEpochProducerFenced() {
        Optional<TransactionRecord> r = Optional.of(record(ONGOING, 4, -1));
        Errors mapping = Errors.INVALID_PRODUCER_ID_MAPPING;
        producerRequests(Optional.empty(), PID, 4).forEach(c -> assertError(mapping, c));
        producerRequests(r, 999, 4).forEach(c -> assertError(mapping, c));
        producerRequests(r, PID, 3).forEach(c -> assertError(Errors.PRODUCER_FENCED, c));
        producerRequests(r, PID, 5).forEach(c -> assertError(Errors.PRODUCER_FENCED, c));
    }

    // AddPartitionsToTxn and AddOffsetsToTxn

    @ParameterizedTest
    @EnumSource(names = {"PREPARE_COMMIT", "PREPARE_ABORT"})
    void addingWhileMarkersAreWrittenIsConcurrentTransactions(TransactionState preparing) {
        TransactionRecord r = record(preparing, 4, -1);
        assertError(Errors.CONCURRENT_TRANSACTIONS, () -> add(r, A));
        assertError(Errors.CONCURRENT_TRANSACTIONS, () -> addGroup(r, "g"));
    }

    @ParameterizedTest
    @EnumSource(names = {"EMPTY", "COMPLETE_COMMIT", "COMPLETE_ABORT"})
    void addingToAnIdleIdOpensATransactionStartingNow(TransactionState idle) {
        TransactionRecord r = record(idle, 4, 3);

        assertThat(shape(written(add(r, B, A), NOW)))
                .containsExactly(ONGOING, PID, (short) 4, (short) 3, Set.of(A, B), Set.of(), NOW);
        assertThat(shape(written(addGroup(r, "g"), NOW)))
                .containsExactly(ONGOING, PID, (short) 4, (short) 3, Set.of(), Set.of("g"), NOW);
    }

    @Test
    void addingWhatTheOngoingTransactionHoldsIsNoWrite() {
        TransactionRecord r = record(ONGOING, 4, -1);

        assertUnchanged(add(r, A), r);
        assertUnchanged(add(r, B, A), r);
        assertUnchanged(addGroup(r, "g"), r);
    }

    @Test
    void addingToAnOngoingTransactionKeepsWhatItHoldsAndItsStart() {
        TransactionRecord r = record(ONGOING, 4, -1);

        assertThat(shape(written(add(r, A, C), NOW)))
                .containsExactly(ONGOING, PID, (short) 4, (short) -1, Set.of(A, B, C), Set.of("g"), T0);
        assertThat(shape(written(addGroup(r, "h"), NOW)))
                .containsExactly(ONGOING, PID, (short) 4, (short) -1, Set.of(A, B), Set.of("g", "h"), T0);
    }

    @Test
    void morePartitionsOrGroupsThanTheMaximumIsPolicyViolation() {
        TransactionRecord ongoing = record(ONGOING, 4, -1); // A, B and g; at most 3 partitions and 2 groups
        TransactionRecord twoGroups = addGroup(ongoing, "h").write();

        assertThat(add(ongoing, C).write().partitions()).hasSize(CONFIG.maxPartitionsPerTransaction());
        assertError(Errors.POLICY_VIOLATION, () -> add(ongoing, C, D));
        assertError(Errors.POLICY_VIOLATION, () -> add(record(EMPTY, 4, -1), A, B, C, D));
        assertError(Errors.POLICY_VIOLATION, () -> addGroup(twoGroups, "i"));
    }

    // Verification (AddPartitionsToTxn with verifyOnly)

    @ParameterizedTest
    @EnumSource(names = {"EMPTY", "ONGOING", "COMPLETE_COMMIT", "COMPLETE_ABORT"})
    void verifyAnswersNoneForThePartitionsOfTheOngoingTransactionAndTransactionAbortableForOthers(
            TransactionState state) {
        Optional<TransactionRecord> r = Optional.of(record(state, 4, -1)); // A and B when Ongoing
        Errors a = state == ONGOING ? Errors.NONE : Errors.TRANSACTION_ABORTABLE;

        assertThat(TransactionTransitions.verify(r, ID, PID, (short) 4, List.of(A, C)))
                .isEqualTo(Map.of(A, a, C, Errors.TRANSACTION_ABORTABLE));
    }

    @ParameterizedTest
    @EnumSource(names = {"PREPARE_COMMIT", "PREPARE_ABORT"})
    void verifyWhileMarkersAreWrittenIsConcurrentTransactionsForEveryPartition(TransactionState preparing) {
        Optional<TransactionRecord> r = Optional.of(record(preparing, 4, -1)); // A and B
        Errors concurrent = Errors.CONCURRENT_TRANSACTIONS;

        assertThat(TransactionTransitions.verify(r, ID, PID, (short) 4, List.of(A, C)))
                .isEqualTo(Map.of(A, concurrent, C, concurrent));
        // The producer is checked first.
        assertThat(TransactionTransitions.verify(r, ID, PID, (short) 3, List.of(A)))
                .isEqualTo(Map.of(A, Errors.PRODUCER_FENCED));
    }

    @Test
    void verifyAnswersTheProducerErrorForEveryPartition() {
        Optional<TransactionRecord> r = Optional.of(record(ONGOING, 4, -1));
        List<TopicPartition> both = List.of(A, C);
        Errors mapping = Errors.INVALID_PRODUCER_ID_MAPPING;

        assertThat(TransactionTransitions.verify(r, ID, PID, (short) 3, both))
                .isEqualTo(Map.of(A, Errors.PRODUCER_FENCED, C, Errors.PRODUCER_FENCED));
        assertThat(TransactionTransitions.verify(r, ID, 999, (short) 4, both))
                .isEqualTo(Map.of(A, mapping, C, mapping));
        assertThat(TransactionTransitions.verify(Optional.empty(), ID, PID, (short) 4, both))
                .isEqualTo(Map.of(A, mapping, C, mapping));
    }

    // EndTxn

    @Test
    void endingAnOngoingTransactionPreparesTheDecision() {
        TransactionRecord r = record(ONGOING, 4, 3);

        assertThat(shape(written(end(r, true), NOW)))
                .containsExactly(PREPARE_COMMIT, PID, (short) 4, (short) 3, Set.of(A, B), Set.of("g"), T0);
        assertThat(shape(written(end(r, false), NOW)))
                .containsExactly(PREPARE_ABORT, PID, (short) 4, (short) 3, Set.of(A, B), Set.of("g"), T0);
    }

    @Test
    void aRetriedEndTxnOfACompletedTransactionIsNoWrite() {
        TransactionRecord committed = record(COMPLETE_COMMIT, 4, -1);
        TransactionRecord aborted = record(COMPLETE_ABORT, 4, -1);

        assertUnchanged(end(committed, true), committed);
        assertUnchanged(end(aborted, false), aborted);
    }

    /** The same decision while its markers are written is retried later; the other one, or none open, is invalid. */
    @ParameterizedTest
    @CsvSource({
        "PREPARE_COMMIT,  true,  CONCURRENT_TRANSACTIONS",
        "PREPARE_ABORT,   false, CONCURRENT_TRANSACTIONS",
        "PREPARE_COMMIT,  false, INVALID_TXN_STATE",
        "PREPARE_ABORT,   true,  INVALID_TXN_STATE",
        "COMPLETE_COMMIT, false, INVALID_TXN_STATE",
        "COMPLETE_ABORT,  true,  INVALID_TXN_STATE",
        "EMPTY,           true,  INVALID_TXN_STATE",
        "EMPTY,           false, INVALID_TXN_STATE"
    })
    void endTxnThatCannotBeTakenIsRefused(TransactionState state, boolean commit, Errors error) {
        assertError(error, () -> end(record(state, 4, -1), commit));
    }

    // The coordinator's own steps

    @Test
    void anOngoingTransactionPastItsTimeoutIsAbortedWithTheEpochBumpedAndTheLastEpochForgotten() {
        TransactionRecord r = record(ONGOING, 4, 2);
        long late = T0 + TIMEOUT_MS + 1;

        assertThat(TransactionTransitions.abortIfTimedOut(r, T0 + TIMEOUT_MS)).isEmpty();
        TransactionRecord w = TransactionTransitions.abortIfTimedOut(r, late).orElseThrow();
        assertThat(shape(w)).containsExactly(PREPARE_ABORT, PID, (short) 5, (short) -1, Set.of(A, B), Set.of("g"), T0);
        assertThat(List.of(w.revision(), w.updateTimestampMs())).containsExactly(REVISION + 1, late);
    }

    @Test
    void theEpochFenceAtShortMaxMinusOneBumpsTheEpochToShortMax() {
        TransactionRecord r = record(ONGOING, LAST_EPOCH, LAST_EPOCH - 1);

        TransactionRecord w =
                TransactionTransitions.abortIfTimedOut(r, T0 + TIMEOUT_MS + 1).orElseThrow();

        assertThat(shape(w))
                .containsExactly(PREPARE_ABORT, PID, Short.MAX_VALUE, (short) -1, Set.of(A, B), Set.of("g"), T0);
        // InitProducerId fences an Ongoing transaction the same way.
        assertThat(shape(init(r).write())).isEqualTo(shape(w));
    }

    /**
     * Kafka's prepareFenceProducerEpoch throws IllegalStateException at {@code Short.MAX_VALUE} instead;
     * no producer is handed that epoch (an exhausted one moves to a new producer id), so neither meets it.
     */
    @Test
    void theEpochFenceAtShortMaxAbortsWithoutABump() {
        TransactionRecord r = record(ONGOING, Short.MAX_VALUE, LAST_EPOCH);

        TransactionRecord w =
                TransactionTransitions.abortIfTimedOut(r, T0 + TIMEOUT_MS + 1).orElseThrow();

        assertThat(shape(w))
                .containsExactly(PREPARE_ABORT, PID, Short.MAX_VALUE, (short) -1, Set.of(A, B), Set.of("g"), T0);
        assertThat(shape(init(r).write())).isEqualTo(shape(w));
    }

    @ParameterizedTest
    @EnumSource(names = {"EMPTY", "PREPARE_COMMIT", "PREPARE_ABORT", "COMPLETE_COMMIT", "COMPLETE_ABORT"})
    void onlyAnOngoingTransactionTimesOut(TransactionState state) {
        assertThat(TransactionTransitions.abortIfTimedOut(record(state, 4, -1), T0 + 10 * TIMEOUT_MS))
                .isEmpty();
    }

    @Test
    void completingMovesPrepareToCompleteWithNothingOpenKeepingTheStart() {
        TransactionRecord committed = TransactionTransitions.complete(record(PREPARE_COMMIT, 4, 3), NOW);
        TransactionRecord aborted = TransactionTransitions.complete(record(PREPARE_ABORT, 4, 3), NOW);

        assertThat(shape(committed))
                .containsExactly(COMPLETE_COMMIT, PID, (short) 4, (short) 3, Set.of(), Set.of(), T0);
        assertThat(shape(aborted)).containsExactly(COMPLETE_ABORT, PID, (short) 4, (short) 3, Set.of(), Set.of(), T0);
        assertThat(List.of(committed.revision(), committed.updateTimestampMs())).containsExactly(REVISION + 1, NOW);
    }

    @Test
    void aCompletedTransactionKeepsItsStartUntilTheNextOneButAnEmptyRecordHasNone() {
        for (TransactionState complete : List.of(COMPLETE_COMMIT, COMPLETE_ABORT)) {
            assertThat(idleRecordStartedAt(complete, T0).startTimestampMs()).isEqualTo(T0);
        }
        assertThatThrownBy(() -> idleRecordStartedAt(EMPTY, T0)).isInstanceOf(IllegalArgumentException.class);
        TransactionRecord committed = TransactionTransitions.complete(record(PREPARE_COMMIT, 4, -1), NOW);

        // InitProducerId moves to Empty with no start; the next transaction starts when it is opened.
        assertThat(init(committed).write().startTimestampMs()).isEqualTo(-1);
        assertThat(add(committed, C).write().startTimestampMs()).isEqualTo(NOW);
    }

    @ParameterizedTest
    @EnumSource(names = {"EMPTY", "ONGOING", "COMPLETE_COMMIT", "COMPLETE_ABORT"})
    void completingARecordThatIsNotBeingEndedThrows(TransactionState state) {
        assertThatThrownBy(() -> TransactionTransitions.complete(record(state, 4, -1), NOW))
                .isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @EnumSource(names = {"EMPTY", "ONGOING", "PREPARE_COMMIT", "PREPARE_ABORT", "COMPLETE_COMMIT", "COMPLETE_ABORT"})
    void onlyAnIdleIdExpiresOnceUnchangedForTheExpirationOrLonger(TransactionState state) {
        long expiration = CONFIG.idExpiration().toMillis();
        TransactionRecord r = record(state, 4, -1);

        assertThat(TransactionTransitions.expired(r, T0 + expiration - 1, CONFIG))
                .isFalse();
        assertThat(TransactionTransitions.expired(r, T0 + expiration, CONFIG)).isEqualTo(state.idle());
        assertThat(TransactionTransitions.expired(r, T0 + 10 * expiration, CONFIG))
                .isEqualTo(state.idle());
    }
}
