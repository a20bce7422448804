package io.tributary.coordinator.metadata;

import io.tributary.coordinator.transaction.TransactionRecord;
import io.tributary.coordinator.transaction.TransactionState;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The binary layout of a {@link TransactionRecord}, in a StoreTransaction command ({@link
 * CommandCodec}, type 23) and in a snapshot ({@link ImageCodec}, version 10 and later). Primitive
 * types are {@link Bytes}' (big-endian; a string is an int32 length and UTF-8).
 *
 * <pre>
 * transaction record:
 *   string transactionalId            not empty
 *   int64  revision                   0 or more
 *   int64  producerId                 0 or more
 *   int64  previousProducerId         -1 (none) or more
 *   int64  nextProducerId             -1 (none) or more
 *   int32  producerEpoch              0..32767
 *   int32  lastProducerEpoch          -1 (none)..32767
 *   int32  timeoutMs                  1 or more
 *   int8   state                      Kafka's code: 0 Empty, 1 Ongoing, 2 PrepareCommit,
 *                                     3 PrepareAbort, 4 CompleteCommit, 5 CompleteAbort
 *   int32  topic count T, T x (string topic, int list partitions)
 *                                     topics in name order, partitions ascending
 *   string list groups                consumer groups of AddOffsetsToTxn, in id order
 *   int64  startTimestampMs           -1 when Empty, else when the open or last transaction started
 *   int64  updateTimestampMs
 *   int8   clientTransactionVersion   0 or more
 * </pre>
 *
 * <p>Example: transactional id {@code t}, revision 1, producer id 7, no previous or next producer
 * id, epoch 0, no last epoch, timeout 60,000 ms, Ongoing with partition {@code a-0} and no group,
 * started at 1,000 and updated at 2,000, version 0:
 *
 * <pre>
 * 00 00 00 01 74  00 00 00 00 00 00 00 01  00 00 00 00 00 00 00 07
 * FF FF FF FF FF FF FF FF  FF FF FF FF FF FF FF FF  00 00 00 00  FF FF FF FF  00 00 EA 60  01
 * 00 00 00 01 00 00 00 01 61 00 00 00 01 00 00 00 00  00 00 00 00
 * 00 00 00 00 00 00 03 E8  00 00 00 00 00 00 07 D0  00
 * </pre>
 *
 * <p>A reader rejects an unknown state, Dead and PrepareEpochFence (never stored), values out of
 * range and a record that breaks {@link TransactionRecord}'s rules with a {@link
 * CorruptCommandException}.
 *
 * <p>Thread-safety: stateless.
 */
final class TransactionCodec {

    /** The smallest encoded record: empty strings and lists, every fixed field. */
    static final int MIN_RECORD_BYTES = 4 + 8 * 4 + 4 * 3 + 1 + 4 + 4 + 8 + 8 + 1;

    private TransactionCodec() {}

    static void write(Bytes.Writer w, TransactionRecord r) {
        w.string(r.transactionalId())
                .int64(r.revision())
                .int64(r.producerId())
                .int64(r.previousProducerId())
                .int64(r.nextProducerId())
                .int32(r.producerEpoch())
                .int32(r.lastProducerEpoch())
                .int32(r.timeoutMs())
                .int8(r.state().code());
        SortedMap<String, List<Integer>> byTopic = new TreeMap<>();
        r.partitions()
                .forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                        .add(tp.partition()));
        w.int32(byTopic.size());
        byTopic.forEach((topic, partitions) -> w.string(topic).intList(partitions));
        w.stringList(List.copyOf(r.groups()))
                .int64(r.startTimestampMs())
                .int64(r.updateTimestampMs())
                .int8(r.clientTransactionVersion());
    }

    static TransactionRecord read(Bytes.Reader r) {
        String id = r.string();
        long revision = r.int64();
        long producerId = r.int64();
        long previousProducerId = r.int64();
        long nextProducerId = r.int64();
        int epoch = r.int32();
        int lastEpoch = r.int32();
        int timeoutMs = r.int32();
        int code = r.int8();
        TransactionState state = TransactionState.ofCode(code);
        if (state == null || !state.storable()) {
            throw r.corrupt("transactional id '" + id + "': state code " + code + " is not a stored state");
        }
        if (epoch < 0 || epoch > Short.MAX_VALUE || lastEpoch < -1 || lastEpoch > Short.MAX_VALUE) {
            throw r.corrupt("transactional id '" + id + "': epoch " + epoch + " or last epoch " + lastEpoch);
        }
        int topics = r.count(8);
        TreeSet<TopicPartition> partitions = new TreeSet<>();
        for (int i = 0; i < topics; i++) {
            String topic = r.string();
            for (int p : r.intList()) {
                if (p < 0 || !partitions.add(new TopicPartition(topic, p))) {
                    throw r.corrupt("transactional id '" + id + "': partition " + topic + "-" + p);
                }
            }
        }
        List<String> groups = r.stringList();
        long start = r.int64();
        long update = r.int64();
        int version = r.int8();
        try {
            return new TransactionRecord(
                    id,
                    revision,
                    producerId,
                    previousProducerId,
                    nextProducerId,
                    (short) epoch,
                    (short) lastEpoch,
                    timeoutMs,
                    state,
                    partitions,
                    new TreeSet<>(groups),
                    start,
                    update,
                    (byte) version);
        } catch (IllegalArgumentException e) {
            throw r.corrupt(e.getMessage());
        }
    }
}
