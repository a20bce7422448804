package io.tributary.broker.log;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The idempotent and transactional producers of one partition: per producer id, its epoch, its
 * last {@value #BATCHES_PER_PRODUCER} batches' sequence ranges and offsets, the first offset of its
 * open transaction and the newest transaction coordinator epoch of its markers (Kafka's {@code
 * ProducerStateManager}). It answers a retried batch with the offsets it got the first time and
 * refuses a batch that would leave a hole in the producer's sequence or comes from a fenced epoch.
 * (The partition log still refuses transactional batches before they get here, until markers, the
 * LSO and read_committed fetches are wired in: issue 18.)
 *
 * <h2>Rules (Kafka's, checked per batch in order)</h2>
 *
 * <ol>
 *   <li>A control batch is not a client's to write ({@link IllegalArgumentException}: markers come
 *       through {@link #analyzeMarker}).
 *   <li>Duplicate: same producer, same epoch, same first and last sequence as one of the last
 *       {@value #BATCHES_PER_PRODUCER} batches: the append is not written and is answered with
 *       that batch's original offsets.
 *   <li>An epoch older than the producer's current one: {@link InvalidProducerEpochException}.
 *   <li>A newer epoch must start at sequence 0; the same epoch must continue at last sequence + 1
 *       (wrapping from {@code Integer.MAX_VALUE} to 0); otherwise {@link
 *       OutOfOrderSequenceException}. A producer id this partition does not know is accepted at any
 *       sequence (its state may have expired, or the log holding it was deleted), as in Kafka.
 *   <li>A non-transactional batch while the producer's transaction is open: {@link
 *       InvalidTxnStateException}. A transactional batch opens the producer's transaction when none
 *       is open.
 * </ol>
 *
 * <p>A marker ({@link #analyzeMarker}) of an epoch older than the producer's is {@link
 * InvalidProducerEpochException}, of a coordinator epoch older than the newest seen {@link
 * TransactionCoordinatorFencedException}; otherwise it ends the open transaction (if any) and takes
 * the producer to the marker's epoch (a bumped epoch fences the older one: its batches are
 * forgotten) and coordinator epoch.
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
 * <h2>Snapshot encoding (big-endian), version 2</h2>
 *
 * <pre>
 *  0  version         int8    2
 *  1  endOffset       int64   the log end offset the snapshot describes
 *  9  producerCount   int32   n
 * 13  n times:
 *       producerId            int64
 *       epoch                 int16
 *       lastAppendMs          int64   broker time of the producer's last append
 *       coordinatorEpoch      int32   newest coordinator epoch of its markers, -1 before any
 *       currentTxnFirstOffset int64   first offset of its open transaction, -1 when none
 *       batchCount            int8    m, 0 to 5, oldest first (0: only markers seen)
 *       m times:
 *         firstSequence int32, lastSequence int32, firstOffset int64, lastOffset int64
 * </pre>
 *
 * <p>Version 1 (written before transactions) has neither {@code coordinatorEpoch} nor {@code
 * currentTxnFirstOffset} and 1 to 5 batches; it is still read (both then -1).
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
        private int coordinatorEpoch = NO_COORDINATOR_EPOCH;
        private long currentTxnFirstOffset = NO_OFFSET;

        Entry(short epoch) {
            this.epoch = epoch;
        }

        private Entry copy() {
            Entry copy = new Entry(epoch);
            copy.batches.addAll(batches);
            copy.lastAppendMs = lastAppendMs;
            copy.coordinatorEpoch = coordinatorEpoch;
            copy.currentTxnFirstOffset = currentTxnFirstOffset;
            return copy;
        }

        short epoch() {
            return epoch;
        }

        /** The newest coordinator epoch of this producer's markers, or -1 before any. */
        int coordinatorEpoch() {
            return coordinatorEpoch;
        }

        /** The first offset of this producer's open transaction, or -1 when none is open. */
        long currentTxnFirstOffset() {
            return currentTxnFirstOffset;
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
            if (header.isTransactional() && currentTxnFirstOffset == NO_OFFSET) {
                currentTxnFirstOffset = header.baseOffset();
            }
            lastAppendMs = nowMs;
        }

        /** A marker at {@code epoch}: the producer moves to it, its open transaction ends. */
        private void endTransaction(short markerEpoch, int markerCoordinatorEpoch, long nowMs) {
            if (markerEpoch != epoch) {
                epoch = markerEpoch;
                batches.clear();
            }
            if (markerCoordinatorEpoch != NO_COORDINATOR_EPOCH) {
                coordinatorEpoch = markerCoordinatorEpoch;
            }
            currentTxnFirstOffset = NO_OFFSET;
            lastAppendMs = nowMs;
        }
    }

    /** No coordinator epoch seen ({@link Entry#coordinatorEpoch()}), or unknown (a marker replayed). */
    static final int NO_COORDINATOR_EPOCH = -1;

    /** No open transaction ({@link Entry#currentTxnFirstOffset()}). */
    static final long NO_OFFSET = -1;

    /**
     * The result of checking a marker: the first offset of the transaction it ends ({@link
     * #NO_OFFSET} when none was open), and the producer's state after it, to {@link #commitMarker}
     * once the marker is written.
     */
    record MarkerAnalysis(long producerId, long transactionFirstOffset, Entry updated) {}

    /**
     * The result of checking an append: either the original offsets of a duplicate, or the
     * producers' state after the append, to {@link #commit} once it is written.
     */
    record Analysis(Optional<BatchMetadata> duplicate, Map<Long, Entry> updated) {}

    private final Map<Long, Entry> producers = new HashMap<>();

    static final byte SNAPSHOT_VERSION = 2;
    static final byte SNAPSHOT_VERSION_1 = 1;
    private static final int SNAPSHOT_HEADER_BYTES = 13;
    private static final int PRODUCER_BYTES = 31;
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
                    .putInt(entry.coordinatorEpoch)
                    .putLong(entry.currentTxnFirstOffset)
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
            byte version = buffer.get();
            if ((version != SNAPSHOT_VERSION && version != SNAPSHOT_VERSION_1) || buffer.getLong() != endOffset) {
                return false;
            }
            int count = buffer.getInt();
            Map<Long, Entry> loaded = new HashMap<>();
            for (int i = 0; i < count; i++) {
                long producerId = buffer.getLong();
                Entry entry = new Entry(buffer.getShort());
                entry.lastAppendMs = buffer.getLong();
                if (version == SNAPSHOT_VERSION) {
                    entry.coordinatorEpoch = buffer.getInt();
                    entry.currentTxnFirstOffset = buffer.getLong();
                    if (entry.coordinatorEpoch < NO_COORDINATOR_EPOCH || entry.currentTxnFirstOffset < NO_OFFSET) {
                        return false;
                    }
                }
                int batches = buffer.get();
                if (batches < (version == SNAPSHOT_VERSION ? 0 : 1) || batches > BATCHES_PER_PRODUCER) {
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
            if (batch.isControl()) {
                throw new IllegalArgumentException("a control batch of producer " + batch.producerId()
                        + " is not a client's to write: markers come through analyzeMarker");
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
                if (!batch.isTransactional() && current.currentTxnFirstOffset != NO_OFFSET) {
                    throw new InvalidTxnStateException("producer " + batch.producerId()
                            + " wrote a non-transactional batch while its transaction from offset "
                            + current.currentTxnFirstOffset + " is open");
                }
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

    /**
     * Checks a leader's commit or abort marker (WriteTxnMarkers) without changing the state.
     *
     * @throws InvalidProducerEpochException the marker's epoch is older than the producer's
     * @throws TransactionCoordinatorFencedException the marker's coordinator epoch is older than the
     *     newest seen for the producer
     */
    MarkerAnalysis analyzeMarker(long producerId, short epoch, int coordinatorEpoch, long nowMs) {
        Entry known = producers.get(producerId);
        Entry updated = known == null ? new Entry(epoch) : known.copy();
        if (known != null) {
            if (epoch < known.epoch) {
                throw new InvalidProducerEpochException("marker of producer " + producerId + " at epoch " + epoch
                        + " is older than the current epoch " + known.epoch);
            }
            if (coordinatorEpoch < known.coordinatorEpoch) {
                throw new TransactionCoordinatorFencedException("marker of producer " + producerId
                        + " from coordinator epoch " + coordinatorEpoch + ", older than " + known.coordinatorEpoch);
            }
        }
        long first = updated.currentTxnFirstOffset;
        updated.endTransaction(epoch, coordinatorEpoch, nowMs);
        return new MarkerAnalysis(producerId, first, updated);
    }

    /** Applies a marker analysis whose marker was written. */
    void commitMarker(MarkerAnalysis analysis) {
        producers.put(analysis.producerId(), analysis.updated());
    }

    /** Records a batch without checks: a follower's append, or a batch read back when rebuilding. */
    void replay(BatchHeader batch, long nowMs) {
        if (!batch.hasProducerId()) {
            return;
        }
        Entry entry = producers.get(batch.producerId());
        if (entry == null) {
            entry = new Entry(batch.producerEpoch());
            producers.put(batch.producerId(), entry);
        } else if (batch.producerEpoch() < entry.epoch) {
            return;
        }
        if (batch.isControl()) {
            // The header does not hold the coordinator epoch (it is in the control record): kept as it was.
            entry.endTransaction(batch.producerEpoch(), NO_COORDINATOR_EPOCH, nowMs);
        } else {
            entry.add(batch, nowMs);
        }
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
