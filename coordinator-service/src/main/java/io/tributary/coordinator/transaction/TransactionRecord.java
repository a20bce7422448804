package io.tributary.coordinator.transaction;

import io.tributary.coordinator.metadata.TopicPartition;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What the cluster remembers of one transactional id: its producer id and epoch, and the
 * transaction it has open or last ended. Replicated through the coordinators' Raft log (a
 * StoreTransaction command holds a whole record, in the layout of {@code TransactionCodec}) so a new
 * coordinator leader finishes what the old one started. It is Kafka's transaction log value with a
 * revision added and the consumer groups of AddOffsetsToTxn kept by id (Kafka keeps their offsets
 * topic partitions; here the group coordinator is this same service).
 *
 * <p>The {@code revision} makes every write a compare-and-set: a record replaces the stored one only
 * when its revision is one more than the stored one's (0 for a new id), so a write computed by a
 * coordinator from a state that is no longer the latest (a leader that lost its leadership while its
 * write was retried) is refused when applied instead of overwriting a newer decision.
 *
 * @param transactionalId the producer's {@code transactional.id}, not empty
 * @param revision 0 for the first stored record of the id, one more for each later one
 * @param producerId the producer id the id holds now, 0 or more
 * @param previousProducerId the producer id held before the last change of producer id, or -1
 * @param nextProducerId the producer id a commit or abort in progress moves to when the epoch is
 *     exhausted, or -1
 * @param producerEpoch the current producer epoch, 0 to {@link Short#MAX_VALUE}
 * @param lastProducerEpoch the epoch before the last bump, or -1 (a retried InitProducerId is told
 *     apart from a zombie's by it)
 * @param timeoutMs the producer's {@code transaction.timeout.ms}, 1 or more
 * @param state where the transaction is ({@link TransactionState#storable()})
 * @param partitions the partitions of the transaction that is open or being ended (empty when idle)
 * @param groups the consumer groups whose offsets the transaction commits (AddOffsetsToTxn; empty when idle)
 * @param startTimestampMs when the open transaction, or the last one, started (its first
 *     AddPartitionsToTxn or AddOffsetsToTxn; DescribeTransactions answers it), or -1 when Empty
 * @param updateTimestampMs when the coordinator leader made this record
 * @param clientTransactionVersion the transaction protocol version the producer uses: 0 or 1 for
 *     Kafka's first protocol, 2 for KIP-890's (an epoch bump at every commit and abort)
 */
public record TransactionRecord(
        String transactionalId,
        long revision,
        long producerId,
        long previousProducerId,
        long nextProducerId,
        short producerEpoch,
        short lastProducerEpoch,
        int timeoutMs,
        TransactionState state,
        SortedSet<TopicPartition> partitions,
        SortedSet<String> groups,
        long startTimestampMs,
        long updateTimestampMs,
        byte clientTransactionVersion) {

    /** No producer id ({@link #previousProducerId}, {@link #nextProducerId}). */
    public static final long NO_PRODUCER_ID = -1;

    /** No producer epoch ({@link #lastProducerEpoch}). */
    public static final short NO_PRODUCER_EPOCH = -1;

    public TransactionRecord {
        Objects.requireNonNull(transactionalId, "transactionalId");
        Objects.requireNonNull(state, "state");
        if (transactionalId.isEmpty()) {
            throw new IllegalArgumentException("a transactional id must not be empty");
        }
        if (revision < 0 || producerId < 0 || previousProducerId < NO_PRODUCER_ID || nextProducerId < NO_PRODUCER_ID) {
            throw new IllegalArgumentException("negative revision or producer id in " + transactionalId);
        }
        if (producerEpoch < 0 || lastProducerEpoch < NO_PRODUCER_EPOCH || timeoutMs < 1) {
            throw new IllegalArgumentException("bad epoch or timeout in " + transactionalId);
        }
        if (!state.storable()) {
            throw new IllegalArgumentException("a stored transaction is never " + state.kafkaName());
        }
        partitions = Collections.unmodifiableSortedSet(new TreeSet<>(partitions));
        groups = Collections.unmodifiableSortedSet(new TreeSet<>(groups));
        boolean open = state == TransactionState.ONGOING || state.preparing();
        if (!open && (!partitions.isEmpty() || !groups.isEmpty())) {
            throw new IllegalArgumentException(
                    transactionalId + " is " + state.kafkaName() + " but holds partitions or groups");
        }
        if (startTimestampMs < -1 || state == TransactionState.EMPTY && startTimestampMs != -1) {
            throw new IllegalArgumentException(
                    transactionalId + " has start time " + startTimestampMs + " when " + state.kafkaName());
        }
        if (state == TransactionState.ONGOING && (partitions.isEmpty() && groups.isEmpty() || startTimestampMs < 0)) {
            throw new IllegalArgumentException(transactionalId + " is Ongoing with nothing in it or no start time");
        }
        if (clientTransactionVersion < 0) {
            throw new IllegalArgumentException("negative transaction version in " + transactionalId);
        }
    }

    /** Whether the producer uses KIP-890's protocol (an epoch bump at every commit and abort). */
    public boolean transactionV2() {
        return clientTransactionVersion >= 2;
    }

    /** This record with a new state and what goes with it, and the revision one higher. */
    TransactionRecord next(
            long producerId,
            long previousProducerId,
            long nextProducerId,
            short producerEpoch,
            short lastProducerEpoch,
            int timeoutMs,
            TransactionState state,
            SortedSet<TopicPartition> partitions,
            SortedSet<String> groups,
            long startTimestampMs,
            long nowMs) {
        return new TransactionRecord(
                transactionalId,
                revision + 1,
                producerId,
                previousProducerId,
                nextProducerId,
                producerEpoch,
                lastProducerEpoch,
                timeoutMs,
                state,
                partitions,
                groups,
                startTimestampMs,
                nowMs,
                clientTransactionVersion);
    }

    /** This record in {@code state}, with the same producer and transaction, the revision one higher. */
    TransactionRecord moved(TransactionState state, long nowMs) {
        return next(
                producerId,
                previousProducerId,
                nextProducerId,
                producerEpoch,
                lastProducerEpoch,
                timeoutMs,
                state,
                partitions,
                groups,
                startTimestampMs,
                nowMs);
    }
}
