package io.tributary.broker.replication;

import static io.tributary.broker.testing.FixedMetadataView.broker;
import static io.tributary.broker.testing.FixedMetadataView.image;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.index.EpochEntry;
import io.tributary.broker.log.index.IndexStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fetcher's requests and its handling of the leader's answers, without a network: broker 1
 * follows broker 0 (leader epoch 3) over a real log, and the answers are built by hand.
 */
class ReplicaFetcherTest {

    private static final Uuid TOPIC_ID = new Uuid(3, 3);
    private static final int LEADER_EPOCH = 3;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(5_000_000);
    private final ReplicationConfig config = ReplicationConfig.defaults();
    private IndexStore store;
    private ReplicaManager replicas;
    private Partition partition;
    private ReplicaFetcher fetcher;

    @BeforeEach
    void open() {
        store = IndexStore.open(dir.resolve("index"));
        replicas = new ReplicaManager(
                new ReplicaManagerConfig(
                        1, dir.resolve("data"), LogConfig.defaults(), 1, ProducerStateConfig.defaults()),
                store,
                clock,
                Runnable::run);
        replicas.onImage(
                ClusterImage.EMPTY,
                image(
                        1,
                        List.of(broker(0, 19092), broker(1, 19093)),
                        List.of(new TopicInfo(
                                "t",
                                TOPIC_ID,
                                Map.of(),
                                List.of(new PartitionInfo(0, List.of(0, 1), 0, LEADER_EPOCH, List.of(0, 1), 1))))));
        partition = replicas.partition("t", 0).orElseThrow();
        fetcher = new ReplicaFetcher(
                1,
                0,
                new BrokerEndpoint("PLAINTEXT", "127.0.0.1", 19092),
                config,
                endpoint -> {
                    throw new IOException("no network in this test");
                },
                clock);
        fetcher.assign(partition, LEADER_EPOCH);
    }

    @AfterEach
    void close() {
        replicas.close();
        store.close();
    }

    private ReplicaFetcher.PartitionFetch state() {
        return fetcher.states().get(partition.topicIdPartition());
    }

