package io.tributary.broker.log.txn;

import java.util.ArrayList;
import java.util.List;

/**
 * The aborted transactions of one partition in the order of their abort markers (Kafka's
 * transaction index, one per partition instead of one per segment): what a {@code read_committed}
 * fetch answers beside the records so the client can drop the aborted ones.
 *
 * <p>{@link #overlapping} answers the transactions whose range meets a fetch's, {@code [fetchOffset,
 * upperBoundOffset)}: those with {@code lastOffset >= fetchOffset} and {@code firstOffset <
 * upperBoundOffset}. It starts at the first entry whose marker is at or after the fetch offset (a
 * binary search: markers come in offset order) and stops at the first entry whose {@link
 * AbortedTransaction#lastStableOffset()} is at or past the upper bound, since every transaction
 * aborted after it started at or after that LSO.
 *
 * <p>Not thread-safe: the owning partition log calls it under its lock.
 */
public final class AbortedTransactions {

    private final List<AbortedTransaction> entries = new ArrayList<>();

    /**
     * Adds an aborted transaction, whose marker is after every one added before.
     *
     * @throws IllegalArgumentException if its marker or LSO is before the last entry's
     */
    public void add(AbortedTransaction aborted) {
        if (!entries.isEmpty()) {
            AbortedTransaction last = entries.getLast();
            if (aborted.lastOffset() <= last.lastOffset() || aborted.lastStableOffset() < last.lastStableOffset()) {
                throw new IllegalArgumentException(
                        "aborted transactions come in marker order: " + aborted + " after " + last);
            }
        }
        entries.add(aborted);
    }

    /** The aborted transactions that overlap {@code [fetchOffset, upperBoundOffset)}, in marker order. */
    public List<AbortedTransaction> overlapping(long fetchOffset, long upperBoundOffset) {
        List<AbortedTransaction> out = new ArrayList<>();
        for (int i = firstEndingAtOrAfter(fetchOffset); i < entries.size(); i++) {
            AbortedTransaction a = entries.get(i);
            if (a.firstOffset() < upperBoundOffset) {
                out.add(a);
            }
            if (a.lastStableOffset() >= upperBoundOffset) {
                break;
            }
        }
        return out;
    }

    /** Forgets the transactions whose marker is before {@code logStartOffset} (their records are gone). */
    public void dropBefore(long logStartOffset) {
        entries.subList(0, firstEndingAtOrAfter(logStartOffset)).clear();
    }

    /** Forgets the transactions whose marker is at or after {@code offset} (the log was truncated there). */
    public void truncateTo(long offset) {
        entries.subList(firstEndingAtOrAfter(offset), entries.size()).clear();
    }

    /** How many aborted transactions are kept. */
    public int size() {
        return entries.size();
    }

    /** Every kept entry, in marker order (a copy). */
    public List<AbortedTransaction> asList() {
        return List.copyOf(entries);
    }

    /** Forgets everything (before the index is rebuilt from the log). */
    public void clear() {
        entries.clear();
    }

    private int firstEndingAtOrAfter(long offset) {
        int lo = 0;
        int hi = entries.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (entries.get(mid).lastOffset() < offset) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
