package io.tributary.broker.log;

import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;

/**
 * The answer to a read: a region of one segment file, as a {@link FileRecords} slice that shares
 * the segment's channel, so a Fetch response can send it with {@code FileChannel.transferTo}
 * ({@link Records#writeTo}). Never close it: the segment owns the channel.
 *
 * @param records batches starting with a whole one (a trailing batch may be cut by the byte
 *     limit, as in Kafka), or {@link MemoryRecords#EMPTY}
 * @param logStartOffset the log start offset when the read began
 * @param logEndOffset the log end offset when the read began
 */
public record ReadResult(Records records, long logStartOffset, long logEndOffset) {

    static ReadResult empty(long logStartOffset, long logEndOffset) {
        return new ReadResult(MemoryRecords.EMPTY, logStartOffset, logEndOffset);
    }

    public boolean isEmpty() {
        return records.sizeInBytes() == 0;
    }
}
