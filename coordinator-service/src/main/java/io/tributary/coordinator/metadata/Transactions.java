package io.tributary.coordinator.metadata;

import io.tributary.coordinator.transaction.TransactionRecord;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The transactional ids of a {@link MetadataImage}: id to its {@link TransactionRecord}, what a new
 * coordinator leader's transaction coordinator finds (the transactions it must finish ending, the
 * producer ids and epochs it answers with).
 *
 * <p>A value of its own, like {@link ClassicGroups}: images whose command did not touch transactions
 * share it unchanged; storing or deleting one record copies only the outer map.
 *
 * <p>Every change is a compare-and-set on the record's revision ({@link #with}, {@link #without}),
 * so a write computed from a state that is no longer the latest (a deposed leader's write, resent by
 * its client to the new leader) is refused when applied rather than overwriting a later decision.
 *
 * <p>Thread-safety: immutable; safe to share.
 */
public final class Transactions {

    /** No transactional id is stored. */
    public static final Transactions EMPTY = new Transactions(new TreeMap<>());

    private final SortedMap<String, TransactionRecord> records;

    private Transactions(SortedMap<String, TransactionRecord> records) {
        this.records = Collections.unmodifiableSortedMap(records);
    }

    /**
     * Builds the transactions from records (a snapshot being read, tests).
     *
     * @throws IllegalStateException if an id is there twice
     */
    public static Transactions of(Iterable<TransactionRecord> records) {
        SortedMap<String, TransactionRecord> copy = new TreeMap<>();
        for (TransactionRecord r : records) {
            if (copy.put(r.transactionalId(), r) != null) {
                throw new IllegalStateException("transactions: id '" + r.transactionalId() + "' twice");
            }
        }
        return copy.isEmpty() ? EMPTY : new Transactions(copy);
    }

    /** How many transactional ids are stored. */
    public int count() {
        return records.size();
    }

    /** The stored record of a transactional id, if any. */
    public Optional<TransactionRecord> get(String transactionalId) {
        return Optional.ofNullable(records.get(transactionalId));
    }

    /** Every stored record, by transactional id in id order (unmodifiable). */
    public SortedMap<String, TransactionRecord> asMap() {
        return records;
    }

    /**
     * These transactions with {@code record} stored: {@code this} when the same record is stored
     * already (a resent command).
     *
     * @throws StaleEpochException if the record's revision is not 0 for a new id, or one more than
     *     the stored record's
     * @throws InvalidRequestException if the record moves to a state its predecessor's state does not
     *     lead to ({@link io.tributary.coordinator.transaction.TransactionState#next()}), or a new id's
     *     record is not Empty
     */
    Transactions with(TransactionRecord record) {
        TransactionRecord stored = records.get(record.transactionalId());
        if (record.equals(stored)) {
            return this;
        }
        long expected = stored == null ? 0 : stored.revision() + 1;
        if (record.revision() != expected) {
            throw new StaleEpochException("transactional id '%s': a write of revision %d, the stored revision is %s"
                    .formatted(
                            record.transactionalId(), record.revision(), stored == null ? "none" : stored.revision()));
        }
        boolean allowed = stored == null
                ? record.state() == io.tributary.coordinator.transaction.TransactionState.EMPTY
                : stored.state().next().contains(record.state());
        if (!allowed) {
            throw new InvalidRequestException("transactional id '%s' cannot go from %s to %s"
                    .formatted(
                            record.transactionalId(),
                            stored == null ? "nothing" : stored.state().kafkaName(),
                            record.state().kafkaName()));
        }
        SortedMap<String, TransactionRecord> copy = new TreeMap<>(records);
        copy.put(record.transactionalId(), record);
        return new Transactions(copy);
    }

    /**
     * These transactions without a transactional id whose stored record has {@code revision} ({@code
     * this} when none is stored: a resent command).
     *
     * @throws StaleEpochException if another revision is stored
     */
    Transactions without(String transactionalId, long revision) {
        TransactionRecord stored = records.get(transactionalId);
        if (stored == null) {
            return this;
        }
        if (stored.revision() != revision) {
            throw new StaleEpochException("transactional id '%s': a deletion of revision %d, the stored revision is %d"
                    .formatted(transactionalId, revision, stored.revision()));
        }
        SortedMap<String, TransactionRecord> copy = new TreeMap<>(records);
        copy.remove(transactionalId);
        return new Transactions(copy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Transactions other && records.equals(other.records);
    }

    @Override
    public int hashCode() {
        return records.hashCode();
    }

    @Override
    public String toString() {
        return "Transactions" + records.values();
    }
}
