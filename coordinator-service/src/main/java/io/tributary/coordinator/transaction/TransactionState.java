package io.tributary.coordinator.transaction;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a transactional id's current transaction is, with Kafka's state codes (the {@code
 * TransactionStatus} of its transaction log) and names (DescribeTransactions and ListTransactions
 * answer them as they are).
 *
 * <pre>
 *                     AddPartitionsToTxn / AddOffsetsToTxn
 *   Empty ----------------------------------------------&gt; Ongoing --EndTxn(commit)--&gt; PrepareCommit
 *     ^  ^                                                |   |                           | markers
 *     |  |                               EndTxn(abort),   |   |                           v
 *     |  |                    timeout, InitProducerId     |   +----------------------&gt; CompleteCommit
 *     |  +-- InitProducerId ---- CompleteAbort &lt;-- markers -- PrepareAbort &lt;--+
 * </pre>
 *
 * <p>A stored transactional id is never {@link #DEAD} or {@link #PREPARE_EPOCH_FENCE}: an expired
 * id is deleted from the replicated state (where Kafka writes a Dead tombstone), and fencing an
 * open transaction goes from {@link #ONGOING} to {@link #PREPARE_ABORT} with the bumped epoch in one
 * replicated write (where Kafka has an in-memory PrepareEpochFence step first). Both codes are kept
 * so that the codes of the others stay Kafka's.
 */
public enum TransactionState {
    /** No transaction is open; the producer may start one. */
    EMPTY(0, "Empty"),
    /** A transaction is open: partitions or groups were added to it. */
    ONGOING(1, "Ongoing"),
    /** The producer asked to commit; commit markers are being written. */
    PREPARE_COMMIT(2, "PrepareCommit"),
    /** The transaction is being aborted (by the producer, a timeout or a fencing); abort markers are being written. */
    PREPARE_ABORT(3, "PrepareAbort"),
    /** The last transaction committed; every marker is written. */
    COMPLETE_COMMIT(4, "CompleteCommit"),
    /** The last transaction aborted; every marker is written. */
    COMPLETE_ABORT(5, "CompleteAbort"),
    /** Kafka's state of an expired id; never stored here (see the class comment). */
    DEAD(6, "Dead"),
    /** Kafka's in-memory fencing step; never stored here (see the class comment). */
    PREPARE_EPOCH_FENCE(7, "PrepareEpochFence");

    private final int code;
    private final String kafkaName;

    TransactionState(int code, String kafkaName) {
        this.code = code;
        this.kafkaName = kafkaName;
    }

    /** Kafka's code of the state (the byte the replicated record stores). */
    public int code() {
        return code;
    }

    /** Kafka's name of the state, as DescribeTransactions and ListTransactions answer it. */
    public String kafkaName() {
        return kafkaName;
    }

    /** The state with Kafka's code {@code code}, or {@code null} when no state has it. */
    public static TransactionState ofCode(int code) {
        for (TransactionState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }

    /** The state with Kafka's name {@code name} (ListTransactions' state filters), or {@code null}. */
    public static TransactionState ofKafkaName(String name) {
        for (TransactionState s : values()) {
            if (s.kafkaName.equals(name)) {
                return s;
            }
        }
        return null;
    }

    /** Whether a stored record may be in this state ({@link #DEAD} and {@link #PREPARE_EPOCH_FENCE} may not). */
    public boolean storable() {
        return this != DEAD && this != PREPARE_EPOCH_FENCE;
    }

    /** Whether markers are being written: the outcome is decided, the transaction not complete. */
    public boolean preparing() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    /** Whether no transaction is open or being ended: the producer may start one, the id may expire. */
    public boolean idle() {
        return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }

    /** The states a stored record may move to from this one (itself included where a write keeps it). */
    public Set<TransactionState> next() {
        return switch (this) {
            case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> EnumSet.of(EMPTY, ONGOING);
            case ONGOING -> EnumSet.of(ONGOING, PREPARE_COMMIT, PREPARE_ABORT);
            case PREPARE_COMMIT -> EnumSet.of(COMPLETE_COMMIT);
            case PREPARE_ABORT -> EnumSet.of(COMPLETE_ABORT);
            case DEAD, PREPARE_EPOCH_FENCE -> EnumSet.noneOf(TransactionState.class);
        };
    }
}
