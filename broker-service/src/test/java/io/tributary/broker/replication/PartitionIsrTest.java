package io.tributary.broker.replication;

import static io.tributary.broker.testing.FixedMetadataView.broker;
import static io.tributary.broker.testing.FixedMetadataView.image;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.index.IndexStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The leader's follower tracking, high watermark and ISR proposals, on a manual clock. */
class PartitionIsrTest {

    private static final Uuid TOPIC_ID = new Uuid(7, 7);
    private static final long LAG_MS = 1_000;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000_000);
    private final List<Integer> joinCalls = new ArrayList<>();
    private IndexStore store;
    private ReplicaManager replicas;
    private Partition partition;

    @BeforeEach
    void open() {
        store = IndexStore.open(dir.resolve("index"));
        replicas = new ReplicaManager(
                new ReplicaManagerConfig(
                        0, dir.resolve("data"), LogConfig.defaults(), 1, ProducerStateConfig.defaults()),
                store,
                clock,
                Runnable::run);
        replicas.setReplicationListener(new ReplicaManager.ReplicationListener() {
            @Override
            public void replicasChanged(ClusterImage image, java.util.Collection<Partition> all) {}

            @Override
            public void followerMayJoinIsr(Partition p, int replicaId) {
                joinCalls.add(replicaId);
            }
        });
        replicas.onImage(
                ClusterImage.EMPTY, imageWith(new PartitionInfo(0, List.of(0, 1, 2), 0, 4, List.of(0, 1, 2), 9)));
        partition = replicas.partition("t", 0).orElseThrow();
    }

    @AfterEach
    void close() {
        replicas.close();
        store.close();
    }

    private static ClusterImage imageWith(PartitionInfo info) {
        return image(
                1,
                List.of(broker(0, 19092), broker(1, 19093), broker(2, 19094)),
                List.of(new TopicInfo("t", TOPIC_ID, Map.of(), List.of(info))));
    }

    private void append(int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(("v" + i).getBytes(StandardCharsets.US_ASCII));
        }
        partition.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records));
    }

    @Test
    void theHighWatermarkIsTheSmallestLogEndOffsetOfTheIsrAndNeverGoesBack() {
        append(10);
        assertThat(partition.highWatermark()).isZero();

        partition.recordFollowerFetch(1, 10);
        assertThat(partition.highWatermark())
                .as("follower 2 has not fetched yet")
                .isZero();
        partition.recordFollowerFetch(2, 6);
        assertThat(partition.highWatermark()).isEqualTo(6);
        partition.recordFollowerFetch(2, 10);
        assertThat(partition.highWatermark()).isEqualTo(10);

        partition.recordFollowerFetch(2, 4); // truncated follower: reports less, the high watermark stays
        assertThat(partition.highWatermark()).isEqualTo(10);
        partition.recordFollowerFetch(2, 11); // past the log end: ignored
        partition.recordFollowerFetch(7, 10); // not a replica: ignored
        assertThat(partition.highWatermark()).isEqualTo(10);
    }

    @Test
    void aFollowerNotCaughtUpForTheLagTimeIsProposedOutAndTheProposalAppliesOnlyOnceCommitted() {
        append(10);
        partition.recordFollowerFetch(1, 10);
        partition.recordFollowerFetch(2, 10);
        assertThat(partition.shrinkCandidate(LAG_MS)).isEmpty();

        clock.advance(Duration.ofMillis(600));
        append(5);
        partition.recordFollowerFetch(1, 15); // caught up now
        partition.recordFollowerFetch(2, 12); // behind the log end of 15, but at the previous fetch's 10
        clock.advance(Duration.ofMillis(300));
        assertThat(partition.shrinkCandidate(LAG_MS))
                .as("follower 2 counts as caught up at its previous fetch, 900 ms ago")
                .isEmpty();

        clock.advance(Duration.ofMillis(500));
        partition.recordFollowerFetch(1, 15);
        assertThat(partition.shrinkCandidate(LAG_MS)).contains(List.of(0, 1));

        PartitionInfo basis = partition.beginIsrChange(List.of(0, 1)).orElseThrow();
        assertThat(basis.partitionEpoch()).isEqualTo(9);
        assertThat(partition.beginIsrChange(List.of(0, 1)))
                .as("one in flight at a time")
                .isEmpty();
        assertThat(partition.info().isr()).as("not applied before the commit").containsExactly(0, 1, 2);
        assertThat(partition.highWatermark())
                .as("the maximal ISR still counts follower 2")
                .isEqualTo(12);

        partition.completeIsrChange(basis, new PartitionInfo(0, List.of(0, 1, 2), 0, 4, List.of(0, 1), 10));
        assertThat(partition.info().isr()).containsExactly(0, 1);
        assertThat(partition.highWatermark()).isEqualTo(15);
        assertThat(partition.pendingIsr()).isEmpty();

        // The image still at the older partition epoch does not bring follower 2 back.
        partition.update(new PartitionInfo(0, List.of(0, 1, 2), 0, 4, List.of(0, 1, 2), 9), 1);
        assertThat(partition.info().isr()).containsExactly(0, 1);
        assertThat(partition.isUnderReplicated()).isTrue();
    }

    @Test
    void aFollowerOutsideTheIsrThatReachesTheHighWatermarkIsProposedIn() {
        replicas.onImage(
                ClusterImage.EMPTY, imageWith(new PartitionInfo(0, List.of(0, 1, 2), 0, 4, List.of(0, 1), 10)));
        append(10);
        partition.recordFollowerFetch(1, 10);
        assertThat(partition.highWatermark()).isEqualTo(10);

        partition.recordFollowerFetch(2, 7);
        assertThat(joinCalls).isEmpty();
        assertThat(partition.expandCandidate(LAG_MS)).isEmpty();

        partition.recordFollowerFetch(2, 10);
        assertThat(joinCalls).containsExactly(2);
        assertThat(partition.expandCandidate(LAG_MS)).contains(List.of(0, 1, 2));

        // A follower that went away is not added back from what it last reported.
        clock.advance(Duration.ofMillis(LAG_MS + 1));
        assertThat(partition.expandCandidate(LAG_MS)).isEmpty();
    }

    @Test
    void aStaleProposalWaitsForAnotherPartitionEpochAndAFailedOneForTheBackoff() {
        append(4);
        clock.advance(Duration.ofMillis(LAG_MS + 1));
        partition.recordFollowerFetch(1, 4);
        PartitionInfo basis = partition
                .beginIsrChange(partition.shrinkCandidate(LAG_MS).orElseThrow())
                .orElseThrow();

        partition.failIsrChange(basis, true, 100);
        clock.advance(Duration.ofMillis(200));
        assertThat(partition.shrinkCandidate(LAG_MS))
                .as("stale: wait for the image")
                .isEmpty();

        partition.update(new PartitionInfo(0, List.of(0, 1, 2), 0, 4, List.of(0, 1, 2), 11), 1);
        PartitionInfo next = partition
                .beginIsrChange(partition.shrinkCandidate(LAG_MS).orElseThrow())
                .orElseThrow();
        assertThat(next.partitionEpoch()).isEqualTo(11);

        partition.failIsrChange(next, false, 100);
        assertThat(partition.shrinkCandidate(LAG_MS)).as("backing off").isEmpty();
        clock.advance(Duration.ofMillis(100));
        assertThat(partition.shrinkCandidate(LAG_MS)).contains(List.of(0, 1));
    }

    @Test
    void theAnswerToAProposalOfAnEarlierEpochLeavesTheCurrentProposalInFlight() {
        append(4);
        clock.advance(Duration.ofMillis(LAG_MS + 1));
        PartitionInfo old = partition.beginIsrChange(List.of(0, 1)).orElseThrow();

        partition.update(new PartitionInfo(0, List.of(0, 1, 2), 0, 5, List.of(0, 1, 2), 12), 1);
        clock.advance(Duration.ofMillis(LAG_MS + 1));
        PartitionInfo current = partition.beginIsrChange(List.of(0)).orElseThrow();
        partition.failIsrChange(old, true, 100);
        partition.completeIsrChange(old, new PartitionInfo(0, List.of(0, 1, 2), 0, 4, List.of(0, 1), 10));

        assertThat(partition.pendingIsr()).contains(List.of(0));
        assertThat(partition.info().isr()).containsExactly(0, 1, 2);
        assertThat(partition.beginIsrChange(List.of(0, 1)))
                .as("still one in flight")
                .isEmpty();
        partition.completeIsrChange(current, new PartitionInfo(0, List.of(0, 1, 2), 0, 5, List.of(0), 13));
        assertThat(partition.info().isr()).containsExactly(0);
        assertThat(partition.pendingIsr()).isEmpty();
    }

    /**
     * An expansion whose AlterPartition answer was lost may be committed: until an image settles it,
     * the coordinators may hold an ISR with the new member, and elect it if this leader fails. The
     * high watermark (what acks=all acknowledges) must wait for that member meanwhile, as it did
     * while the proposal was in flight (Kafka keeps such a change pending until it knows).
     */
    /** ISR [0, 1] at partition epoch 10, both followers at 10; [0, 1, 2] proposed, no answer. */
    private void proposeAndLoseExpansionOfBroker2() {
        partition.update(new PartitionInfo(0, List.of(0, 1, 2), 0, 4, List.of(0, 1), 10), 1);
        append(10);
        partition.recordFollowerFetch(1, 10);
        partition.recordFollowerFetch(2, 10);
        assertThat(partition.highWatermark()).isEqualTo(10);
        PartitionInfo basis = partition.beginIsrChange(List.of(0, 1, 2)).orElseThrow();
        partition.failIsrChange(basis, false, 100);
    }

    @Test
    void anExpansionWhoseAnswerWasLostCountsForTheHighWatermarkUntilAnImageSettlesIt() {
        // The coordinators commit ISR [0, 1, 2] at partition epoch 11; the answer is lost.
        proposeAndLoseExpansionOfBroker2();

        append(5);
        partition.recordFollowerFetch(1, 15);
        assertThat(partition.highWatermark())
                .as("broker 2 may be in the committed ISR: the high watermark waits for it")
                .isEqualTo(10);
        partition.recordFollowerFetch(2, 12);
        assertThat(partition.highWatermark()).isEqualTo(12);

        // Retried, the same proposal is stale (it was committed): still unknown here.
        clock.advance(Duration.ofMillis(100));
        PartitionInfo retry = partition.beginIsrChange(List.of(0, 1, 2)).orElseThrow();
        partition.failIsrChange(retry, true, 100);
        append(3);
        partition.recordFollowerFetch(1, 18);
        assertThat(partition.highWatermark()).isEqualTo(12);

        // The image settles it either way; here: not committed after all, ISR [0, 1] at epoch 11.
        partition.update(new PartitionInfo(0, List.of(0, 1, 2), 0, 4, List.of(0, 1), 11), 1);
        assertThat(partition.highWatermark()).isEqualTo(18);
    }

    @Test
    void aLaggingMemberOfAnUnansweredExpansionIsProposedOutAndTheAnswerSettlesIt() {
        proposeAndLoseExpansionOfBroker2(); // lost on the way: not committed after all
        append(5);
        partition.recordFollowerFetch(1, 15);
        assertThat(partition.highWatermark()).isEqualTo(10);

        clock.advance(Duration.ofMillis(LAG_MS + 1));
        partition.recordFollowerFetch(1, 15);
        assertThat(partition.shrinkCandidate(LAG_MS))
                .as("broker 2 lags: proposed out, which asks the coordinators")
                .contains(List.of(0, 1));
        PartitionInfo shrink = partition.beginIsrChange(List.of(0, 1)).orElseThrow();
        // The coordinators still have ISR [0, 1] at partition epoch 10, and answer so.
        partition.completeIsrChange(shrink, new PartitionInfo(0, List.of(0, 1, 2), 0, 4, List.of(0, 1), 10));
        assertThat(partition.highWatermark()).isEqualTo(15);
        assertThat(partition.shrinkCandidate(LAG_MS)).isEmpty();
    }

    @Test
    void aNewLeaderEpochGivesTheIsrMembersTheLagTimeToShowUp() {
        append(3);
        clock.advance(Duration.ofMillis(LAG_MS + 1));
        partition.update(new PartitionInfo(0, List.of(0, 1, 2), 0, 5, List.of(0, 1, 2), 12), 1);
        assertThat(partition.shrinkCandidate(LAG_MS)).isEmpty();
        clock.advance(Duration.ofMillis(LAG_MS + 1));
        assertThat(partition.shrinkCandidate(LAG_MS)).contains(List.of(0));
    }
}
