package io.tributary.common.protocol;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ProduceRequest;

/** Requests the listener's tests send, built with kafka-clients' own builders. */
final class TestRequests {

    private TestRequests() {}

    static DescribeClusterRequest describeCluster(int version) {
        return new DescribeClusterRequest.Builder(new DescribeClusterRequestData()).build((short) version);
    }

    /** A consumer fetch of nothing at the newest version. */
    static FetchRequest latestFetch() {
        short version = ApiKeys.FETCH.latestVersion();
        return FetchRequest.Builder.forConsumer(version, 0, 1, Map.of()).build(version);
    }

    /** A produce of nothing. */
    static ProduceRequest produce(int acks) {
        return produce(acks, ApiKeys.PRODUCE.latestVersion());
    }

    /** A produce of nothing, at {@code version}. */
    static ProduceRequest produce(int acks, short version) {
        return produce(acks, new ProduceRequestData.TopicProduceDataCollection(), version);
    }

    /** A produce of one record to partition 0 of one topic. */
    static ProduceRequest produce(int acks, Uuid topicId) {
        var topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData()
                .setTopicId(topicId)
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(0)
                        .setRecords(MemoryRecords.withRecords(
                                Compression.NONE, new SimpleRecord("value".getBytes(StandardCharsets.UTF_8)))))));
        return produce(acks, topics, ApiKeys.PRODUCE.latestVersion());
    }

    private static ProduceRequest produce(
            int acks, ProduceRequestData.TopicProduceDataCollection topics, short version) {
        var data = new ProduceRequestData()
                .setAcks((short) acks)
                .setTimeoutMs(30_000)
                .setTopicData(topics);
        return ProduceRequest.builder(data).build(version);
    }
}
