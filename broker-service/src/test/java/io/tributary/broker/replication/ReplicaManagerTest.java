package io.tributary.broker.replication;

import static io.tributary.broker.testing.FixedMetadataView.broker;
import static io.tributary.broker.testing.FixedMetadataView.image;
import static io.tributary.broker.testing.FixedMetadataView.topic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.MessageTimestampType;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.cleaner.CleanerConfig;
import io.tributary.broker.log.cleaner.CorruptSegments;
import io.tributary.broker.log.cleaner.LogCleaner;
import io.tributary.broker.log.index.IndexStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaManagerTest {

    static final int ME = 1;
    static final Uuid ORDERS = new Uuid(1, 1);

    @TempDir
    Path dir;

    private IndexStore store;
    private ReplicaManager manager;
    private final List<Runnable> deletions = new ArrayList<>();
    private ClusterImage current = ClusterImage.EMPTY;

    @BeforeEach
    void start() {
        store = IndexStore.open(dir.resolve("index"));
        manager = newManager();
    }

    private ReplicaManager newManager() {
        var config = new ReplicaManagerConfig(
                ME, dir.resolve("data"), LogConfig.defaults(), 1, ProducerStateConfig.defaults());
        return new ReplicaManager(config, store, Clock.systemUTC(), deletions::add);
    }

    @AfterEach
    void stop() {
        manager.close();
        store.close();
    }

    private void apply(TopicInfo... topics) {
        ClusterImage next = image(current.version() + 1, List.of(broker(0, 9092), broker(1, 9093)), List.of(topics));
        manager.onImage(current, next);
        current = next;
    }

    private void runDeletions() {
        List<Runnable> pending = List.copyOf(deletions);
        deletions.clear();
        pending.forEach(Runnable::run);
    }

    static MemoryRecords records(int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(1000L + i, ("v" + i).getBytes(StandardCharsets.US_ASCII));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    static TopicInfo withPartition(TopicInfo topic, PartitionInfo partition) {
        List<PartitionInfo> partitions = new ArrayList<>(topic.partitions());
        partitions.set(partition.partition(), partition);
        return new TopicInfo(topic.name(), topic.id(), topic.configs(), partitions);
    }

    @Test
    void opensTheLogsOfPartitionsAssignedHereWithTheirRoles() throws Exception {
        apply(
                topic("orders", ORDERS, 2, List.of(ME, 0), 3, Map.of()),
                topic("other", new Uuid(2, 2), 1, List.of(0), 0, Map.of()));

        assertThat(manager.partition("orders", 0)).hasValueSatisfying(p -> {
            assertThat(p.role()).isEqualTo(Partition.Role.LEADER);
            assertThat(p.leaderEpoch()).isEqualTo(3);
        });
        assertThat(manager.partition("orders", 1)).isPresent();
        assertThat(manager.partition("other", 0)).isEmpty();
        assertThat(Files.readString(dir.resolve("data/orders-0/partition.metadata")))
                .isEqualTo("version: 0\ntopic_id: " + ORDERS + "\n");
        assertThat(manager.partitionCount(Partition.Role.LEADER)).isEqualTo(2);
    }

    @Test
    void cleanerRunsCompactTheReplicasOfCompactedTopicsOnly() {
        apply(
                topic("table", ORDERS, 1, List.of(ME), 0, Map.of("cleanup.policy", "compact")),
                topic("stream", new Uuid(2, 2), 1, List.of(ME), 0, Map.of()));
        for (String name : List.of("table", "stream")) {
            Partition partition = manager.partition(name, 0).orElseThrow();
            for (int version = 0; version < 3; version++) {
                partition.appendAsLeader(keyed(version));
                partition.log().roll();
            }
            partition.log().flush();
        }
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), Clock.systemUTC());

        int rounds = manager.runCleaner(cleaner.threads().getFirst(), 16);

        assertThat(rounds).isEqualTo(1);
        assertThat(manager.partition("table", 0)
                        .orElseThrow()
                        .log()
                        .compaction()
                        .cleanerCheckpoint())
                .isEqualTo(9);
        assertThat(manager.partition("table", 0).orElseThrow().log().sizeInBytes())
                .isLessThan(manager.partition("stream", 0).orElseThrow().log().sizeInBytes());
        assertThat(manager.runCleaner(cleaner.threads().getFirst(), 16)).isZero();
    }

    @Test
    void theCleanerForgetsPartitionsThatAreDeletedOrMovedAway() {
        Uuid movedId = new Uuid(2, 2);
        Uuid stayingId = new Uuid(3, 3);
        apply(
                topic("deleted", ORDERS, 1, List.of(ME), 0, Map.of("cleanup.policy", "compact")),
                topic("moved", movedId, 1, List.of(ME), 0, Map.of("cleanup.policy", "compact")),
                topic("staying", stayingId, 1, List.of(ME), 0, Map.of("cleanup.policy", "compact")));
        for (String name : List.of("deleted", "moved", "staying")) {
            Partition partition = manager.partition(name, 0).orElseThrow();
            for (int version = 0; version < 3; version++) {
                partition.appendAsLeader(keyed(version));
                partition.log().roll();
            }
            partition.log().flush();
            CorruptSegments.corruptFirstRecord(partition.log());
        }
        LogCleaner cleaner = new LogCleaner(CleanerConfig.defaults(), Clock.systemUTC());
        manager.addRemovalListener(cleaner::forget);
        assertThat(manager.runCleaner(cleaner.threads().getFirst(), 16)).isZero();
        assertThat(cleaner.uncleanablePartitions()).hasSize(3);

        apply(
                topic("moved", movedId, 1, List.of(0), 0, Map.of("cleanup.policy", "compact")),
                topic("staying", stayingId, 1, List.of(ME), 0, Map.of("cleanup.policy", "compact")));

        assertThat(cleaner.uncleanablePartitions())
                .containsExactly(manager.partition("staying", 0).orElseThrow().topicIdPartition());
    }

    /** Three records with keys k0..k2, at {@code version}. */
    private static MemoryRecords keyed(int version) {
        SimpleRecord[] records = new SimpleRecord[3];
        for (int i = 0; i < 3; i++) {
            records[i] = new SimpleRecord(
                    1000L,
                    ("k" + i).getBytes(StandardCharsets.US_ASCII),
                    ("v" + version).getBytes(StandardCharsets.US_ASCII));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    @Test
    void aLeaderAloneInTheIsrMovesTheHighWatermarkWithEveryAppend() {
        apply(topic("orders", ORDERS, 1, List.of(ME), 0, Map.of()));
        Partition partition = manager.partition("orders", 0).orElseThrow();

        partition.appendAsLeader(records(3));

        assertThat(partition.highWatermark()).isEqualTo(3);
        assertThat(partition.isUnderReplicated()).isFalse();
    }

    @Test
    void withFollowersTheHighWatermarkIsTheSmallestLogEndOffsetInTheIsrAndNeverGoesBack() {
        apply(topic("orders", ORDERS, 1, List.of(ME, 0), 0, Map.of()));
        Partition partition = manager.partition("orders", 0).orElseThrow();
        partition.appendAsLeader(records(5));
        assertThat(partition.highWatermark()).isZero();

        partition.recordFollowerFetch(0, 2);
        assertThat(partition.highWatermark()).isEqualTo(2);
        partition.recordFollowerFetch(0, 5);
        assertThat(partition.highWatermark()).isEqualTo(5);
        partition.recordFollowerFetch(0, 1);
        assertThat(partition.highWatermark()).isEqualTo(5);
        partition.recordFollowerFetch(7, 100);
        assertThat(partition.highWatermark()).isEqualTo(5);
    }

    @Test
    void aFollowerThatTruncatedHoldsTheHighWatermarkAtWhatItHas() {
        apply(topic("orders", ORDERS, 1, List.of(ME, 0, 2), 0, Map.of()));
        Partition partition = manager.partition("orders", 0).orElseThrow();
        partition.appendAsLeader(records(6));
        partition.recordFollowerFetch(0, 5);
        partition.recordFollowerFetch(2, 2);
        assertThat(partition.highWatermark()).isEqualTo(2);

        partition.recordFollowerFetch(0, 1);
        partition.recordFollowerFetch(2, 6);

        assertThat(partition.highWatermark()).isEqualTo(2);
        partition.recordFollowerFetch(0, 4);
        assertThat(partition.highWatermark()).isEqualTo(4);
    }

    @Test
    void aShrunkIsrCountsAsUnderReplicatedAndLetsTheHighWatermarkAdvance() {
        apply(topic("orders", ORDERS, 1, List.of(ME, 0), 0, Map.of()));
        Partition partition = manager.partition("orders", 0).orElseThrow();
        partition.appendAsLeader(records(4));

        TopicInfo shrunk = withPartition(
                topic("orders", ORDERS, 1, List.of(ME, 0), 0, Map.of()),
                new PartitionInfo(0, List.of(ME, 0), ME, 0, List.of(ME), 1));
        apply(shrunk);

        assertThat(partition.highWatermark()).isEqualTo(4);
        assertThat(manager.underReplicatedCount()).isEqualTo(1);
    }

    @Test
    void theChangeSignalCompletesOnAppendSoWaitersNeedNotPoll() {
        apply(topic("orders", ORDERS, 1, List.of(ME), 0, Map.of()));
        Partition partition = manager.partition("orders", 0).orElseThrow();
        CompletableFuture<Void> signal = partition.changeSignal();
        assertThat(signal).isNotDone();

        partition.appendAsLeader(records(1));

        assertThat(signal).isDone();
        assertThat(partition.changeSignal()).isNotDone();
    }

    @Test
    void aFollowerRefusesLeaderAppends() {
        apply(topic("orders", ORDERS, 1, List.of(0, ME), 0, Map.of()));
        Partition partition = manager.partition("orders", 0).orElseThrow();

        assertThat(partition.role()).isEqualTo(Partition.Role.FOLLOWER);
        assertThatThrownBy(() -> partition.appendAsLeader(records(1))).isInstanceOf(NotLeaderException.class);
    }

    @Test
    void leadershipChangesApplyToTheOpenReplica() {
        apply(topic("orders", ORDERS, 1, List.of(0, ME), 0, Map.of()));
        Partition partition = manager.partition("orders", 0).orElseThrow();

        apply(withPartition(
                topic("orders", ORDERS, 1, List.of(0, ME), 0, Map.of()),
                new PartitionInfo(0, List.of(0, ME), ME, 1, List.of(ME), 2)));

        assertThat(manager.partition("orders", 0)).containsSame(partition);
        assertThat(partition.role()).isEqualTo(Partition.Role.LEADER);
        assertThat(partition.appendAsLeader(records(2)).firstOffset()).isZero();
        assertThat(partition.log().leaderEpochs().getLast().epoch()).isEqualTo(1);
    }

    @Test
    void topicConfigChangesReachTheLog() {
        apply(topic("orders", ORDERS, 1, List.of(ME), 0, Map.of()));
        Partition partition = manager.partition("orders", 0).orElseThrow();

        apply(topic(
                "orders",
                ORDERS,
                1,
                List.of(ME),
                0,
                Map.of("retention.ms", "-1", "message.timestamp.type", "LogAppendTime", "min.insync.replicas", "2")));

        assertThat(partition.log().config().retentionTime()).isEmpty();
        assertThat(partition.log().config().timestampType()).isEqualTo(MessageTimestampType.LOG_APPEND_TIME);
        assertThat(partition.minInsyncReplicas()).isEqualTo(2);
    }

    @Test
    void partitionsMovedAwayAreClosedButKept() {
        apply(topic("orders", ORDERS, 1, List.of(ME), 0, Map.of()));
        manager.partition("orders", 0).orElseThrow().appendAsLeader(records(2));

        apply(topic("orders", ORDERS, 1, List.of(0), 0, Map.of()));

        assertThat(manager.partition("orders", 0)).isEmpty();
        assertThat(dir.resolve("data/orders-0")).isDirectory();
        assertThat(deletions).isEmpty();
    }

    @Test
    void aDeletedTopicsDataIsDeletedOffTheMetadataThread() throws Exception {
        apply(topic("orders", ORDERS, 1, List.of(ME), 0, Map.of()));
        manager.partition("orders", 0).orElseThrow().appendAsLeader(records(2));

        apply();

        assertThat(manager.partition("orders", 0)).isEmpty();
        assertThat(dir.resolve("data/orders-0")).doesNotExist();
        assertThat(deletions).hasSize(1);
        runDeletions();
        try (Stream<Path> left = Files.list(dir.resolve("data"))) {
            assertThat(left).isEmpty();
        }
        assertThat(store.partition(ORDERS, 0).readState()).isEmpty();
        assertThat(store.partition(ORDERS, 0).readProducerSnapshot()).isEmpty();
        assertThat(store.partition(ORDERS, 0).readHighWatermark()).isEmpty();
    }

    @Test
    void aRecreatedTopicOfTheSameNameStartsEmpty() {
        apply(topic("orders", ORDERS, 1, List.of(ME), 0, Map.of()));
        manager.partition("orders", 0).orElseThrow().appendAsLeader(records(5));

        Uuid recreated = new Uuid(9, 9);
        apply(topic("orders", recreated, 1, List.of(ME), 0, Map.of()));

        Partition fresh = manager.partition("orders", 0).orElseThrow();
        assertThat(fresh.topicIdPartition().topicId()).isEqualTo(recreated);
        assertThat(fresh.log().logEndOffset()).isZero();
        runDeletions();
        assertThat(fresh.log().logEndOffset()).isZero();
    }

    @Test
    void aDirectoryOfAnotherTopicIdFoundAtStartIsSetAsideNotServed() {
        apply(topic("orders", ORDERS, 1, List.of(ME), 0, Map.of()));
        manager.partition("orders", 0).orElseThrow().appendAsLeader(records(5));
        manager.close();
        // While this broker was down, the topic was deleted and created again.
        manager = newManager();
        current = ClusterImage.EMPTY;

        apply(topic("orders", new Uuid(3, 3), 1, List.of(ME), 0, Map.of()));

        assertThat(manager.partition("orders", 0).orElseThrow().log().logEndOffset())
                .isZero();
        runDeletions();
    }

    @Test
    void anUnreadableMarkerKeepsTheReplicaOfflineAndItsDataUntouched() throws Exception {
        Path partitionDir = Files.createDirectories(dir.resolve("data/orders-0"));
        Files.writeString(partitionDir.resolve("partition.metadata"), "garbage");
        Files.writeString(partitionDir.resolve("00000000000000000000.log"), "");

        apply(topic("orders", ORDERS, 2, List.of(ME), 0, Map.of()));

        assertThat(manager.partition("orders", 0)).isEmpty();
        assertThat(manager.partition("orders", 1)).isPresent();
        assertThat(partitionDir.resolve("00000000000000000000.log")).exists();
        assertThat(deletions).isEmpty();
    }

    @Test
    void leftoverDeleteDirectoriesAreDeletedAtStart() throws Exception {
        Path leftover = Files.createDirectories(dir.resolve("data/gone-0." + ORDERS + "-delete"));
        Files.writeString(leftover.resolve("00000000000000000000.log"), "x");
        manager.close();

        manager = newManager();
        runDeletions();

        assertThat(leftover).doesNotExist();
        assertThat(ReplicaManager.parseDeleteDir("a.b-12." + ORDERS + "-delete"))
                .hasValueSatisfying(id -> {
                    assertThat(id.topic()).isEqualTo("a.b");
                    assertThat(id.partition()).isEqualTo(12);
                    assertThat(id.topicId()).isEqualTo(ORDERS);
                });
    }

    @Test
    void closeClosesEveryLogCleanlySoTheNextOpenDoesNotRescan() {
        apply(topic("orders", ORDERS, 2, List.of(ME), 0, Map.of()));
        manager.partition("orders", 0).orElseThrow().appendAsLeader(records(3));
        manager.close();

        manager = newManager();
        current = ClusterImage.EMPTY;
        apply(topic("orders", ORDERS, 2, List.of(ME), 0, Map.of()));

        Partition reopened = manager.partition("orders", 0).orElseThrow();
        assertThat(reopened.log().openReport().cleanShutdown()).isTrue();
        assertThat(reopened.log().logEndOffset()).isEqualTo(3);
    }

    @Test
    void aReopenedReplicaStartsFromItsHighWatermarkCheckpoint() {
        apply(topic("orders", ORDERS, 1, List.of(ME, 0), 0, Map.of()));
        Partition partition = manager.partition("orders", 0).orElseThrow();
        partition.appendAsLeader(records(5));
        partition.recordFollowerFetch(0, 3);
        manager.checkpointHighWatermarks();
        assertThat(partition.log().checkpointedHighWatermark()).hasValue(3);
        partition.recordFollowerFetch(0, 4);
        manager.close();

        manager = newManager();
        current = ClusterImage.EMPTY;
        apply(topic("orders", ORDERS, 1, List.of(ME, 0), 0, Map.of()));

        // Closing checkpointed 4; the followers have not fetched from the new leader yet.
        assertThat(manager.partition("orders", 0).orElseThrow().highWatermark()).isEqualTo(4);
    }

    @Test
    void awaitHighWatermarkReturnsOnceFollowersCatchUp() throws Exception {
        apply(topic("orders", ORDERS, 1, List.of(ME, 0), 0, Map.of()));
        Partition partition = manager.partition("orders", 0).orElseThrow();
        partition.appendAsLeader(records(2));
        var waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return partition.awaitHighWatermark(2, Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });

        partition.recordFollowerFetch(0, 2);

        assertThat(waiter.get()).isTrue();
        assertThat(partition.awaitHighWatermark(3, Duration.ZERO)).isFalse();
    }
}
