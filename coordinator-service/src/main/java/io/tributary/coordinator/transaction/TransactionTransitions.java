package io.tributary.coordinator.transaction;

import io.tributary.coordinator.metadata.TopicPartition;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * The transaction coordinator's decisions, as pure functions from the stored record of a
 * transactional id and a request to the record to store and the answer: no clock (the time is an
 * argument), no I/O, no state. {@link TransactionCoordinator} stores what they return; the
 * simulation test drives them with every interleaving of requests, failovers and lost messages.
 *
 * <p>The rules are Kafka's transaction coordinator's (its first transaction protocol; KIP-890's
 * epoch bump at every commit is not offered yet, so producers use the first protocol):
 *
 * <ul>
 *   <li>InitProducerId: a new id gets a new producer id at epoch 0; an idle id's epoch is bumped
 *       (a new producer id at epoch 0 once the epoch reaches {@code Short.MAX_VALUE - 1}), which
 *       fences every older instance of the producer; an open transaction is aborted with the
 *       bumped epoch and the caller told CONCURRENT_TRANSACTIONS (it retries once the abort is
 *       complete); markers being written are CONCURRENT_TRANSACTIONS too. A producer recovering
 *       from an abortable error (KIP-360) names its producer id and epoch: its epoch is bumped, a
 *       retry of a bump already stored (its epoch is the last epoch) gets the same epoch again, any
 *       other epoch or producer id is PRODUCER_FENCED. A new instance (no producer id named) resets
 *       the last epoch, so no older instance can pass for a retry.
 *   <li>AddPartitionsToTxn, AddOffsetsToTxn, EndTxn: only the current producer id and epoch;
 *       another producer id is INVALID_PRODUCER_ID_MAPPING, an older epoch PRODUCER_FENCED.
 *   <li>EndTxn: an open transaction moves to PrepareCommit or PrepareAbort (the decision, durable
 *       before the answer); a retried EndTxn of the decision already taken is answered as the first
 *       one (NONE when complete, CONCURRENT_TRANSACTIONS while markers are written); the other
 *       decision, or nothing open, is INVALID_TXN_STATE.
 *   <li>A transaction open longer than its timeout is aborted with the epoch bumped, as InitProducerId
 *       fences one.
 * </ul>
 *
 * <p>Thread-safety: stateless.
 */
public final class TransactionTransitions {

    /** Kafka's epoch past which a bump moves to a new producer id ({@code Short.MAX_VALUE - 1}). */
    static final short LAST_EPOCH = Short.MAX_VALUE - 1;

    private TransactionTransitions() {}

    /**
     * A decision: the record to store ({@code null} when nothing changes) and the producer id and
     * epoch to answer with (InitProducerId) or {@link Errors#NONE}.
     *
     * @param write the record to store, or {@code null}
     * @param error the error to answer with once {@code write} is stored ({@link Errors#NONE} or, for
     *     an InitProducerId that aborts an open transaction, CONCURRENT_TRANSACTIONS)
     * @param producerId the producer id to answer with (InitProducerId)
     * @param producerEpoch the producer epoch to answer with (InitProducerId)
     */
    public record Decision(TransactionRecord write, Errors error, long producerId, short producerEpoch) {

        static Decision unchanged(TransactionRecord current) {
            return new Decision(null, Errors.NONE, current.producerId(), current.producerEpoch());
        }

        static Decision store(TransactionRecord next) {
            return new Decision(next, Errors.NONE, next.producerId(), next.producerEpoch());
        }
    }

