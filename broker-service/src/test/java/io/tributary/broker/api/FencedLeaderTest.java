package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.REPLICATED;
import static io.tributary.broker.api.DataPathFixture.fetchRequest;
import static io.tributary.broker.api.DataPathFixture.produceRequest;
import static io.tributary.broker.api.DataPathFixture.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.api.DataPathFixture.Fetch;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.replication.Partition;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker that is not active (fenced by the coordinators, or cut off from them past its session)
 * acknowledges no acks=all produce and does not advance a high watermark as leader.
 */
class FencedLeaderTest {

    @TempDir
    Path dir;

    private DataPathFixture broker;

    @BeforeEach
    void open() {
        broker = new DataPathFixture(dir);
    }

    @AfterEach
    void close() {
        broker.close();
    }

    @Test
    void aLeaderFencedWhileWaitingForTheIsrDoesNotAcknowledge() throws Exception {
        var pending = CompletableFuture.supplyAsync(() ->
                broker.produceOne(produceRequest(9, (short) -1, 60_000, "replicated", REPLICATED, 0, records(2))));
        Partition partition = broker.partition("replicated", 0);
        await().until(() -> partition.log().logEndOffset() == 2);

        broker.metadata.setActive(false);
        partition.recordFollowerFetch(1, 2);

        assertThat(Errors.forCode(pending.get().errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    void anIsrShrinkingBelowMinInsyncReplicasWhileWaitingIsNotEnoughReplicasAfterAppend() throws Exception {
        ClusterImage before = broker.metadata.image();
        ClusterImage strictTwo = withReplicated(before, 2, List.of(0, 1), 0);
        broker.replicas.onImage(before, strictTwo);
        broker.metadata.setImage(strictTwo);
        var pending = CompletableFuture.supplyAsync(() ->
                broker.produceOne(produceRequest(9, (short) -1, 60_000, "replicated", REPLICATED, 0, records(2))));
        Partition partition = broker.partition("replicated", 0);
        await().until(() -> partition.log().logEndOffset() == 2);

        ClusterImage shrunk = withReplicated(strictTwo, 2, List.of(0), 1);
        broker.replicas.onImage(strictTwo, shrunk);
        broker.metadata.setImage(shrunk);

        assertThat(Errors.forCode(pending.get().errorCode())).isEqualTo(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        assertThat(partition.highWatermark()).isEqualTo(2);
    }

    @Test
    void aLeaderDeposedWhileWaitingAnswersNotLeaderAtOnce() throws Exception {
        var pending = CompletableFuture.supplyAsync(() ->
                broker.produceOne(produceRequest(9, (short) -1, 60_000, "replicated", REPLICATED, 0, records(2))));
        Partition partition = broker.partition("replicated", 0);
        await().until(() -> partition.log().logEndOffset() == 2);

        ClusterImage before = broker.metadata.image();
        TopicInfo old = before.topic("replicated").orElseThrow();
        PartitionInfo p = old.partition(0).orElseThrow();
        TopicInfo moved = new TopicInfo(
                old.name(),
                old.id(),
                old.configs(),
                List.of(new PartitionInfo(
                        0, p.replicas(), 1, p.leaderEpoch() + 1, List.of(1), p.partitionEpoch() + 1)));
        Map<String, TopicInfo> topics = new HashMap<>(before.topics());
        topics.put(moved.name(), moved);
        ClusterImage after = new ClusterImage(before.version() + 1, before.brokers(), topics);
        broker.replicas.onImage(before, after);
        broker.metadata.setImage(after);

        // Well before the request's 60 s timeout: the deposed leader stops waiting.
        assertThat(Errors.forCode(
                        pending.get(20, java.util.concurrent.TimeUnit.SECONDS).errorCode()))
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    /** {@code image} with {@code replicated}'s min.insync.replicas, ISR and partition epoch replaced. */
    private static ClusterImage withReplicated(ClusterImage image, int minIsr, List<Integer> isr, int partitionEpoch) {
        TopicInfo old = image.topic("replicated").orElseThrow();
        PartitionInfo p = old.partition(0).orElseThrow();
        TopicInfo next = new TopicInfo(
                old.name(),
                old.id(),
                Map.of("min.insync.replicas", Integer.toString(minIsr)),
                List.of(new PartitionInfo(0, p.replicas(), p.leader(), p.leaderEpoch(), isr, partitionEpoch)));
        Map<String, TopicInfo> topics = new HashMap<>(image.topics());
        topics.put(next.name(), next);
        return new ClusterImage(image.version() + 1, image.brokers(), topics);
    }

    @Test
    void aFencedLeaderRefusesProduceAndItsFollowersFetchesSoItsHighWatermarkStays() {
        var appended = broker.produceOne(produceRequest(9, (short) 1, 30_000, "replicated", REPLICATED, 0, records(3)));
        assertThat(Errors.forCode(appended.errorCode())).isEqualTo(Errors.NONE);
        Partition partition = broker.partition("replicated", 0);
        assertThat(partition.highWatermark()).isZero();

        broker.metadata.setActive(false);

        var refused = broker.produceOne(produceRequest(9, (short) -1, 30_000, "replicated", REPLICATED, 0, records(1)));
        assertThat(Errors.forCode(refused.errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        FetchResponse fetched = broker.call(
                broker.fetch,
                fetchRequest(12, 1, 0, 1, 1024 * 1024, new Fetch("replicated", REPLICATED, 0, 3)),
                FetchResponse.class);
        assertThat(Errors.forCode(fetched.data()
                        .responses()
                        .getFirst()
                        .partitions()
                        .getFirst()
                        .errorCode()))
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(partition.highWatermark()).isZero();
        assertThat(partition.log().logEndOffset()).isEqualTo(3);
    }
}
