package io.tributary.broker.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;

/** Records and produce requests for the replication tests. */
final class ReplicationTestRecords {

    private ReplicationTestRecords() {}

    /** {@code records} in memory: a log read's {@link FileRecords} slice is read into a buffer. */
    static MemoryRecords toMemory(Records records) {
        if (records == null || records instanceof MemoryRecords) {
            return (MemoryRecords) records;
        }
        try {
            ByteBuffer buffer = ByteBuffer.allocate(records.sizeInBytes());
            ((FileRecords) records).readInto(buffer, 0); // reads and flips
            return MemoryRecords.readableRecords(buffer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A Produce v11 request of one batch of {@code records} to partition 0 of {@code topic}. */
    static ProduceRequest produceRequest(String topic, short acks, int timeoutMs, SimpleRecord... records) {
        var topicData = new ProduceRequestData.TopicProduceData().setName(topic);
        topicData
                .partitionData()
                .add(new ProduceRequestData.PartitionProduceData()
                        .setIndex(0)
                        .setRecords(MemoryRecords.withRecords(Compression.NONE, records)));
        var topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(topicData);
        return new ProduceRequest(
                new ProduceRequestData().setAcks(acks).setTimeoutMs(timeoutMs).setTopicData(topics), (short) 11);
    }
}
