package io.tributary.broker.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/** What a consumer reading a whole log sees, for tests (of compaction above all). */
public final class LogContents {

    private LogContents() {}

    /** Every batch from {@code from} to the log end, fetched as consumers fetch (one segment per read). */
    public static List<RecordBatch> batchesFrom(PartitionLog log, long from) {
        List<RecordBatch> out = new ArrayList<>();
        long offset = from;
        while (offset < log.logEndOffset()) {
            long next = offset;
            for (RecordBatch batch : log.read(offset, Integer.MAX_VALUE, Long.MAX_VALUE)
                    .records()
                    .batches()) {
                out.add(batch);
                next = batch.nextOffset();
            }
            if (next == offset) {
                break;
            }
            offset = next;
        }
        return out;
    }

    /** Offset to {@code key=value} (UTF-8; a null value reads {@code null}) of every record from the log start. */
    public static TreeMap<Long, String> records(PartitionLog log) {
        TreeMap<Long, String> out = new TreeMap<>();
        for (RecordBatch batch : batchesFrom(log, log.logStartOffset())) {
            for (Record record : batch) {
                out.put(record.offset(), string(record.key()) + "=" + string(record.value()));
            }
        }
        return out;
    }

    /** A buffer's bytes as UTF-8, or {@code null}. */
    public static String string(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** UTF-8 bytes of {@code s}, or {@code null}. */
    public static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
