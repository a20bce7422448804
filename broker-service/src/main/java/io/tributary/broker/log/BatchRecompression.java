package io.tributary.broker.log;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * The leader's rewrite of a validated append into the topic's codec ({@link TopicCompression}):
 * what Kafka's {@code LogValidator} does on its compressed path when the batch's codec differs from
 * the topic's target.
 *
 * <p>When a batch is rewritten, as Kafka:
 *
 * <ul>
 *   <li>{@code compression.type=producer}: never; every batch is stored as the producer sent it.
 *   <li>Otherwise a batch whose codec (attribute bits 0-2) differs from the topic's is rewritten,
 *       whichever way (uncompressed into a codec, a codec into another, a codec into {@code
 *       uncompressed}). A batch already in the topic's codec is kept in place, whatever level its
 *       producer used (Kafka compares codecs, not levels).
 *   <li>Control batches (transaction markers) are kept in place: Kafka does not compress control
 *       records written uncompressed, and producers never write them compressed.
 * </ul>
 *
 * <p>The rewritten batch is one v2 batch per input batch (Kafka accepts one batch per partition
 * and produce request; Tributary, which accepts several, rewrites each) built with kafka-clients'
 * {@link MemoryRecordsBuilder} and the same compression libraries the broker reads batches with
 * (the codecs of {@link Compression}: the JDK's zlib, snappy-java, lz4-java, zstd-jni). It keeps
 * what Kafka keeps: the base offset and every record's offset (already assigned), the partition
 * leader epoch, producer id, producer epoch, base sequence and transactional flag (so idempotent
 * producers' sequence checks and duplicate detection see the same batch), the timestamp type,
 * every record's timestamp, key, value and headers; with {@code LogAppendTime} the batch's max
 * timestamp is the append time already stamped. The CRC is computed anew.
 *
 * <p>Memory: one batch is rewritten at a time, from its bytes (at most {@code max.message.bytes},
 * checked before) into an output buffer. The records are decompressed one at a time ({@link
 * RecordBatch#streamingIterator}), so the decompressed batch is never held whole: the rewrite holds
 * the input batch, one decompressed record, the codec's own block buffers (a constant: 64 KiB for
 * lz4, zstd's window, zlib's 16 KiB) and the output. The output is bounded by {@code
 * max.message.bytes} too: as in Kafka, a rewritten batch larger than {@code max.message.bytes} is
 * refused ({@link RecordTooLargeException}, RECORD_TOO_LARGE), and the rewrite stops as soon as
 * its output passes that size rather than finishing a batch it would refuse. A single record's
 * decompressed size is not bounded (Kafka's {@code max.decompressed.message.bytes} is refused).
 *
 * <p>Stateless; thread-safe.
 */
final class BatchRecompression {

    private BatchRecompression() {}

    /**
     * {@code append} with every batch whose codec is not the topic's rewritten into it, or {@code
     * append} itself when none is (or the topic keeps the producer's codec).
     *
     * @throws RecordTooLargeException a rewritten batch would be larger than {@code max.message.bytes}
     */
    static ValidatedAppend toTopicCodec(TopicPartition partition, ValidatedAppend append, LogConfig config) {
        Optional<CompressionType> targetType = config.compression().targetType();
        if (targetType.isEmpty()) {
            return append;
        }
        List<MutableRecordBatch> batches = new ArrayList<>();
        append.records().batches().forEach(batches::add);
        if (batches.stream().noneMatch(b -> rewrites(b, targetType.get()))) {
            return append;
        }
        Compression target = config.compression().target().orElseThrow();
        List<ByteBuffer> stored = new ArrayList<>(batches.size());
        int rewritten = 0;
        long bytesIn = 0;
        long bytesOut = 0;
        int total = 0;
        ByteBuffer in = append.records().buffer();
        int position = in.position();
        for (MutableRecordBatch batch : batches) {
            ByteBuffer bytes;
            if (rewrites(batch, targetType.get())) {
                bytes = rewrite(partition, batch, target, config.maxMessageBytes());
                rewritten++;
                bytesIn += batch.sizeInBytes();
                bytesOut += bytes.remaining();
            } else {
                bytes = in.duplicate()
                        .position(position)
                        .limit(position + batch.sizeInBytes())
                        .slice();
            }
            position += batch.sizeInBytes();
            stored.add(bytes);
            total += bytes.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(total);
        List<Integer> starts = new ArrayList<>(stored.size());
        for (ByteBuffer bytes : stored) {
            starts.add(out.position());
            out.put(bytes);
        }
        out.flip();
        List<BatchHeader> headers = new ArrayList<>(starts.size());
        for (int start : starts) {
            headers.add(BatchHeader.read(out, start, start));
        }
        return new ValidatedAppend(
                MemoryRecords.readableRecords(out),
                headers,
                append.logAppendTimeMs(),
                new RecompressionStats(rewritten, bytesIn, bytesOut));
    }

    /** Whether Kafka rewrites {@code batch} for a topic storing {@code target}. */
    static boolean rewrites(RecordBatch batch, CompressionType target) {
        return !batch.isControlBatch() && batch.compressionType() != target;
    }

    /**
     * One batch rebuilt with {@code target}: offsets, producer fields, flags and records kept.
     * The batch's offsets, leader epoch and (LogAppendTime) max timestamp must already be final.
     */
    static ByteBuffer rewrite(TopicPartition partition, MutableRecordBatch batch, Compression target, int maxBytes) {
        TimestampType timestampType = batch.timestampType();
        long logAppendTimeMs =
                timestampType == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP;
        ByteBufferOutputStream out = new ByteBufferOutputStream(Math.min(batch.sizeInBytes(), maxBytes) + 64);
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(
                out,
                RecordBatch.MAGIC_VALUE_V2,
                target,
                timestampType,
                batch.baseOffset(),
                logAppendTimeMs,
                batch.producerId(),
                batch.producerEpoch(),
                batch.baseSequence(),
                batch.isTransactional(),
                false,
                batch.partitionLeaderEpoch(),
                Integer.MAX_VALUE);
        try (CloseableIterator<Record> records = batch.streamingIterator(BufferSupplier.NO_CACHING)) {
            while (records.hasNext()) {
                Record record = records.next();
                builder.appendWithOffset(record.offset(), record);
                if (out.position() > maxBytes) {
                    throw tooLarge(partition, out.position(), maxBytes);
                }
            }
        }
        MemoryRecords built = builder.build();
        if (built.sizeInBytes() > maxBytes) {
            throw tooLarge(partition, built.sizeInBytes(), maxBytes);
        }
        return built.buffer().duplicate();
    }

    private static RecordTooLargeException tooLarge(TopicPartition partition, long size, int maxBytes) {
        return new RecordTooLargeException("batch rewritten into the topic's compression.type is at least " + size
                + " bytes in append to " + partition + ", more than max.message.bytes " + maxBytes);
    }
}