    /** A leader's batch: {@code count} records from {@code offset}, stamped with {@code epoch}. */
    private static MemoryRecords batch(long offset, int epoch, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(1000L + offset + i, ("v" + (offset + i)).getBytes(StandardCharsets.US_ASCII));
        }
        return MemoryRecords.withRecords(offset, Compression.NONE, epoch, records);
    }

    private static MemoryRecords concat(MemoryRecords... parts) {
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

    private FetchResponseData answer(FetchResponseData.PartitionData data) {
        var topic = new FetchResponseData.FetchableTopicResponse().setTopicId(TOPIC_ID);
        topic.partitions().add(data.setPartitionIndex(0));
        var response = new FetchResponseData();
        response.responses().add(topic);
        return response;
    }

    private void handle(FetchResponseData.PartitionData data) {
        fetcher.handleFetchResponse(Map.of(partition.topicIdPartition(), state()), answer(data));
    }

    /** Fills the follower's log: epoch 1 at [0, 10) in two batches, epoch 2 at [10, 15). */
    private void seedLog() {
        partition.appendAsFollower(concat(batch(0, 1, 5), batch(5, 1, 5), batch(10, 2, 5)), LEADER_EPOCH);
        assertThat(partition.log().logEndOffset()).isEqualTo(15);
    }

    @Test
    void theFetchCarriesTheReplicaIdTheEpochsTheLogEndAndTheByteBounds() {
        seedLog();
        FetchRequest request = fetcher.fetchRequest(List.of(state()));
        FetchRequestData data = request.data();
        assertThat(request.replicaId()).isEqualTo(1);
        assertThat(data.replicaState().replicaId()).isEqualTo(1);
        assertThat(data.maxBytes()).isEqualTo(config.fetchResponseMaxBytes());
        assertThat(data.maxWaitMs()).isEqualTo(500);
        FetchRequestData.FetchPartition fetch =
                data.topics().getFirst().partitions().getFirst();
        assertThat(data.topics().getFirst().topicId()).isEqualTo(TOPIC_ID);
        assertThat(fetch.fetchOffset()).isEqualTo(15);
        assertThat(fetch.currentLeaderEpoch()).isEqualTo(LEADER_EPOCH);
        assertThat(fetch.lastFetchedEpoch()).isEqualTo(2);
        assertThat(fetch.partitionMaxBytes()).isEqualTo(config.fetchMaxBytes());
    }

    @Test
    void recordsAreAppendedWithTheLeadersOffsetsACutBatchIsDroppedAndTheHighWatermarkIsBounded() {
        MemoryRecords whole = concat(batch(0, 2, 4), batch(4, 2, 4));
        ByteBuffer cut = whole.buffer().duplicate();
        cut.limit(cut.limit() - 7); // the leader's byte limit cut the second batch
        handle(new FetchResponseData.PartitionData()
                .setHighWatermark(8)
                .setLogStartOffset(0)
                .setRecords(MemoryRecords.readableRecords(cut.slice())));

        assertThat(partition.log().logEndOffset()).isEqualTo(4);
        assertThat(partition.highWatermark())
                .as("never above the follower's own log end")
                .isEqualTo(4);
        assertThat(partition.log().leaderEpochs()).containsExactly(new EpochEntry(2, 0));

        handle(new FetchResponseData.PartitionData()
                .setHighWatermark(8)
                .setLogStartOffset(0)
                .setRecords(batch(4, 2, 4)));
        assertThat(partition.log().logEndOffset()).isEqualTo(8);
        assertThat(partition.highWatermark()).isEqualTo(8);
    }

    @Test
    void aDivergingEpochTruncatesToWhereBothLogsAgree() {
        seedLog();
        state().truncating = false;
        var data = new FetchResponseData.PartitionData().setHighWatermark(3).setLogStartOffset(0);
        data.divergingEpoch().setEpoch(1).setEndOffset(5);
        handle(data);

        assertThat(partition.log().logEndOffset()).isEqualTo(5);
        assertThat(partition.log().leaderEpochs()).containsExactly(new EpochEntry(1, 0));
        assertThat(state().truncating).isFalse();
    }

    @Test
    void outOfRangeBelowTheLeadersLogStartRestartsTheLogThere() {
        seedLog();
        handle(new FetchResponseData.PartitionData()
                .setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code())
                .setHighWatermark(120)
                .setLogStartOffset(100));

        assertThat(partition.log().logStartOffset()).isEqualTo(100);
        assertThat(partition.log().logEndOffset()).isEqualTo(100);
        assertThat(partition.highWatermark()).isEqualTo(100);
    }

    @Test
    void outOfRangeAboveTheLeadersEndTruncatesToTheLeadersHighWatermark() {
        seedLog();
        state().truncating = false;
        handle(new FetchResponseData.PartitionData()
                .setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code())
                .setHighWatermark(10)
                .setLogStartOffset(0));

        assertThat(partition.log().logEndOffset()).isEqualTo(10);
        assertThat(partition.highWatermark()).isLessThanOrEqualTo(10);
    }

    @Test
    void aPartitionErrorBacksOffThatPartitionOnly() {
        seedLog();
        handle(new FetchResponseData.PartitionData().setErrorCode(Errors.FENCED_LEADER_EPOCH.code()));

        assertThat(state().retryAtMs)
                .isEqualTo(clock.millis() + config.fetchBackoff().toMillis());
        assertThat(partition.log().logEndOffset()).isEqualTo(15);
    }

    @Test
    void anAnswerForAPartitionReassignedMeanwhileIsDropped() {
        ReplicaFetcher.PartitionFetch old = state();
        fetcher.assign(partition, LEADER_EPOCH + 1);
        fetcher.handleFetchResponse(
                Map.of(partition.topicIdPartition(), old),
                answer(new FetchResponseData.PartitionData().setHighWatermark(4).setRecords(batch(0, 3, 4))));

        assertThat(partition.log().logEndOffset()).isZero();
    }

    @Test
    void offsetForLeaderEpochAsksWithTheLatestEpochAndTruncatesToTheLeadersEnd() {
        seedLog();
        var request = fetcher.epochRequest(List.of(state())).data();
        OffsetForLeaderEpochRequestData.OffsetForLeaderPartition asked =
                request.topics().find("t").partitions().getFirst();
        assertThat(request.replicaId()).isEqualTo(1);
        assertThat(asked.leaderEpoch()).isEqualTo(2);
        assertThat(asked.currentLeaderEpoch()).isEqualTo(LEADER_EPOCH);

        // The leader never had epoch 2: its largest epoch at most 2 is 1, which ends at 10 there.
        fetcher.handleEpochResponse(List.of(state()), epochAnswer(1, 10));

        assertThat(partition.log().logEndOffset()).isEqualTo(10);
        assertThat(state().truncating).isFalse();
    }

    @Test
    void anEpochTheFollowerNeverHadTruncatesToItsOwnOlderEpochAndAsksAgain() {
        partition.appendAsFollower(concat(batch(0, 1, 5), batch(5, 1, 5), batch(10, 4, 5)), LEADER_EPOCH);

        // The leader answers epoch 2 (ending at 12): this log only has 1 (ending at 10) below it.
        fetcher.handleEpochResponse(List.of(state()), epochAnswer(2, 12));

        assertThat(partition.log().logEndOffset()).isEqualTo(10);
        assertThat(state().truncating).as("not settled: ask again with epoch 1").isTrue();

        fetcher.handleEpochResponse(List.of(state()), epochAnswer(1, 10));
        assertThat(partition.log().logEndOffset()).isEqualTo(10);
        assertThat(state().truncating).isFalse();
    }

    @Test
    void theTruncationRuleFollowsKafka() {
        seedLog();
        assertThat(ReplicaFetcher.truncationOffset(partition, 2, 20))
                .isEqualTo(new ReplicaFetcher.Truncation(15, true));
        assertThat(ReplicaFetcher.truncationOffset(partition, 2, 12))
                .isEqualTo(new ReplicaFetcher.Truncation(12, true));
        assertThat(ReplicaFetcher.truncationOffset(partition, -1, 7)).isEqualTo(new ReplicaFetcher.Truncation(7, true));
        assertThat(ReplicaFetcher.truncationOffset(partition, 0, 3))
                .as("below every epoch of this log")
                .isEqualTo(new ReplicaFetcher.Truncation(0, true));
        assertThat(ReplicaFetcher.truncationOffset(partition, 5, -1))
                .as("undefined: the high watermark")
                .isEqualTo(new ReplicaFetcher.Truncation(partition.highWatermark(), true));
    }

    @Test
    void aFetcherBacksOffWhileItsLeaderIsUnreachableAndStops() {
        AtomicInteger attempts = new AtomicInteger();
        ReplicaFetcher unreachable = new ReplicaFetcher(
                1,
                0,
                new BrokerEndpoint("PLAINTEXT", "127.0.0.1", 19092),
                config.withFetchTiming(Duration.ofMillis(100), Duration.ofMillis(20)),
                endpoint -> {
                    attempts.incrementAndGet();
                    throw new IOException("connection refused");
                },
                InstantSource.system());
        unreachable.assign(partition, LEADER_EPOCH);
        unreachable.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> attempts.get() >= 3);

        unreachable.stop();

        assertThat(unreachable.isAlive()).isFalse();
        int after = attempts.get();
        assertThat(partition.log().logEndOffset()).isZero();
        assertThat(attempts.get()).isEqualTo(after);
    }

    private static OffsetForLeaderEpochResponseData epochAnswer(int epoch, long endOffset) {
        var result = new OffsetForLeaderEpochResponseData.EpochEndOffset()
                .setPartition(0)
                .setLeaderEpoch(epoch)
                .setEndOffset(endOffset);
        var topic = new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic("t");
        topic.partitions().add(result);
        var response = new OffsetForLeaderEpochResponseData();
        response.topics().add(topic);
        return response;
    }
}
