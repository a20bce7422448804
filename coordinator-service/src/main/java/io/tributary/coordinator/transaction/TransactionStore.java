package io.tributary.coordinator.transaction;

import java.util.Collection;
import java.util.Objects;
import java.util.Optional;

/**
 * Where transactional ids' records are kept across coordinator failovers. The coordinator's
 * implementation writes through the metadata Raft log (a StoreTransaction or DeleteTransaction
 * command) and reads this voter's applied image, so a decision survives the loss of a minority of
 * coordinators and a new leader finishes it.
 *
 * <p>Every write is a compare-and-set on {@link TransactionRecord#revision()}: see {@link #store}.
 *
 * <p>Implementations are thread-safe.
 */
public interface TransactionStore {

    /** The stored record of a transactional id, if any (the latest this voter applied). */
    Optional<TransactionRecord> get(String transactionalId);

    /** Every stored record (the latest image this voter applied), in transactional id order. */
    Collection<TransactionRecord> all();

    /**
     * Stores a record, replacing the stored one, and returns once that is durable. The record's
     * revision must be 0 with nothing stored for its id, or one more than the stored record's;
     * storing a record equal to the stored one is no change (a resent write).
     *
     * @throws StoreException when the write was refused (CONFLICT: another revision is stored;
     *     LIMIT_EXCEEDED; NOT_LEADER) or could not be made durable (UNAVAILABLE: the outcome is unknown)
     */
    void store(TransactionRecord record) throws StoreException;

    /**
     * Forgets a transactional id whose stored record has {@code revision} (an expired id); nothing
     * stored is no change.
     *
     * @throws StoreException as {@link #store}; CONFLICT when another revision is stored
     */
    void delete(String transactionalId, long revision) throws StoreException;

    /** Hands out producer ids never handed out before, by any coordinator or broker. */
    interface ProducerIds {

        /** A new producer id. */
        long next() throws StoreException;
    }

    /** A write that was refused, or whose outcome is unknown. */
    final class StoreException extends Exception {

        /** Why, which decides the Kafka error the producer is answered with. */
        public enum Reason {
            /** This process is not the Raft leader: the producer should find the coordinator again. */
            NOT_LEADER,
            /** No quorum, or a timeout: the outcome is unknown; the producer retries. */
            UNAVAILABLE,
            /** A bound (transactional ids, command size) would be exceeded. */
            LIMIT_EXCEEDED,
            /** The stored record is not the one the write was computed from (a concurrent change). */
            CONFLICT
        }

        private final Reason reason;

        public StoreException(Reason reason, String message, Throwable cause) {
            super(message, cause);
            this.reason = Objects.requireNonNull(reason, "reason");
        }

        public StoreException(Reason reason, String message) {
            this(reason, message, null);
        }

        public Reason reason() {
            return reason;
        }
    }
}
