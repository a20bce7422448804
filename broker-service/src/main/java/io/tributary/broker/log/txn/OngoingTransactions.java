package io.tributary.broker.log.txn;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The open transactions of one partition: per producer id, the offset of its transaction's first
 * batch on this partition, until a commit or abort marker of that producer ends it (the part of
 * Kafka's {@code ProducerStateManager} that tracks transactions). The earliest first offset is the
 * partition's first unstable offset: the last stable offset (LSO), the end of what a
 * {@code read_committed} reader may see, is the smaller of it and the high watermark.
 *
 * <p>Offsets are fed in log order: a transactional batch ({@link #batch}) opens its producer's
 * transaction when none is open (later batches of it change nothing), and a marker ({@link
 * #marker}) ends it, answering the completed transaction and the LSO just after it, which the
 * aborted-transactions index keeps with an aborted one.
 *
 * <p>Not thread-safe: the owning partition log calls it under its writer lock.
 */
public final class OngoingTransactions {

    /** A transaction ended by a marker. */
    public record Completed(long producerId, long firstOffset, long lastOffset, boolean committed) {

        /** This transaction as the aborted-transactions index keeps it, with the LSO after it. */
        public AbortedTransaction aborted(long lastStableOffset) {
            if (committed) {
                throw new IllegalStateException("transaction of producer " + producerId + " committed");
            }
            return new AbortedTransaction(producerId, firstOffset, lastOffset, lastStableOffset);
        }
    }

    /** The marker's outcome: the transaction it ended (none: no transaction of it was open), the LSO after it. */
    public record Ended(Optional<Completed> completed, long lastStableOffset) {}

    private final Map<Long, Long> firstOffsetByProducer = new HashMap<>();
    private final TreeMap<Long, Long> producerByFirstOffset = new TreeMap<>();

    /** A transactional batch of {@code producerId} starting at {@code baseOffset} was appended. */
    public void batch(long producerId, long baseOffset) {
        if (firstOffsetByProducer.putIfAbsent(producerId, baseOffset) == null) {
            if (!producerByFirstOffset.isEmpty() && producerByFirstOffset.lastKey() >= baseOffset) {
                firstOffsetByProducer.remove(producerId);
                throw new IllegalArgumentException(
                        "batches come in log order: " + baseOffset + " after " + producerByFirstOffset.lastKey());
            }
            producerByFirstOffset.put(baseOffset, producerId);
        }
    }

    /**
     * A commit or abort marker of {@code producerId} was appended at {@code offset}: ends its open
     * transaction, if any (a marker without one, a coordinator's retry or a transaction without a
     * batch here, ends nothing).
     */
    public Ended marker(long producerId, long offset, boolean commit) {
        Long first = firstOffsetByProducer.remove(producerId);
        Optional<Completed> completed = Optional.empty();
        if (first != null) {
            producerByFirstOffset.remove(first);
            completed = Optional.of(new Completed(producerId, first, offset, commit));
        }
        return new Ended(completed, firstUnstableOffset().orElse(offset + 1));
    }

    /** The first offset of the earliest open transaction, if any. */
    public OptionalLong firstUnstableOffset() {
        return producerByFirstOffset.isEmpty()
                ? OptionalLong.empty()
                : OptionalLong.of(producerByFirstOffset.firstKey());
    }

    /** The last stable offset given the high watermark: the earlier of it and the first unstable offset. */
    public long lastStableOffset(long highWatermark) {
        OptionalLong unstable = firstUnstableOffset();
        return unstable.isPresent() ? Math.min(unstable.getAsLong(), highWatermark) : highWatermark;
    }

    /** The first offset of {@code producerId}'s open transaction, if one is open. */
    public OptionalLong firstOffsetOf(long producerId) {
        Long first = firstOffsetByProducer.get(producerId);
        return first == null ? OptionalLong.empty() : OptionalLong.of(first);
    }

    /** Every open transaction: producer id to its first offset (a copy, for a snapshot). */
    public Map<Long, Long> asMap() {
        return Map.copyOf(firstOffsetByProducer);
    }

    /** How many transactions are open. */
    public int size() {
        return firstOffsetByProducer.size();
    }

    /** Forgets every open transaction (before the state is rebuilt from the log). */
    public void clear() {
        firstOffsetByProducer.clear();
        producerByFirstOffset.clear();
    }
}