    /**
     * InitProducerId with a transactional id.
     *
     * @param current the id's stored record, if any
     * @param expectedProducerId the producer's current producer id when it recovers from an error
     *     (KIP-360), or -1
     * @param expectedEpoch the producer's current epoch with {@code expectedProducerId}, or -1
     * @param newProducerId hands out a producer id never handed out before (called only when one is needed)
     * @throws TransactionException INVALID_TRANSACTION_TIMEOUT, CONCURRENT_TRANSACTIONS, PRODUCER_FENCED
     */
    public static Decision initProducerId(
            Optional<TransactionRecord> current,
            String transactionalId,
            int timeoutMs,
            long expectedProducerId,
            short expectedEpoch,
            long nowMs,
            TransactionConfig config,
            LongSupplier newProducerId) {
        if (timeoutMs < 1 || timeoutMs > config.maxTimeoutMs()) {
            throw new TransactionException(
                    Errors.INVALID_TRANSACTION_TIMEOUT,
                    "transaction.timeout.ms must be 1.." + config.maxTimeoutMs() + ", got " + timeoutMs);
        }
        boolean recovering = expectedProducerId != TransactionRecord.NO_PRODUCER_ID;
        if (current.isEmpty()) {
            // A new id, or one that expired: a producer recovering from UNKNOWN_PRODUCER_ID with its
            // old producer id gets the new one too (Kafka's rule).
            return Decision.store(new TransactionRecord(
                    transactionalId,
                    0,
                    newProducerId.getAsLong(),
                    TransactionRecord.NO_PRODUCER_ID,
                    TransactionRecord.NO_PRODUCER_ID,
                    (short) 0,
                    TransactionRecord.NO_PRODUCER_EPOCH,
                    timeoutMs,
                    TransactionState.EMPTY,
                    Set0.P,
                    Set0.G,
                    -1,
                    nowMs,
                    (byte) 0));
        }
        TransactionRecord r = current.get();
        // A retry of a recovering producer's InitProducerId whose move to a new producer id was
        // stored: the record is still the one the move wrote (epoch 0 of the new id, Empty, the old
        // epoch kept as the last epoch).
        boolean rotatedRetry = recovering
                && expectedProducerId != r.producerId()
                && expectedProducerId == r.previousProducerId()
                && expectedEpoch >= LAST_EPOCH
                && expectedEpoch == r.lastProducerEpoch()
                && r.producerEpoch() == 0
                && r.state() == TransactionState.EMPTY;
        if (recovering && expectedProducerId != r.producerId() && !rotatedRetry) {
            // Neither this id's producer id nor a retry after its rotation to a new one.
            throw fenced(transactionalId, expectedProducerId, expectedEpoch, r);
        }
        if (r.state().preparing()) {
            throw new TransactionException(
                    Errors.CONCURRENT_TRANSACTIONS,
                    "transactional id '" + transactionalId + "' is ending its transaction: retry");
        }
        if (r.state() == TransactionState.ONGOING) {
            return new Decision(
                    abortWithBump(r, nowMs), Errors.CONCURRENT_TRANSACTIONS, r.producerId(), r.producerEpoch());
        }
        if (rotatedRetry) {
            // A retried InitProducerId whose rotation to a new producer id was stored: answer it again.
            return Decision.store(empty(
                    r,
                    r.producerId(),
                    r.previousProducerId(),
                    r.producerEpoch(),
                    r.lastProducerEpoch(),
                    timeoutMs,
                    nowMs));
        }
        if (r.producerEpoch() >= LAST_EPOCH && (!recovering || expectedEpoch == r.producerEpoch())) {
            // The epoch is exhausted: rotate to a new producer id at epoch 0.
            return Decision.store(empty(
                    r,
                    newProducerId.getAsLong(),
                    r.producerId(),
                    (short) 0,
                    recovering ? r.producerEpoch() : TransactionRecord.NO_PRODUCER_EPOCH,
                    timeoutMs,
                    nowMs));
        }
        short epoch;
        short lastEpoch;
        if (!recovering) {
            // A new instance of the producer: bump, and forget the last epoch so that no older
            // instance's InitProducerId can pass for a retry.
            epoch = (short) (r.producerEpoch() + 1);
            lastEpoch = TransactionRecord.NO_PRODUCER_EPOCH;
        } else if (expectedEpoch == r.producerEpoch()) {
            epoch = (short) (r.producerEpoch() + 1);
            lastEpoch = r.producerEpoch();
        } else if (expectedEpoch == r.lastProducerEpoch()) {
            // A retry of this producer's InitProducerId whose bump was stored: the same epoch again.
            epoch = r.producerEpoch();
            lastEpoch = r.lastProducerEpoch();
        } else {
            throw fenced(transactionalId, expectedProducerId, expectedEpoch, r);
        }
        return Decision.store(empty(r, r.producerId(), r.previousProducerId(), epoch, lastEpoch, timeoutMs, nowMs));
    }

