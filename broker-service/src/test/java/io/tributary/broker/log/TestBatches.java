package io.tributary.broker.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Builders of producer-shaped batches for tests. */
final class TestBatches {

    /** The topic partition a test's log stands for, in the messages that name it. */
    static final TopicPartition PARTITION = new TopicPartition("test-topic", 0);

    private TestBatches() {}

    /** One uncompressed v2 batch of {@code count} records with base offset 0, as a producer sends it. */
    static MemoryRecords batch(int count, long timestampMs, int valueBytes) {
        return batchAt(0, count, timestampMs, valueBytes);
    }

    /** One batch with the given base offset (a follower's input, or a leader's output). */
    static MemoryRecords batchAt(long baseOffset, int count, long timestampMs, int valueBytes) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[valueBytes];
            byte[] tag = ("v" + i).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(tag, 0, value, 0, Math.min(tag.length, valueBytes));
            records[i] = new SimpleRecord(timestampMs + i, ("k" + i).getBytes(StandardCharsets.US_ASCII), value);
        }
        return MemoryRecords.withRecords(
                RecordBatch.MAGIC_VALUE_V2, baseOffset, Compression.NONE, TimestampType.CREATE_TIME, records);
    }

    /** Several batches concatenated into one append. */
    static MemoryRecords concat(MemoryRecords... parts) {
        int size = 0;
        for (MemoryRecords part : parts) {
            size += part.sizeInBytes();
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        for (MemoryRecords part : parts) {
            buffer.put(part.buffer().duplicate());
        }
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    static MutableRecordBatch only(MemoryRecords records) {
        List<MutableRecordBatch> batches = new ArrayList<>();
        records.batches().forEach(batches::add);
        if (batches.size() != 1) {
            throw new IllegalArgumentException("expected one batch, got " + batches.size());
        }
        return batches.getFirst();
    }

    static List<Long> offsetsOf(Iterable<? extends RecordBatch> batches) {
        List<Long> offsets = new ArrayList<>();
        for (RecordBatch batch : batches) {
            for (Record record : batch) {
                offsets.add(record.offset());
            }
        }
        return offsets;
    }
}
