package io.tributary.broker.log;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * Checks incoming batches and, as leader, gives them their offsets by rewriting headers in place.
 *
 * <p>Batches stay byte buffers: validation reads header fields at fixed positions and checks the
 * CRC; offset assignment, the leader epoch and LogAppendTime are written with {@link
 * MutableRecordBatch#setLastOffset}, {@link MutableRecordBatch#setPartitionLeaderEpoch} and {@link
 * MutableRecordBatch#setMaxTimestamp}, which recompute the CRC where the field is covered by it.
 * Records are never decoded to append and never re-encoded, except into the topic's codec (below).
 *
 * <p>Checks, in order, per batch: the bytes hold whole batches only ({@link CorruptBatchException});
 * magic is 2 ({@link InvalidRecordException}); the batch is no larger than {@code max.message.bytes}
 * (leader only, as in Kafka, {@link RecordTooLargeException}); the CRC matches ({@link
 * CorruptBatchException}); the batch has records and its count equals {@code lastOffsetDelta + 1}
 * (leader only; a follower may receive batches whose records were compacted away, {@link
 * InvalidRecordException}); in a topic whose {@code cleanup.policy} has {@code compact}, every record
 * has a key (leader only, {@link InvalidRecordException}, as Kafka); in a {@code CreateTime} topic,
 * every record's timestamp lies within the topic's {@link TimestampBounds} of the leader's clock
 * (leader only, {@link InvalidTimestampException}, as Kafka); as follower, offsets continue the log
 * and increase ({@link UnexpectedAppendOffsetException}).
 *
 * <p>As leader, once offsets are assigned, a batch whose codec is not the topic's {@code
 * compression.type} is rewritten into it ({@link BatchRecompression}, as Kafka); a follower stores
 * the leader's bytes as they are.
 *
 * <p>Stateless; thread-safe. The records passed in are modified (leader) and must not be shared.
 */
final class AppendValidator {

    private AppendValidator() {}

    /**
     * Validates {@code records} and assigns offsets from {@code nextOffset}, stamping {@code
     * leaderEpoch} and, when the topic asks for it, {@code nowMs} as LogAppendTime.
     */
    /** Kafka's record error for a record without a key in a compacted topic, before the topic partition. */
    static final String KEYLESS_IN_COMPACTED_TOPIC =
            "Compacted topic cannot accept message without key in topic partition ";

