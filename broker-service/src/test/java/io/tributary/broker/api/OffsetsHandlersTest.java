package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.ORDERS;
import static io.tributary.broker.api.DataPathFixture.ORDERS_EPOCH;
import static io.tributary.broker.api.DataPathFixture.fetchRequest;
import static io.tributary.broker.api.DataPathFixture.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.api.DataPathFixture.Fetch;
import io.tributary.broker.log.index.EpochEntry;
import io.tributary.broker.replication.EpochEnd;
import io.tributary.broker.replication.LeaderEpochs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ListOffsets, OffsetForLeaderEpoch and DeleteRecords. */
class OffsetsHandlersTest {

    @TempDir
    Path dir;

    private DataPathFixture broker;

    @BeforeEach
    void start() {
        broker = new DataPathFixture(dir);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    // ---- ListOffsets

    static ListOffsetsRequest listOffsets(
            ListOffsetsRequest.Builder builder, String topic, int partition, long timestamp, int currentLeaderEpoch) {
        var topicData = new ListOffsetsRequestData.ListOffsetsTopic().setName(topic);
        topicData
                .partitions()
                .add(new ListOffsetsRequestData.ListOffsetsPartition()
                        .setPartitionIndex(partition)
                        .setTimestamp(timestamp)
                        .setCurrentLeaderEpoch(currentLeaderEpoch));
        return builder.setTargetTimes(List.of(topicData)).build((short) 9);
    }

    private ListOffsetsResponseData.ListOffsetsPartitionResponse list(String topic, long timestamp) {
        return list(
                ListOffsetsRequest.Builder.forConsumer(true, IsolationLevel.READ_UNCOMMITTED), topic, timestamp, -1);
    }

    private ListOffsetsResponseData.ListOffsetsPartitionResponse list(
            ListOffsetsRequest.Builder builder, String topic, long timestamp, int epoch) {
        ListOffsetsResponse response = broker.call(
                broker.listOffsets, listOffsets(builder, topic, 0, timestamp, epoch), ListOffsetsResponse.class);
        return response.topics().getFirst().partitions().getFirst();
    }

    private static MemoryRecords at(long... timestamps) {
        SimpleRecord[] records = new SimpleRecord[timestamps.length];
        for (int i = 0; i < timestamps.length; i++) {
            records[i] = new SimpleRecord(timestamps[i], ("v" + i).getBytes(StandardCharsets.US_ASCII));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    @Test
    void listOffsetsAnswersEarliestLatestByTimestampAndMaxTimestamp() {
        var orders = broker.partition("orders", 0);
        orders.appendAsLeader(at(100, 200));
        orders.appendAsLeader(at(500, 300));

        assertThat(list("orders", ListOffsetsRequest.EARLIEST_TIMESTAMP).offset())
                .isZero();
        var latest = list("orders", ListOffsetsRequest.LATEST_TIMESTAMP);
        assertThat(latest.offset()).isEqualTo(4);
        assertThat(latest.leaderEpoch()).isEqualTo(ORDERS_EPOCH);
        var byTime = list("orders", 250);
        assertThat(byTime.offset()).isEqualTo(2);
        assertThat(byTime.timestamp()).isEqualTo(500);
        var max = list("orders", ListOffsetsRequest.MAX_TIMESTAMP);
        assertThat(max.offset()).isEqualTo(2);
        assertThat(max.timestamp()).isEqualTo(500);
        assertThat(list("orders", 10_000).offset()).isEqualTo(-1);
    }

    @Test
    void anEmptyPartitionAnswersItsCurrentLeaderEpochForEarliestAndLatestAsKafkaDoes() {
        // Kafka's leader puts its epoch in the leader epoch cache at its log end offset on becoming
        // leader, before any batch of the epoch: an empty partition's earliest and latest are in it.
        var earliest = list("orders", ListOffsetsRequest.EARLIEST_TIMESTAMP);
        var latest = list("orders", ListOffsetsRequest.LATEST_TIMESTAMP);

        assertThat(earliest.offset()).isZero();
        assertThat(earliest.leaderEpoch()).isEqualTo(ORDERS_EPOCH);
        assertThat(latest.offset()).isZero();
        assertThat(latest.leaderEpoch()).isEqualTo(ORDERS_EPOCH);
    }

    @Test
    void consumersGetTheHighWatermarkAsLatestAndReplicasTheLogEnd() {
        broker.partition("replicated", 0).appendAsLeader(records(3));

        assertThat(list("replicated", ListOffsetsRequest.LATEST_TIMESTAMP).offset())
                .isZero();
        assertThat(list("replicated", 0).offset()).isEqualTo(-1);
        assertThat(list(ListOffsetsRequest.Builder.forReplica((short) 9, 1), "replicated", -1, -1)
                        .offset())
                .isEqualTo(3);
    }

    @Test
    void listOffsetsChecksLeadershipAndTheLeaderEpoch() {
        var builder = ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED);
        assertThat(Errors.forCode(list(builder, "remote", -1, -1).errorCode()))
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(Errors.forCode(list(builder, "orders", -1, ORDERS_EPOCH - 1).errorCode()))
                .isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(Errors.forCode(list(builder, "orders", -1, ORDERS_EPOCH + 1).errorCode()))
                .isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);
        assertThat(Errors.forCode(list(builder, "nope", -1, -1).errorCode()))
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    // ---- OffsetForLeaderEpoch

    private OffsetForLeaderEpochResponseData.EpochEndOffset epochEnd(String topic, int epoch, int currentEpoch) {
        var topics = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        var topicData = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(topic);
        topicData
                .partitions()
                .add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                        .setPartition(0)
                        .setLeaderEpoch(epoch)
                        .setCurrentLeaderEpoch(currentEpoch));
        topics.add(topicData);
        var request =
                OffsetsForLeaderEpochRequest.Builder.forFollower(topics, 1).build((short) 4);
        OffsetsForLeaderEpochResponse response =
                broker.call(broker.offsetForLeaderEpoch, request, OffsetsForLeaderEpochResponse.class);
        return response.data().topics().iterator().next().partitions().getFirst();
    }

    @Test
    void theLatestEpochEndsAtTheLogEnd() {
        broker.partition("orders", 0).appendAsLeader(records(4));

        var end = epochEnd("orders", ORDERS_EPOCH, ORDERS_EPOCH);

        assertThat(Errors.forCode(end.errorCode())).isEqualTo(Errors.NONE);
        assertThat(end.leaderEpoch()).isEqualTo(ORDERS_EPOCH);
        assertThat(end.endOffset()).isEqualTo(4);
        assertThat(epochEnd("orders", ORDERS_EPOCH + 3, -1).endOffset()).isEqualTo(-1);
    }

    @Test
    void offsetForLeaderEpochChecksLeadershipAndTheLeaderEpoch() {
        assertThat(Errors.forCode(epochEnd("orders", 1, ORDERS_EPOCH - 1).errorCode()))
                .isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(Errors.forCode(epochEnd("remote", 1, -1).errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    void endOffsetsFollowKafkasRules() {
        List<EpochEntry> epochs = List.of(new EpochEntry(2, 10), new EpochEntry(4, 30), new EpochEntry(7, 50));

        assertThat(EpochEnd.endOffsetFor(epochs, 7, 80)).isEqualTo(new EpochEnd(7, 80));
        assertThat(EpochEnd.endOffsetFor(epochs, 4, 80)).isEqualTo(new EpochEnd(4, 50));
        // An epoch this log never had: the largest below it, ending where the next one starts.
        assertThat(EpochEnd.endOffsetFor(epochs, 5, 80)).isEqualTo(new EpochEnd(4, 50));
        assertThat(EpochEnd.endOffsetFor(epochs, 1, 80)).isEqualTo(new EpochEnd(1, 10));
        assertThat(EpochEnd.endOffsetFor(epochs, 8, 80)).isEqualTo(EpochEnd.UNDEFINED);
        assertThat(EpochEnd.endOffsetFor(epochs, -1, 80)).isEqualTo(EpochEnd.UNDEFINED);
        assertThat(EpochEnd.endOffsetFor(List.of(), 3, 80)).isEqualTo(EpochEnd.UNDEFINED);
        assertThat(LeaderEpochs.epochAt(epochs, 35)).isEqualTo(4);
        assertThat(LeaderEpochs.epochAt(epochs, 5)).isEqualTo(-1);
    }

    // ---- DeleteRecords

    private DeleteRecordsResponseData.DeleteRecordsPartitionResult delete(String topic, long offset) {
        var data = DataPathFixture.deleteRecordsData(topic, offset);
        DeleteRecordsResponse response = broker.call(
                broker.deleteRecords,
                new DeleteRecordsRequest.Builder(data).build((short) 2),
                DeleteRecordsResponse.class);
        return DataPathFixture.onlyPartition(response);
    }

    @Test
    void deleteRecordsMovesTheLogStartAndFetchesBelowItAreOutOfRange() {
        broker.partition("orders", 0).appendAsLeader(records(5));

        var result = delete("orders", 3);

        assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE);
        assertThat(result.lowWatermark()).isEqualTo(3);
        assertThat(list("orders", ListOffsetsRequest.EARLIEST_TIMESTAMP).offset())
                .isEqualTo(3);
        FetchResponse fetch = broker.call(
                broker.fetch,
                fetchRequest(12, -1, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 1)),
                FetchResponse.class);
        var data = fetch.data().responses().getFirst().partitions().getFirst();
        assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        assertThat(data.logStartOffset()).isEqualTo(3);
    }

    @Test
    void deleteRecordsAtMinusOneDeletesUpToTheHighWatermark() {
        broker.partition("replicated", 0).appendAsLeader(records(4));
        broker.partition("replicated", 0).recordFollowerFetch(1, 2);

        var result = delete("replicated", -1);

        assertThat(result.lowWatermark()).isEqualTo(2);
    }

    @Test
    void deleteRecordsPastTheHighWatermarkIsOutOfRangeAndNonLeadersRefuse() {
        broker.partition("orders", 0).appendAsLeader(records(2));

        assertThat(Errors.forCode(delete("orders", 3).errorCode())).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        assertThat(Errors.forCode(delete("remote", 0).errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(broker.partition("orders", 0).log().logStartOffset()).isZero();
    }
}
