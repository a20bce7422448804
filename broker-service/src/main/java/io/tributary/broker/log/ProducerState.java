package io.tributary.broker.log;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The idempotent producers of one partition: per producer id, its epoch and its last {@value
 * #BATCHES_PER_PRODUCER} batches' sequence ranges and offsets (Kafka's {@code ProducerStateManager},
 * without transactions). It answers a retried batch with the offsets it got the first time and
 * refuses a batch that would leave a hole in the producer's sequence or comes from a fenced epoch.
 *
 * <h2>Rules (Kafka's, checked per batch in order)</h2>
 *
 * <ol>
 *   <li>A transactional or control batch is refused ({@link TransactionsUnsupportedException}).
 *   <li>Duplicate: same producer, same epoch, same first and last sequence as one of the last
 *       {@value #BATCHES_PER_PRODUCER} batches: the append is not written and is answered with
 *       that batch's original offsets.
 *   <li>An epoch older than the producer's current one: {@link InvalidProducerEpochException}.
 *   <li>A newer epoch must start at sequence 0; the same epoch must continue at last sequence + 1
 *       (wrapping from {@code Integer.MAX_VALUE} to 0); otherwise {@link
 *       OutOfOrderSequenceException}. A producer id this partition does not know is accepted at any
 *       sequence (its state may have expired, or the log holding it was deleted), as in Kafka.
 * </ol>
 *
 * <h2>Durability</h2>
 *
 * <p>A clean close writes a snapshot ({@link #encode}) to the index store, and the next open loads
 * it when it covers exactly the log's end, reading nothing else. After any other stop (and after a
 * truncation) the state is rebuilt by reading the batch headers (61 bytes each, never the records)
 * of the newest segments holding at least {@code producerStateRebuildBytes} of the log. A producer
 * whose last batch is older than that window is forgotten, which is harmless: retries of a batch
 * come within seconds of it, and an unknown producer is accepted at any sequence. Entries not
 * written to for {@code producer.id.expiration} are dropped by {@link #expire}, which bounds the
 * memory (and the snapshot).
 *
 * <h2>Snapshot encoding (big-endian), version 1</h2>
 *
 * <pre>
 *  0  version         int8    1
 *  1  endOffset       int64   the log end offset the snapshot describes
 *  9  producerCount   int32   n
 * 13  n times:
 *       producerId    int64
 *       epoch         int16
 *       lastAppendMs  int64   broker time of the producer's last append
 *       batchCount    int8    m, 1 to 5, oldest first
 *       m times:
 *         firstSequence int32, lastSequence int32, firstOffset int64, lastOffset int64
 * </pre>
 *
 * <p>Not thread-safe: the owning {@link PartitionLog} calls it under its writer lock only.
 */
final class ProducerState {

    /** Batches remembered per producer: the producer's maximum of in-flight requests, as in Kafka. */
    static final int BATCHES_PER_PRODUCER = 5;

    /** One remembered batch. */
    record BatchMetadata(int firstSequence, int lastSequence, long firstOffset, long lastOffset) {}

    /** One producer's state. */
    static final class Entry {
        private short epoch;
        private final ArrayDeque<BatchMetadata> batches = new ArrayDeque<>();
        private long lastAppendMs;

        Entry(short epoch) {
            this.epoch = epoch;
        }

        private Entry copy() {
            Entry copy = new Entry(epoch);
            copy.batches.addAll(batches);
            copy.lastAppendMs = lastAppendMs;
            return copy;
        }

        short epoch() {
            return epoch;
        }

        List<BatchMetadata> batches() {
            return List.copyOf(batches);
        }

        private void add(BatchHeader header, long nowMs) {
            if (header.producerEpoch() != epoch) {
                epoch = header.producerEpoch();
                batches.clear();
            }
            batches.addLast(new BatchMetadata(
                    header.baseSequence(), header.lastSequence(), header.baseOffset(), header.lastOffset()));
            while (batches.size() > BATCHES_PER_PRODUCER) {
                batches.removeFirst();
            }
            lastAppendMs = nowMs;
        }
    }

    /**
     * The result of checking an append: either the original offsets of a duplicate, or the
     * producers' state after the append, to {@link #commit} once it is written.
     */
    record Analysis(Optional<BatchMetadata> duplicate, Map<Long, Entry> updated) {}

    private final Map<Long, Entry> producers = new HashMap<>();

    static final byte SNAPSHOT_VERSION = 1;
    private static final int SNAPSHOT_HEADER_BYTES = 13;
    private static final int PRODUCER_BYTES = 19;
    private static final int BATCH_BYTES = 24;

    /** The snapshot of this state at log end offset {@code endOffset}. */
    byte[] encode(long endOffset) {
        int size = SNAPSHOT_HEADER_BYTES;
        for (Entry entry : producers.values()) {
            size += PRODUCER_BYTES + BATCH_BYTES * entry.batches.size();
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        buffer.put(SNAPSHOT_VERSION).putLong(endOffset).putInt(producers.size());
        for (Map.Entry<Long, Entry> producer : producers.entrySet()) {
            Entry entry = producer.getValue();
            buffer.putLong(producer.getKey())
                    .putShort(entry.epoch)
                    .putLong(entry.lastAppendMs)
                    .put((byte) entry.batches.size());
            for (BatchMetadata batch : entry.batches) {
                buffer.putInt(batch.firstSequence())
                        .putInt(batch.lastSequence())
                        .putLong(batch.firstOffset())
                        .putLong(batch.lastOffset());
            }
        }
        return buffer.array();
    }

    /**
     * Replaces this state with a snapshot's, if it is well formed and describes {@code endOffset}.
     *
     * @return whether it was loaded
     */
    boolean load(byte[] snapshot, long endOffset) {
        try {
            ByteBuffer buffer = ByteBuffer.wrap(snapshot);
            if (buffer.get() != SNAPSHOT_VERSION || buffer.getLong() != endOffset) {
                return false;
            }
            int count = buffer.getInt();
            Map<Long, Entry> loaded = new HashMap<>();
            for (int i = 0; i < count; i++) {
                long producerId = buffer.getLong();
                Entry entry = new Entry(buffer.getShort());
                entry.lastAppendMs = buffer.getLong();
                int batches = buffer.get();
                if (batches < 1 || batches > BATCHES_PER_PRODUCER) {
                    return false;
                }
                for (int b = 0; b < batches; b++) {
                    entry.batches.addLast(
                            new BatchMetadata(buffer.getInt(), buffer.getInt(), buffer.getLong(), buffer.getLong()));
                }
                loaded.put(producerId, entry);
            }
            if (buffer.hasRemaining()) {
                return false;
            }
            producers.clear();
            producers.putAll(loaded);
            return true;
        } catch (java.nio.BufferUnderflowException e) {
            return false;
        }
    }

    /** Checks a leader's append (headers with their final offsets) without changing the state. */
    Analysis analyze(List<BatchHeader> batches, long nowMs) {
        Map<Long, Entry> updated = new HashMap<>();
        for (BatchHeader batch : batches) {
            if (batch.isTransactional() || batch.isControl()) {
                throw new TransactionsUnsupportedException(
                        "transactional batch of producer " + batch.producerId() + ": transactions are not supported");
            }
            if (!batch.hasProducerId()) {
                continue;
            }
            Entry current = updated.get(batch.producerId());
            if (current == null) {
                Entry known = producers.get(batch.producerId());
                current = known == null ? null : known.copy();
            }
            if (current != null) {
                Optional<BatchMetadata> duplicate = duplicateOf(current, batch);
                if (duplicate.isPresent()) {
                    return new Analysis(duplicate, Map.of());
                }
                checkEpochAndSequence(current, batch);
            } else {
                current = new Entry(batch.producerEpoch());
            }
            current.add(batch, nowMs);
            updated.put(batch.producerId(), current);
        }
        return new Analysis(Optional.empty(), updated);
    }

    /** Applies an analysis whose append was written. */
    void commit(Analysis analysis) {
        producers.putAll(analysis.updated());
    }

    /** Records a batch without checks: a follower's append, or a batch read back when rebuilding. */
    void replay(BatchHeader batch, long nowMs) {
        if (!batch.hasProducerId() || batch.isControl()) {
            return;
        }
        Entry entry = producers.get(batch.producerId());
        if (entry == null) {
            entry = new Entry(batch.producerEpoch());
            producers.put(batch.producerId(), entry);
        } else if (batch.producerEpoch() < entry.epoch) {
            return;
        }
        entry.add(batch, nowMs);
    }

    /** Drops producers not written to since {@code nowMs - expirationMs}; returns how many. */
    int expire(long nowMs, long expirationMs) {
        int before = producers.size();
        producers.values().removeIf(e -> nowMs - e.lastAppendMs >= expirationMs);
        return before - producers.size();
    }

    void clear() {
        producers.clear();
    }

    int size() {
        return producers.size();
    }

    /**
     * The last offset of each known producer's newest batch: the batches the log cleaner keeps
     * (emptied if need be) so that the producer's sequence survives compaction.
     */
    Map<Long, Long> lastOffsets() {
        Map<Long, Long> out = new HashMap<>();
        producers.forEach((id, entry) -> {
            if (!entry.batches.isEmpty()) {
                out.put(id, entry.batches.getLast().lastOffset());
            }
        });
        return Map.copyOf(out);
    }

    Optional<Entry> entry(long producerId) {
        return Optional.ofNullable(producers.get(producerId));
    }

    private static Optional<BatchMetadata> duplicateOf(Entry entry, BatchHeader batch) {
        if (batch.producerEpoch() != entry.epoch) {
            return Optional.empty();
        }
        return entry.batches.stream()
                .filter(b -> b.firstSequence() == batch.baseSequence() && b.lastSequence() == batch.lastSequence())
                .findFirst();
    }

    private static void checkEpochAndSequence(Entry entry, BatchHeader batch) {
        if (batch.producerEpoch() < entry.epoch) {
            throw new InvalidProducerEpochException("producer " + batch.producerId() + " epoch " + batch.producerEpoch()
                    + " is older than the current epoch " + entry.epoch);
        }
        if (batch.producerEpoch() != entry.epoch) {
            if (batch.baseSequence() != 0) {
                throw new OutOfOrderSequenceException("producer " + batch.producerId() + " new epoch "
                        + batch.producerEpoch() + " starts at sequence " + batch.baseSequence() + ", not 0");
            }
            return;
        }
        int lastSequence = entry.batches.isEmpty()
                ? RecordBatch.NO_SEQUENCE
                : entry.batches.getLast().lastSequence();
        if (lastSequence != RecordBatch.NO_SEQUENCE && !inSequence(lastSequence, batch.baseSequence())) {
            throw new OutOfOrderSequenceException("producer " + batch.producerId() + " epoch " + entry.epoch
                    + " sent sequence " + batch.baseSequence() + " after " + lastSequence);
        }
    }

    private static boolean inSequence(int last, int next) {
        return next == last + 1L || (next == 0 && last == Integer.MAX_VALUE);
    }
}
