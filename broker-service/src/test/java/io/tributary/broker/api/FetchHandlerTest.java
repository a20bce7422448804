package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.ORDERS;
import static io.tributary.broker.api.DataPathFixture.ORDERS_EPOCH;
import static io.tributary.broker.api.DataPathFixture.REMOTE;
import static io.tributary.broker.api.DataPathFixture.REPLICATED;
import static io.tributary.broker.api.DataPathFixture.fetchRequest;
import static io.tributary.broker.api.DataPathFixture.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.api.DataPathFixture.Fetch;
import io.tributary.broker.replication.Partition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FetchHandlerTest {

    static final int CONSUMER = -1;

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

    private FetchResponse fetch(FetchRequest request) {
        return broker.call(broker.fetch, request, FetchResponse.class);
    }

    private static List<FetchResponseData.PartitionData> partitions(FetchResponse response) {
        List<FetchResponseData.PartitionData> out = new ArrayList<>();
        response.data().responses().forEach(t -> out.addAll(t.partitions()));
        return out;
    }

    private static FetchResponseData.PartitionData only(FetchResponse response) {
        List<FetchResponseData.PartitionData> all = partitions(response);
        assertThat(all).hasSize(1);
        return all.getFirst();
    }

    static List<Long> offsets(FetchResponseData.PartitionData data) {
        List<Long> offsets = new ArrayList<>();
        for (RecordBatch batch : ((Records) data.records()).batches()) {
            for (Record record : batch) {
                offsets.add(record.offset());
            }
        }
        return offsets;
    }

    private void appendToOrders(int partition, int... batchSizes) {
        for (int size : batchSizes) {
            broker.partition("orders", partition).appendAsLeader(records(size));
        }
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @ValueSource(ints = {4, 11, 12, 13, 15, 17, 18})
    void returnsTheRecordsFromTheFetchOffsetAsSegmentFileRegions(int version) {
        appendToOrders(0, 3, 2);

        var data = only(
                fetch(fetchRequest(version, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 1))));

        assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.NONE);
        assertThat(data.records()).isInstanceOf(FileRecords.class);
        assertThat(offsets(data)).containsSequence(1L, 2L, 3L, 4L);
        assertThat(data.highWatermark()).isEqualTo(5);
        assertThat(data.lastStableOffset()).isEqualTo(5);
        assertThat(data.logStartOffset()).isZero();
    }

    @Test
    void declinesFetchSessions() {
        var response = fetch(fetchRequest(12, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0)));
        assertThat(response.sessionId()).isZero();

        FetchRequestData incremental = fetchRequest(12, CONSUMER, 0, 0, Integer.MAX_VALUE)
                .data()
                .setSessionId(1234)
                .setSessionEpoch(1);
        assertThat(fetch(new FetchRequest(incremental, (short) 12)).error())
                .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
    }

    @Test
    void consumersSeeOnlyRecordsBelowTheHighWatermarkAndFollowersMoveIt() {
        Partition partition = broker.partition("replicated", 0);
        partition.appendAsLeader(records(3));

        var before = only(
                fetch(fetchRequest(12, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("replicated", REPLICATED, 0, 0))));
        assertThat(offsets(before)).isEmpty();
        assertThat(before.highWatermark()).isZero();

        var follower =
                only(fetch(fetchRequest(12, 1, 0, 0, Integer.MAX_VALUE, new Fetch("replicated", REPLICATED, 0, 0))));
        assertThat(offsets(follower)).containsExactly(0L, 1L, 2L);
        // The follower's next fetch offset is its log end offset: the high watermark follows.
        fetch(fetchRequest(15, 1, 0, 0, Integer.MAX_VALUE, new Fetch("replicated", REPLICATED, 0, 3)));
        assertThat(partition.highWatermark()).isEqualTo(3);

        var after = only(
                fetch(fetchRequest(12, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("replicated", REPLICATED, 0, 0))));
        assertThat(offsets(after)).containsExactly(0L, 1L, 2L);
    }

    @Test
    void aBrokerThatHoldsNoReplicaCannotFetchAsAReplica() {
        broker.partition("replicated", 0).appendAsLeader(records(3));

        var data = only(fetch(fetchRequest(12, 7, 0, 0, Integer.MAX_VALUE, new Fetch("replicated", REPLICATED, 0, 0))));

        assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(broker.partition("replicated", 0).highWatermark()).isZero();
    }

    @Test
    void aFetcherWhoseLastEpochThisLogNeverHadLearnsWhereToTruncate() {
        appendToOrders(0, 3);
        FetchRequestData data = fetchRequest(
                        12, CONSUMER, 60_000, 1, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 3))
                .data();
        // The fetcher's last batch came from epoch 4, which this log (epoch 5 from offset 0) never had.
        data.topics().getFirst().partitions().getFirst().setLastFetchedEpoch(ORDERS_EPOCH - 1);

        var diverged = only(fetch(new FetchRequest(data, (short) 12)));

        assertThat(Errors.forCode(diverged.errorCode())).isEqualTo(Errors.NONE);
        assertThat(diverged.divergingEpoch().epoch()).isEqualTo(ORDERS_EPOCH - 1);
        assertThat(diverged.divergingEpoch().endOffset()).isZero();
        assertThat(offsets(diverged)).isEmpty();

        data.topics()
                .getFirst()
                .partitions()
                .getFirst()
                .setLastFetchedEpoch(ORDERS_EPOCH)
                .setFetchOffset(1);
        var consistent = only(fetch(new FetchRequest(data, (short) 12)));
        assertThat(consistent.divergingEpoch().epoch()).isEqualTo(-1);
        assertThat(offsets(consistent)).containsExactly(0L, 1L, 2L);
    }

    @Test
    void aLongPollReturnsWhenDataArrives() throws Exception {
        Partition partition = broker.partition("orders", 0);
        var pending = CompletableFuture.supplyAsync(() ->
                fetch(fetchRequest(12, CONSUMER, 60_000, 1, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0))));
        // The fetch is parked on the partition's change signal.
        await().until(() -> partition.changeSignal().getNumberOfDependents() > 0);
        assertThat(pending).isNotDone();

        partition.appendAsLeader(records(2));

        assertThat(offsets(only(pending.get()))).containsExactly(0L, 1L);
    }

    @Test
    void aLongPollWaitsUntilMinBytesAreThere() throws Exception {
        Partition partition = broker.partition("orders", 0);
        int oneBatch = records(1).sizeInBytes();
        var pending = CompletableFuture.supplyAsync(() -> fetch(fetchRequest(
                12, CONSUMER, 60_000, oneBatch + 1, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0))));
        await().until(() -> partition.changeSignal().getNumberOfDependents() > 0);

        partition.appendAsLeader(records(1));
        // Too few bytes: the fetch read them and parked again on the next signal.
        await().until(() -> partition.changeSignal().getNumberOfDependents() > 0);
        assertThat(pending).isNotDone();

        partition.appendAsLeader(records(1));

        assertThat(offsets(only(pending.get()))).containsExactly(0L, 1L);
    }

    @Test
    void withoutMaxWaitTheAnswerComesAtOnceEvenBelowMinBytes() {
        var data = only(
                fetch(fetchRequest(12, CONSUMER, 0, 1_000_000, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0))));

        assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.NONE);
        assertThat(offsets(data)).isEmpty();
    }

    @Test
    void anOffsetOutsideTheLogIsOutOfRangeWithTheLogBounds() {
        appendToOrders(0, 2);

        var data = only(
                fetch(fetchRequest(12, CONSUMER, 60_000, 1, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 50))));

        assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        assertThat(data.highWatermark()).isEqualTo(2);
        assertThat(data.logStartOffset()).isZero();
    }

    @Test
    void theClientsLeaderEpochIsChecked() {
        var fenced = only(fetch(fetchRequest(
                12, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0, 1024, ORDERS_EPOCH - 1))));
        var unknown = only(fetch(fetchRequest(
                12, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0, 1024, ORDERS_EPOCH + 1))));
        var current = only(fetch(fetchRequest(
                12, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0, 1024, ORDERS_EPOCH))));

        assertThat(Errors.forCode(fenced.errorCode())).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(Errors.forCode(unknown.errorCode())).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);
        assertThat(Errors.forCode(current.errorCode())).isEqualTo(Errors.NONE);
    }

    @Test
    void aFollowerReplicaAnswersNotLeaderWithTheCurrentLeader() {
        var data = only(fetch(fetchRequest(12, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("remote", REMOTE, 0, 0))));

        assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(data.currentLeader().leaderId()).isEqualTo(1);
        assertThat(data.currentLeader().leaderEpoch()).isEqualTo(2);
    }

    @Test
    void unknownTopicIdsAndNamesAreNamed() {
        var byId =
                only(fetch(fetchRequest(13, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("", new Uuid(5, 5), 0, 0))));
        var byName = only(fetch(fetchRequest(12, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("nope", null, 0, 0))));

        assertThat(Errors.forCode(byId.errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
        assertThat(Errors.forCode(byName.errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void theFirstBatchComesWholeEvenPastThePartitionLimit() {
        appendToOrders(0, 5, 5);
        int firstBatch = records(5).sizeInBytes();

        var data = only(
                fetch(fetchRequest(12, CONSUMER, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0, 10, -1))));

        assertThat(((Records) data.records()).sizeInBytes()).isEqualTo(firstBatch);
        assertThat(offsets(data)).containsExactly(0L, 1L, 2L, 3L, 4L);
    }

    @Test
    void theResponseLimitLeavesLaterPartitionsEmptyOnceSpent() {
        appendToOrders(0, 5);
        appendToOrders(1, 5);
        int batch = records(5).sizeInBytes();

        var response = fetch(fetchRequest(
                12, CONSUMER, 0, 0, batch, new Fetch("orders", ORDERS, 0, 0), new Fetch("orders", ORDERS, 1, 0)));

        List<FetchResponseData.PartitionData> all = partitions(response);
        assertThat(offsets(all.get(0))).hasSize(5);
        assertThat(offsets(all.get(1))).isEmpty();
        assertThat(Errors.forCode(all.get(1).errorCode())).isEqualTo(Errors.NONE);
    }
}
