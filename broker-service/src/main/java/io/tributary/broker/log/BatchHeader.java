package io.tributary.broker.log;

import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * The fixed-position fields of a record batch header (magic v2), read without decoding records.
 *
 * <p>The layout is Kafka's {@code DefaultRecordBatch}; the fields this engine reads, by byte offset
 * from the start of the batch (all big-endian):
 *
 * <pre>
 *  0  baseOffset            int64
 *  8  length                int32   bytes after this field, so the batch is length + 12 bytes
 * 12  partitionLeaderEpoch  int32
 * 16  magic                 int8    2
 * 17  crc                   uint32  CRC-32C of bytes 21 .. end
 * 21  attributes            int16   bits 0-2 codec, 3 timestamp type, 4 transactional,
 *                                   5 control, 6 delete horizon (KIP-534)
 * 23  lastOffsetDelta       int32
 * 27  baseTimestamp         int64   the first record's timestamp; with bit 6 set, the delete horizon
 * 35  maxTimestamp          int64   the largest record timestamp (log-append time for LogAppendTime)
 * 43  producerId            int64
 * 51  producerEpoch         int16
 * 53  baseSequence          int32
 * 57  recordsCount          int32
 * 61  records ...
 * </pre>
 *
 * <p>Attribute bit 6 ({@code 0x40}, the delete horizon flag) is set only by the log cleaner
 * ({@code log.cleaner.Cleaner}), the first time it rewrites a batch holding a tombstone: the batch's
 * {@code baseTimestamp} (bytes 27-34) then holds the delete horizon, the time (ms since the epoch)
 * from which a cleaning pass drops the batch's tombstones, and each record's timestamp delta is
 * taken from it, so a record's timestamp (base + delta) is unchanged. The base timestamp is then no
 * record's timestamp, so this engine never reads it as one: segment rolls, the time index,
 * retention, ListOffsets and the largest-timestamp bookkeeping use {@code maxTimestamp} (which the
 * flag leaves the largest record timestamp) and the records' own timestamps.
 *
 * @param position where the batch starts in its segment file (0 for a batch in memory)
 * @param baseOffset the offset of the batch's first record
 * @param lastOffset {@code baseOffset + lastOffsetDelta}
 * @param sizeInBytes the whole batch, {@code length + 12}
 * @param magic the format version; this engine stores only 2
 * @param partitionLeaderEpoch the leader epoch stamped by the leader that appended it
 * @param maxTimestamp the largest record timestamp, or the log-append time
 * @param recordCount the records count field
 * @param attributes the attributes field (compression, timestamp type, transactional, control)
 * @param producerId the idempotent producer's id, or -1
 * @param producerEpoch the producer's epoch, or -1
 * @param baseSequence the sequence number of the first record, or -1
 */
public record BatchHeader(
        int position,
        long baseOffset,
        long lastOffset,
        int sizeInBytes,
        byte magic,
        int partitionLeaderEpoch,
        long maxTimestamp,
        int recordCount,
        short attributes,
        long producerId,
        short producerEpoch,
        int baseSequence) {

    /** Bytes of a v2 batch header: the smallest possible batch (no records). */
    public static final int SIZE = DefaultRecordBatch.RECORD_BATCH_OVERHEAD;

    static final int LENGTH_OFFSET = Records.SIZE_OFFSET;
    static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    static final int MAGIC_OFFSET = Records.MAGIC_OFFSET;
    static final int LAST_OFFSET_DELTA_OFFSET = DefaultRecordBatch.LAST_OFFSET_DELTA_OFFSET;
    static final int MAX_TIMESTAMP_OFFSET = 35;
    static final int RECORDS_COUNT_OFFSET = DefaultRecordBatch.RECORDS_COUNT_OFFSET;
    static final int ATTRIBUTES_OFFSET = 21;
    static final int PRODUCER_ID_OFFSET = 43;
    static final int PRODUCER_EPOCH_OFFSET = 51;
    static final int BASE_SEQUENCE_OFFSET = 53;
    /** Attribute bit 4: the batch belongs to a transaction. */
    static final int TRANSACTIONAL_FLAG = 0x10;
    /** Attribute bit 5: a control batch (transaction markers). */
    static final int CONTROL_FLAG = 0x20;

    /**
     * Reads a header from {@code buffer} at its absolute index {@code at}; the buffer must hold at
     * least {@link #SIZE} bytes from there. Fields past the magic byte are meaningful only when the
     * magic is 2.
     */
    static BatchHeader read(ByteBuffer buffer, int at, int position) {
        long baseOffset = buffer.getLong(at);
        int length = buffer.getInt(at + LENGTH_OFFSET);
        byte magic = buffer.get(at + MAGIC_OFFSET);
        int lastOffsetDelta = buffer.getInt(at + LAST_OFFSET_DELTA_OFFSET);
        return new BatchHeader(
                position,
                baseOffset,
                baseOffset + lastOffsetDelta,
                length + Records.LOG_OVERHEAD,
                magic,
                buffer.getInt(at + PARTITION_LEADER_EPOCH_OFFSET),
                buffer.getLong(at + MAX_TIMESTAMP_OFFSET),
                buffer.getInt(at + RECORDS_COUNT_OFFSET),
                buffer.getShort(at + ATTRIBUTES_OFFSET),
                buffer.getLong(at + PRODUCER_ID_OFFSET),
                buffer.getShort(at + PRODUCER_EPOCH_OFFSET),
                buffer.getInt(at + BASE_SEQUENCE_OFFSET));
    }

    /** The same header at another position in its file. */
    BatchHeader at(int newPosition) {
        return new BatchHeader(
                newPosition,
                baseOffset,
                lastOffset,
                sizeInBytes,
                magic,
                partitionLeaderEpoch,
                maxTimestamp,
                recordCount,
                attributes,
                producerId,
                producerEpoch,
                baseSequence);
    }

    /** Whether an idempotent (or transactional) producer wrote the batch. */
    public boolean hasProducerId() {
        return producerId != RecordBatch.NO_PRODUCER_ID;
    }

    public boolean isTransactional() {
        return (attributes & TRANSACTIONAL_FLAG) != 0;
    }

    public boolean isControl() {
        return (attributes & CONTROL_FLAG) != 0;
    }

    /** The sequence number of the last record: the base sequence plus the offset delta, wrapping at 2^31. */
    public int lastSequence() {
        if (baseSequence == RecordBatch.NO_SEQUENCE) {
            return RecordBatch.NO_SEQUENCE;
        }
        return DefaultRecordBatch.incrementSequence(baseSequence, (int) (lastOffset - baseOffset));
    }

    /** {@code lastOffset + 1}. */
    public long nextOffset() {
        return lastOffset + 1;
    }

    /** Whether the header carries a timestamp (batches of a producer without one carry -1). */
    public boolean hasTimestamp() {
        return maxTimestamp != RecordBatch.NO_TIMESTAMP;
    }
}