    static ValidatedAppend assignOffsetsAsLeader(
            TopicPartition partition,
            MemoryRecords records,
            long nextOffset,
            int leaderEpoch,
            LogConfig config,
            long nowMs) {
        if (leaderEpoch < 0) {
            throw new IllegalArgumentException("leader epoch must not be negative: " + leaderEpoch);
        }
        List<BatchHeader> headers = new ArrayList<>();
        long offset = nextOffset;
        int position = 0;
        boolean logAppendTime = config.timestampType() == MessageTimestampType.LOG_APPEND_TIME;
        for (MutableRecordBatch batch : batchesOf(records)) {
            checkFormat(batch, position);
            if (batch.sizeInBytes() > config.maxMessageBytes()) {
                throw new RecordTooLargeException("batch at byte " + position + " is " + batch.sizeInBytes()
                        + " bytes, more than max.message.bytes " + config.maxMessageBytes());
            }
            checkCrc(batch, position);
            long lastOffsetDelta = batch.lastOffset() - batch.baseOffset();
            Integer count = batch.countOrNull();
            if (count == null || count <= 0 || count != lastOffsetDelta + 1) {
                throw new InvalidRecordException("batch at byte " + position + " has " + count
                        + " records but a last offset delta of " + lastOffsetDelta);
            }
            checkRecords(partition, batch, config, nowMs);
            batch.setLastOffset(offset + lastOffsetDelta);
            batch.setPartitionLeaderEpoch(leaderEpoch);
            if (logAppendTime) {
                batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, nowMs);
            }
            headers.add(BatchHeader.read(records.buffer(), records.buffer().position() + position, position));
            offset += lastOffsetDelta + 1;
            position += batch.sizeInBytes();
        }
        checkWhole(records, position);
        return BatchRecompression.toTopicCodec(
                partition,
                new ValidatedAppend(records, headers, logAppendTime ? OptionalLong.of(nowMs) : OptionalLong.empty()),
                config);
    }

    /**
     * The checks of each record, Kafka's order and outcome: in a compacted topic every record needs
     * a key (a compacted topic keeps the latest record per key, so a record without one has no
     * place in it: {@code INVALID_RECORD}); in a {@code CreateTime} topic every timestamp must lie
     * within the topic's {@link TimestampBounds} of {@code nowMs} ({@code INVALID_TIMESTAMP}). The
     * whole batch is refused if any record fails, and every failed record is named by its index in
     * the batch with Kafka's message (a keyless one: {@value #KEYLESS_IN_COMPACTED_TOPIC} and the
     * topic partition): an {@link InvalidTimestampException} when any failed its timestamp, else an
     * {@link InvalidRecordException} with those record errors. Reads the records only when a check
     * applies, without copying keys and values ({@link MutableRecordBatch#skipKeyValueIterator}: a
     * compressed batch is decompressed, as Kafka's validator does). Must run before offsets are
     * assigned: a record's offset in the message is the one the producer sent.
     */
    private static void checkRecords(TopicPartition partition, MutableRecordBatch batch, LogConfig config, long nowMs) {
        boolean keys = config.compaction().compacts();
        TimestampBounds bounds = config.timestampBounds();
        boolean timestamps = config.timestampType() == MessageTimestampType.CREATE_TIME && bounds.bounds();
        if (!keys && !timestamps) {
            return;
        }
        List<RecordError> errors = new ArrayList<>(0);
        boolean badTimestamp = false;
        try (CloseableIterator<Record> records = batch.skipKeyValueIterator(BufferSupplier.NO_CACHING)) {
            int index = 0;
            while (records.hasNext()) {
                Record record = records.next();
                if (keys && !record.hasKey()) {
                    errors.add(new RecordError(index, KEYLESS_IN_COMPACTED_TOPIC + partition));
                } else if (timestamps && !bounds.accepts(record.timestamp(), nowMs)) {
                    badTimestamp = true;
                    errors.add(new RecordError(index, bounds.refusal(record.timestamp(), record.offset(), nowMs)));
                }
                index++;
            }
        }
        if (badTimestamp) {
            throw new InvalidTimestampException(errors);
        }
        if (!errors.isEmpty()) {
            throw new InvalidRecordException(errors);
        }
    }

    /** Validates a follower's {@code records}, which keep the leader's offsets, against the log end. */
    static ValidatedAppend validateAsFollower(MemoryRecords records, long logEndOffset) {
        List<BatchHeader> headers = new ArrayList<>();
        long next = logEndOffset;
        int position = 0;
        for (MutableRecordBatch batch : batchesOf(records)) {
            checkFormat(batch, position);
            checkCrc(batch, position);
            if (batch.baseOffset() < next || batch.lastOffset() < batch.baseOffset()) {
                throw new UnexpectedAppendOffsetException("follower batch at byte " + position + " has offsets "
                        + batch.baseOffset() + ".." + batch.lastOffset() + " but the log continues at " + next);
            }
            headers.add(BatchHeader.read(records.buffer(), records.buffer().position() + position, position));
            next = batch.lastOffset() + 1;
            position += batch.sizeInBytes();
        }
        checkWhole(records, position);
        return new ValidatedAppend(records, headers, OptionalLong.empty());
    }

    private static List<MutableRecordBatch> batchesOf(MemoryRecords records) {
        if (records.sizeInBytes() == 0) {
            throw new InvalidRecordException("an append needs at least one batch");
        }
        List<MutableRecordBatch> batches = new ArrayList<>();
        try {
            for (MutableRecordBatch batch : records.batches()) {
                batches.add(batch);
            }
        } catch (CorruptRecordException e) {
            throw new CorruptBatchException("unreadable batch: " + e.getMessage());
        }
        if (batches.isEmpty()) {
            throw new CorruptBatchException("append of " + records.sizeInBytes() + " bytes holds no whole batch");
        }
        return batches;
    }

    private static void checkFormat(MutableRecordBatch batch, int position) {
        if (batch.magic() != RecordBatch.MAGIC_VALUE_V2) {
            throw new InvalidRecordException(
                    "batch at byte " + position + " has magic " + batch.magic() + "; only magic 2 is stored");
        }
    }

    private static void checkCrc(MutableRecordBatch batch, int position) {
        if (!batch.isValid()) {
            throw new CorruptBatchException("batch at byte " + position + " fails its CRC check");
        }
    }

    private static void checkWhole(MemoryRecords records, int wholeBatchBytes) {
        if (wholeBatchBytes != records.sizeInBytes()) {
            throw new CorruptBatchException(
                    "append of " + records.sizeInBytes() + " bytes ends inside a batch at byte " + wholeBatchBytes);
        }
    }
}
