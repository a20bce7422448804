package io.tributary.broker.log.txn;

/**
 * An aborted transaction of one partition, as a {@code read_committed} fetch answers it (Kafka's
 * {@code AbortedTxn}): the client drops the producer's batches from {@code firstOffset} up to the
 * abort marker at {@code lastOffset}.
 *
 * @param producerId the producer whose transaction it was
 * @param firstOffset the offset of its first batch on this partition
 * @param lastOffset the offset of its abort marker
 * @param lastStableOffset the partition's last stable offset right after the marker (the first
 *     offset of the earliest transaction still open then, else the marker's offset + 1); never less
 *     than the previous entry's, so a search can stop at the first entry whose LSO passed its range
 */
public record AbortedTransaction(long producerId, long firstOffset, long lastOffset, long lastStableOffset) {

    public AbortedTransaction {
        if (firstOffset < 0 || lastOffset < firstOffset || lastStableOffset < 0) {
            throw new IllegalArgumentException("bad aborted transaction of producer " + producerId + ": [" + firstOffset
                    + ", " + lastOffset + "], LSO " + lastStableOffset);
        }
    }
}
