package io.tributary.broker.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.index.IndexStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ISR changes proposed by broker 0 (leader of {@code t-0}, replicas 0, 1, 2) to the in-memory
 * coordinator, on a manual clock, with proposals sent on the calling thread.
 */
class IsrManagerTest {

    private static final Duration LAG = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private final FakeControlPlane coordinator = new FakeControlPlane();
    private final ManualClock clock = new ManualClock(2_000_000);
    private final AtomicBoolean active = new AtomicBoolean(true);
    private ClusterImage image = ClusterImage.EMPTY;
    private IndexStore store;
    private ReplicaManager replicas;
    private IsrManager isr;

    @BeforeEach
    void open() {
        for (int id = 0; id < 3; id++) {
            Uuid incarnation = Uuid.randomUuid();
            coordinator.register(
                    id, incarnation, null, List.of(new BrokerEndpoint("PLAINTEXT", "127.0.0.1", 19092 + id)));
            coordinator.heartbeat(id, incarnation);
        }
        coordinator.createTopic("t", 1, 3, Map.of());
        store = IndexStore.open(dir.resolve("index"));
        replicas = new ReplicaManager(
                new ReplicaManagerConfig(
                        0, dir.resolve("data"), LogConfig.defaults(), 1, ProducerStateConfig.defaults()),
                store,
                clock,
                Runnable::run);
        isr = new IsrManager(
                0,
                coordinator,
                replicas::partitions,
                active::get,
                ReplicationConfig.defaults().withLagTime(LAG, Duration.ofSeconds(5)),
                Runnable::run);
        replicas.setReplicationListener(new ReplicaManager.ReplicationListener() {
            @Override
            public void replicasChanged(ClusterImage next, java.util.Collection<Partition> all) {}

            @Override
            public void followerMayJoinIsr(Partition partition, int replicaId) {
                isr.followerMayJoinIsr(partition, replicaId);
            }
        });
        followImage();
    }

    @AfterEach
    void close() {
        replicas.close();
        store.close();
    }

    /** The broker's metadata follower: the coordinator's newest state to the replica manager. */
    private void followImage() {
        ClusterImage next = image.apply(coordinator.fetchMetadata(OptionalLong.empty(), Duration.ZERO));
        replicas.onImage(image, next);
        image = next;
    }

    private Partition partition() {
        return replicas.partition("t", 0).orElseThrow();
    }

    @Test
    void aLaggingFollowerIsRemovedThroughTheCoordinatorAndAddedBackWhenItCatchesUp() {
        clock.advance(LAG.plusMillis(1));
        partition().recordFollowerFetch(1, 0);

        isr.checkIsr();

        assertThat(coordinator.alterPartitions()).isEqualTo(1);
        assertThat(coordinator.partitionInfo("t", 0).isr()).containsExactly(0, 1);
        assertThat(partition().info().isr()).containsExactly(0, 1);
        assertThat(partition().info().partitionEpoch()).isEqualTo(1);

        isr.checkIsr();
        assertThat(coordinator.alterPartitions()).as("nothing more to change").isEqualTo(1);

        // Follower 2 comes back at the high watermark: its fetch proposes it back.
        partition().recordFollowerFetch(2, 0);
        assertThat(coordinator.alterPartitions()).isEqualTo(2);
        assertThat(coordinator.partitionInfo("t", 0).isr()).containsExactly(0, 1, 2);
        assertThat(partition().info().isr()).containsExactly(0, 1, 2);
    }

    @Test
    void aStaleProposalIsNotRepeatedUntilTheImageMovesOn() {
        // The coordinators moved on (another write to the partition) without this broker knowing yet.
        coordinator.electLeader("t", 0, 0, List.of(0, 1, 2));
        clock.advance(LAG.plusMillis(1));
        partition().recordFollowerFetch(1, 0);

        isr.checkIsr();
        assertThat(coordinator.alterPartitions()).isEqualTo(1);
        assertThat(partition().info().isr()).containsExactly(0, 1, 2);
        isr.checkIsr();
        assertThat(coordinator.alterPartitions()).as("waits for the image").isEqualTo(1);

        followImage();
        clock.advance(LAG.plusMillis(1));
        partition().recordFollowerFetch(1, 0);
        isr.checkIsr();

        assertThat(coordinator.alterPartitions()).isEqualTo(2);
        assertThat(coordinator.partitionInfo("t", 0).isr()).containsExactly(0, 1);
        assertThat(partition().info().isr()).containsExactly(0, 1);
    }

    @Test
    void aFencedFollowerIsNotProposedBackIntoTheIsr() {
        clock.advance(LAG.plusMillis(1));
        partition().recordFollowerFetch(1, 0);
        isr.checkIsr();
        assertThat(partition().info().isr()).containsExactly(0, 1);

        isr.setEligible(broker -> broker != 2);
        partition().recordFollowerFetch(2, 0);
        isr.checkIsr();
        assertThat(coordinator.alterPartitions()).isEqualTo(1);

        isr.setEligible(broker -> true);
        partition().recordFollowerFetch(2, 0);
        assertThat(partition().info().isr()).containsExactly(0, 1, 2);
    }

    @Test
    void aFencedFollowerStillFetchingIsDroppedFromTheIsr() {
        partition().recordFollowerFetch(1, 0);
        partition().recordFollowerFetch(2, 0);
        isr.setEligible(broker -> broker != 1);

        isr.checkIsr();

        assertThat(coordinator.partitionInfo("t", 0).isr()).containsExactly(0, 2);
        assertThat(partition().info().isr()).containsExactly(0, 2);
    }

    @Test
    void anInactiveBrokerProposesNothing() {
        active.set(false);
        clock.advance(LAG.plusMillis(1));

        isr.checkIsr();

        assertThat(coordinator.alterPartitions()).isZero();
        assertThat(partition().info().isr()).containsExactly(0, 1, 2);
    }

    @Test
    void anUnreachableCoordinatorLeavesTheIsrAsItIsAndTheProposalIsRetriedAfterTheBackoff() {
        clock.advance(LAG.plusMillis(1));
        partition().recordFollowerFetch(1, 0);
        coordinator.partition(true);

        isr.checkIsr();
        assertThat(partition().info().isr()).containsExactly(0, 1, 2);
        assertThat(partition().pendingIsr()).isEmpty();

        coordinator.partition(false);
        clock.advance(Duration.ofSeconds(1));
        partition().recordFollowerFetch(1, 0);
        isr.checkIsr();
        assertThat(partition().info().isr()).containsExactly(0, 1);
    }
}