    private static TransactionRecord empty(
            TransactionRecord r,
            long producerId,
            long previousProducerId,
            short epoch,
            short lastEpoch,
            int timeoutMs,
            long nowMs) {
        return r.next(
                producerId,
                previousProducerId,
                TransactionRecord.NO_PRODUCER_ID,
                epoch,
                lastEpoch,
                timeoutMs,
                TransactionState.EMPTY,
                Set0.P,
                Set0.G,
                -1,
                nowMs);
    }

    private static TransactionException fenced(
            String transactionalId, long expectedProducerId, short expectedEpoch, TransactionRecord r) {
        return new TransactionException(
                Errors.PRODUCER_FENCED,
                "producer id %d epoch %d of '%s' is fenced: the id holds producer id %d epoch %d"
                        .formatted(
                                expectedProducerId, expectedEpoch, transactionalId, r.producerId(), r.producerEpoch()));
    }

    /**
     * AddPartitionsToTxn from the producer: the partitions join the open transaction, or open one.
     *
     * @throws TransactionException INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED, CONCURRENT_TRANSACTIONS,
     *     POLICY_VIOLATION (more than {@link TransactionConfig#maxPartitionsPerTransaction})
     */
    public static Decision addPartitions(
            Optional<TransactionRecord> current,
            String transactionalId,
            long producerId,
            short producerEpoch,
            Collection<TopicPartition> partitions,
            long nowMs,
            TransactionConfig config) {
        TransactionRecord r = checkProducer(current, transactionalId, producerId, producerEpoch);
        checkNotEnding(r);
        if (partitions.isEmpty()
                || r.state() == TransactionState.ONGOING && r.partitions().containsAll(partitions)) {
            return Decision.unchanged(r);
        }
        SortedSet<TopicPartition> all = new TreeSet<>(r.state() == TransactionState.ONGOING ? r.partitions() : Set0.P);
        all.addAll(partitions);
        if (all.size() > config.maxPartitionsPerTransaction()) {
            throw new TransactionException(
                    Errors.POLICY_VIOLATION,
                    "a transaction holds at most " + config.maxPartitionsPerTransaction() + " partitions");
        }
        return Decision.store(open(r, all, r.state() == TransactionState.ONGOING ? r.groups() : Set0.G, nowMs));
    }

    /**
     * AddOffsetsToTxn: a consumer group's offsets join the open transaction, or open one.
     *
     * @throws TransactionException as {@link #addPartitions}, POLICY_VIOLATION past {@link
     *     TransactionConfig#maxGroupsPerTransaction}
     */
    public static Decision addOffsets(
            Optional<TransactionRecord> current,
            String transactionalId,
            long producerId,
            short producerEpoch,
            String groupId,
            long nowMs,
            TransactionConfig config) {
        TransactionRecord r = checkProducer(current, transactionalId, producerId, producerEpoch);
        checkNotEnding(r);
        if (r.state() == TransactionState.ONGOING && r.groups().contains(groupId)) {
            return Decision.unchanged(r);
        }
        SortedSet<String> groups = new TreeSet<>(r.state() == TransactionState.ONGOING ? r.groups() : Set0.G);
        groups.add(groupId);
        if (groups.size() > config.maxGroupsPerTransaction()) {
            throw new TransactionException(
                    Errors.POLICY_VIOLATION,
                    "a transaction commits offsets of at most " + config.maxGroupsPerTransaction() + " groups");
        }
        return Decision.store(open(r, r.state() == TransactionState.ONGOING ? r.partitions() : Set0.P, groups, nowMs));
    }

