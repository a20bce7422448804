package io.tributary.broker.replication;

import static io.tributary.broker.testing.FixedMetadataView.broker;
import static io.tributary.broker.testing.FixedMetadataView.image;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.index.IndexStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Broker 2's fetchers following the image: one per leader, reassigned as leaders move. */
class ReplicaFetcherManagerTest {

    private static final Uuid TOPIC_ID = new Uuid(5, 5);

    @TempDir
    Path dir;

    private final List<BrokerEndpoint> connections = new CopyOnWriteArrayList<>();
    private IndexStore store;
    private ReplicaManager replicas;
    private ReplicaFetcherManager fetchers;
    private ClusterImage current = ClusterImage.EMPTY;

    @BeforeEach
    void open() {
        store = IndexStore.open(dir.resolve("index"));
        replicas = new ReplicaManager(
                new ReplicaManagerConfig(
                        2, dir.resolve("data"), LogConfig.defaults(), 1, ProducerStateConfig.defaults()),
                store,
                InstantSource.system(),
                Runnable::run);
        fetchers = new ReplicaFetcherManager(
                2,
                ReplicationConfig.defaults().withFetchTiming(Duration.ofMillis(100), Duration.ofMillis(50)),
                endpoint -> {
                    connections.add(endpoint);
                    throw new IOException("no network in this test");
                },
                InstantSource.system(),
                ReplicationMetrics.NONE);
        replicas.setReplicationListener(new ReplicaManager.ReplicationListener() {
            @Override
            public void replicasChanged(ClusterImage image, Collection<Partition> all) {
                fetchers.replicasChanged(image, all);
            }

            @Override
            public void followerMayJoinIsr(Partition partition, int replicaId) {}
        });
    }

    @AfterEach
    void close() {
        fetchers.close();
        replicas.close();
        store.close();
    }

    private void follow(List<BrokerInfo> brokers, int leaderOf0, int epochOf0, int leaderOf1) {
        ClusterImage next = image(
                current.version() + 1,
                brokers,
                List.of(new TopicInfo(
                        "t",
                        TOPIC_ID,
                        Map.of(),
                        List.of(
                                new PartitionInfo(0, List.of(0, 1, 2), leaderOf0, epochOf0, List.of(0, 1, 2), epochOf0),
                                new PartitionInfo(1, List.of(0, 1, 2), leaderOf1, 0, List.of(0, 1, 2), 0)))));
        replicas.onImage(current, next);
        current = next;
    }

    private static TopicIdPartition tp(int partition) {
        return new TopicIdPartition(TOPIC_ID, partition, "t");
    }

    @Test
    void oneFetcherPerLeaderFollowingLeadershipAndEndpoints() {
        List<BrokerInfo> brokers = List.of(broker(0, 19092), broker(1, 19093), broker(2, 19094));
        follow(brokers, 0, 0, 1);
        assertThat(fetchers.assignments()).containsOnlyKeys(0, 1);
        assertThat(fetchers.assignments().get(0)).containsExactly(tp(0));
        assertThat(fetchers.assignments().get(1)).containsExactly(tp(1));

        // Partition 1 moves to broker 0: broker 1's fetcher has nothing left and stops.
        follow(brokers, 0, 0, 0);
        assertThat(fetchers.assignments()).containsOnlyKeys(0);
        assertThat(fetchers.assignments().get(0)).containsExactlyInAnyOrder(tp(0), tp(1));

        // Broker 0 restarts on another port: its fetcher is replaced and connects there.
        List<BrokerInfo> moved = List.of(broker(0, 29092), broker(1, 19093), broker(2, 19094));
        follow(moved, 0, 0, 0);
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> connections.stream().anyMatch(e -> e.port() == 29092));
        assertThat(fetchers.assignments().get(0)).containsExactlyInAnyOrder(tp(0), tp(1));

        // This broker becomes partition 0's leader: no fetching it.
        follow(moved, 2, 1, 0);
        assertThat(fetchers.assignments()).containsOnlyKeys(0);
        assertThat(fetchers.assignments().get(0)).containsExactly(tp(1));

        // Every partition led here: no fetcher at all.
        follow(moved, 2, 1, 2);
        assertThat(fetchers.assignments()).isEmpty();
    }
}