    /**
     * A broker's verification (AddPartitionsToTxn v4+ with {@code verifyOnly}, KIP-890 part 1): is each
     * partition in the open transaction of this producer id and epoch? A broker appends a
     * transactional batch only if so, so a late write cannot join a transaction that has ended.
     *
     * @return each partition's answer (Kafka's): NONE when it is in the open transaction,
     *     TRANSACTION_ABORTABLE when it is not (no transaction open, or the partition was never
     *     added), CONCURRENT_TRANSACTIONS while the transaction is being ended,
     *     INVALID_PRODUCER_ID_MAPPING or PRODUCER_FENCED for another producer
     */
    public static Map<TopicPartition, Errors> verify(
            Optional<TransactionRecord> current,
            String transactionalId,
            long producerId,
            short producerEpoch,
            Collection<TopicPartition> partitions) {
        Map<TopicPartition, Errors> answers = new TreeMap<>();
        Errors all = null;
        try {
            checkProducer(current, transactionalId, producerId, producerEpoch);
        } catch (TransactionException e) {
            all = e.error();
        }
        for (TopicPartition tp : partitions) {
            if (all != null) {
                answers.put(tp, all);
            } else {
                TransactionRecord r = current.orElseThrow();
                boolean in =
                        r.state() == TransactionState.ONGOING && r.partitions().contains(tp);
                answers.put(
                        tp,
                        r.state().preparing()
                                ? Errors.CONCURRENT_TRANSACTIONS
                                : in ? Errors.NONE : Errors.TRANSACTION_ABORTABLE);
            }
        }
        return answers;
    }

    /**
     * EndTxn: commit or abort the open transaction.
     *
     * @throws TransactionException INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED, CONCURRENT_TRANSACTIONS
     *     (the same decision's markers are being written), INVALID_TXN_STATE (nothing open, or the other
     *     decision was taken)
     */
    public static Decision endTxn(
            Optional<TransactionRecord> current,
            String transactionalId,
            long producerId,
            short producerEpoch,
            boolean commit,
            long nowMs) {
        TransactionRecord r = checkProducer(current, transactionalId, producerId, producerEpoch);
        String asked = commit ? "commit" : "abort";
        return switch (r.state()) {
            case ONGOING ->
                Decision.store(
                        r.moved(commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT, nowMs));
            case COMPLETE_COMMIT, COMPLETE_ABORT -> {
                if (commit == (r.state() == TransactionState.COMPLETE_COMMIT)) {
                    yield Decision.unchanged(r); // a retry of the EndTxn that ended it
                }
                throw invalidState(transactionalId, asked, r);
            }
            case PREPARE_COMMIT, PREPARE_ABORT -> {
                if (commit == (r.state() == TransactionState.PREPARE_COMMIT)) {
                    throw new TransactionException(
                            Errors.CONCURRENT_TRANSACTIONS,
                            "the " + asked + " of '" + transactionalId + "' is being written: retry");
                }
                throw invalidState(transactionalId, asked, r);
            }
            case EMPTY, DEAD, PREPARE_EPOCH_FENCE -> throw invalidState(transactionalId, asked, r);
        };
    }

    /**
     * The abort of a transaction open longer than its timeout, with the epoch bumped so the producer
     * is fenced, or empty when {@code r} is not such a transaction.
     */
    public static Optional<TransactionRecord> abortIfTimedOut(TransactionRecord r, long nowMs) {
        if (r.state() != TransactionState.ONGOING || nowMs - r.startTimestampMs() <= r.timeoutMs()) {
            return Optional.empty();
        }
        return Optional.of(abortWithBump(r, nowMs));
    }

    /**
     * The record once every marker of a transaction being ended is written: CompleteCommit or
     * CompleteAbort, with nothing open.
     *
     * @throws IllegalStateException if {@code r} is not being ended
     */
    public static TransactionRecord complete(TransactionRecord r, long nowMs) {
        if (!r.state().preparing()) {
            throw new IllegalStateException(r.transactionalId() + " is not ending a transaction: " + r.state());
        }
        return r.next(
                r.producerId(),
                r.previousProducerId(),
                r.nextProducerId(),
                r.producerEpoch(),
                r.lastProducerEpoch(),
                r.timeoutMs(),
                r.state() == TransactionState.PREPARE_COMMIT
                        ? TransactionState.COMPLETE_COMMIT
                        : TransactionState.COMPLETE_ABORT,
                Set0.P,
                Set0.G,
                r.startTimestampMs(),
                nowMs);
    }

    /** Whether an idle id has been unchanged for {@link TransactionConfig#idExpiration} or longer. */
    public static boolean expired(TransactionRecord r, long nowMs, TransactionConfig config) {
        return r.state().idle()
                && nowMs - r.updateTimestampMs() >= config.idExpiration().toMillis();
    }

    private static TransactionRecord abortWithBump(TransactionRecord r, long nowMs) {
        // Kafka's epoch fence: bumped unless at the largest epoch (the abort still ends the
        // transaction, and the producer's next InitProducerId moves to a new producer id).
        boolean bump = r.producerEpoch() < Short.MAX_VALUE;
        return r.next(
                r.producerId(),
                r.previousProducerId(),
                r.nextProducerId(),
                bump ? (short) (r.producerEpoch() + 1) : r.producerEpoch(),
                TransactionRecord.NO_PRODUCER_EPOCH,
                r.timeoutMs(),
                TransactionState.PREPARE_ABORT,
                r.partitions(),
                r.groups(),
                r.startTimestampMs(),
                nowMs);
    }

    private static TransactionRecord open(
            TransactionRecord r, SortedSet<TopicPartition> partitions, SortedSet<String> groups, long nowMs) {
        return r.next(
                r.producerId(),
                r.previousProducerId(),
                r.nextProducerId(),
                r.producerEpoch(),
                r.lastProducerEpoch(),
                r.timeoutMs(),
                TransactionState.ONGOING,
                partitions,
                groups,
                r.state() == TransactionState.ONGOING ? r.startTimestampMs() : nowMs,
                nowMs);
    }

    private static TransactionRecord checkProducer(
            Optional<TransactionRecord> current, String transactionalId, long producerId, short producerEpoch) {
        if (current.isEmpty() || current.get().producerId() != producerId) {
            throw new TransactionException(
                    Errors.INVALID_PRODUCER_ID_MAPPING,
                    "transactional id '" + transactionalId + "' does not hold producer id " + producerId);
        }
        TransactionRecord r = current.get();
        if (r.producerEpoch() != producerEpoch) {
            throw new TransactionException(
                    Errors.PRODUCER_FENCED,
                    "producer id %d epoch %d of '%s' is fenced by epoch %d"
                            .formatted(producerId, producerEpoch, transactionalId, r.producerEpoch()));
        }
        return r;
    }

    private static void checkNotEnding(TransactionRecord r) {
        if (r.state().preparing()) {
            throw new TransactionException(
                    Errors.CONCURRENT_TRANSACTIONS,
                    "the transaction of '" + r.transactionalId() + "' is being ended: retry");
        }
    }

    private static TransactionException invalidState(String transactionalId, String asked, TransactionRecord r) {
        return new TransactionException(
                Errors.INVALID_TXN_STATE,
                "cannot " + asked + " the transaction of '" + transactionalId + "': it is "
                        + r.state().kafkaName());
    }

    /** Empty sets of the record's element types. */
    private static final class Set0 {
        static final SortedSet<TopicPartition> P = java.util.Collections.emptySortedSet();
        static final SortedSet<String> G = java.util.Collections.emptySortedSet();
    }
}
