package io.tributary.coordinator.metadata.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.common.testing.BackgroundFailures;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.ImageCodec;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.MetadataLimits;
import io.tributary.coordinator.metadata.TopicExistsException;
import io.tributary.coordinator.placement.ReplicaPlacer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three metadata voters in this JVM over Netty on 127.0.0.1, storage in a temporary directory:
 * failover, catch-up, and snapshot plus restart, comparing voters' images byte for byte.
 */
class MetadataClusterTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private final List<InetSocketAddress> peers = new ArrayList<>();
    private final MetadataRaftNode[] nodes = new MetadataRaftNode[3];
    private MetadataClient client;

    private void startCluster() throws IOException {
        for (int i = 0; i < 3; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                peers.add(new InetSocketAddress("127.0.0.1", s.getLocalPort()));
            }
        }
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        client = new MetadataClient(MetadataRaftNode.group(peers));
        awaitLeader();
    }

    private long snapshotThresholdEntries = RaftNodeConfig.DEFAULT_SNAPSHOT_THRESHOLD_ENTRIES;
    private long logSegmentBytes = RaftNodeConfig.DEFAULT_LOG_SEGMENT_BYTES;

    private void start(int i) throws IOException {
        nodes[i] = new MetadataRaftNode(new RaftNodeConfig(
                i,
                peers,
                peers.get(i),
                dir.resolve("c" + i),
                snapshotThresholdEntries,
                logSegmentBytes,
                RaftNodeConfig.DEFAULT_RPC_TIMEOUT_MIN,
                MetadataLimits.DEFAULTS,
                RaftNodeConfig.LogFlush.FSYNC));
        nodes[i].start();
    }

    private void stop(int i) throws IOException {
        nodes[i].close();
        nodes[i] = null;
    }

    private int awaitLeader() {
        return await().atMost(TIMEOUT)
                .until(this::leaderIndex, Optional::isPresent)
                .orElseThrow();
    }

    private Optional<Integer> leaderIndex() {
        for (int i = 0; i < 3; i++) {
            if (nodes[i] != null && nodes[i].isLeader()) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    @AfterEach
    void closeAll() throws IOException {
        if (client != null) {
            client.close();
        }
        stopAll();
    }

    /** Stops every running voter, in parallel (a Ratis server takes about a second to close). */
    private void stopAll() {
        java.util.stream.IntStream.range(0, 3)
                .filter(i -> nodes[i] != null)
                .mapToObj(i -> java.util.concurrent.CompletableFuture.runAsync(() -> {
                    try {
                        nodes[i].close();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }))
                .toList()
                .forEach(java.util.concurrent.CompletableFuture::join);
        java.util.Arrays.fill(nodes, null);
    }

    private byte[] bytes(int i) {
        return ImageCodec.encode(nodes[i].stateMachine().image());
    }

    private void awaitSameImage(int... voters) {
        await().atMost(TIMEOUT).untilAsserted(() -> {
            MetadataImage leader = client.readImage();
            for (int v : voters) {
                assertThat(nodes[v].stateMachine().image().version())
                        .as("voter %d's metadata version", v)
                        .isEqualTo(leader.version());
                assertThat(bytes(v)).as("voter %d's image bytes", v).isEqualTo(ImageCodec.encode(leader));
            }
        });
    }

    private void registerBrokers(int count) throws IOException {
        for (int id = 0; id < count; id++) {
            client.submit(Fixtures.register(id, 0, Optional.of("r" + id % 2)));
            client.submit(new UnfenceBroker(id, Fixtures.incarnation(id, 0)));
        }
    }

    private long createTopic(String name) throws IOException {
        MetadataImage image = client.readImage();
        return client.submit(
                Fixtures.createTopic(name, ReplicaPlacer.place(image, 3, 3), Map.of("retention.ms", "60000")));
    }

    @Test
    void writesKeepWorkingAfterTheLeaderIsStoppedAndNoAcknowledgedWriteIsLost() throws Exception {
        startCluster();
        registerBrokers(3);
        createTopic("before");
        int oldLeader = awaitLeader();
        int writers = 3;
        int topicsEach = 5;
        java.util.concurrent.CountDownLatch someAcknowledged = new java.util.concurrent.CountDownLatch(writers);
        java.util.Set<String> acknowledged = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.Set<Long> versions = java.util.concurrent.ConcurrentHashMap.newKeySet();
        // A writer that throws fails the test with its cause (and does not leave the wait below hanging).
        var background = new BackgroundFailures();
        List<BackgroundFailures.Task> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            done.add(background.start("writer-" + writer, task -> {
                for (int t = 0; t < topicsEach; t++) {
                    String name = "w" + writer + "-" + t;
                    try {
                        assertThat(versions.add(createTopic(name)))
                                .as("metadata version of %s is unique", name)
                                .isTrue();
                    } catch (TopicExistsException retriedAfterItWasApplied) {
                        // a retry across the failover of a create that had been applied
                    }
                    acknowledged.add(name);
                    someAcknowledged.countDown();
                }
            }));
        }
        await("some writes acknowledged before the leader stops")
                .atMost(Duration.ofMinutes(2))
                .failFast("a writer failed", background::check)
                .until(() -> someAcknowledged.getCount() == 0);
        stop(oldLeader);
        for (var writer : done) {
            writer.join(Duration.ofMinutes(2));
        }
        background.check();

        assertThat(acknowledged).hasSize(writers * topicsEach);
        assertThat(client.readImage().topics()).containsKey("before").containsKeys(acknowledged.toArray(String[]::new));
        int[] survivors = java.util.stream.IntStream.range(0, 3)
                .filter(i -> i != oldLeader)
                .toArray();
        awaitSameImage(survivors);
    }

    @Test
    void aStoppedVoterRestartsAndCatchesUp() throws IOException {
        startCluster();
        registerBrokers(3);
        int follower = (awaitLeader() + 1) % 3;
        stop(follower);
        for (int t = 0; t < 10; t++) {
            createTopic("t" + t);
        }

        start(follower);

        awaitSameImage(0, 1, 2);
        assertThat(nodes[follower].stateMachine().image().topics()).hasSize(10);
    }

    @Test
    void aRestartedGroupLoadsItsSnapshotsReplaysOnlyTheTailAndHoldsTheSameBytes() throws IOException {
        startCluster();
        registerBrokers(3);
        for (int t = 0; t < 10; t++) {
            createTopic("t" + t);
        }
        assertThat(client.allocateProducerIds(0, 1000).firstProducerId()).isZero();
        awaitSameImage(0, 1, 2);
        for (int i = 0; i < 3; i++) {
            nodes[i].takeSnapshot();
        }
        int tail = 4;
        for (int t = 0; t < tail - 1; t++) {
            createTopic("tail" + t);
        }
        assertThat(client.allocateProducerIds(1, 7).firstProducerId())
                .as("the block after the snapshot's")
                .isEqualTo(1000);
        awaitSameImage(0, 1, 2);
        byte[] before = bytes(0);

        client.close();
        client = null;
        stopAll();
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        client = new MetadataClient(MetadataRaftNode.group(peers));
        awaitLeader();

        awaitSameImage(0, 1, 2);
        for (int i = 0; i < 3; i++) {
            assertThat(bytes(i)).as("voter %d", i).isEqualTo(before);
            assertThat(nodes[i].stateMachine().appliedCommandsSinceStart())
                    .as("voter %d replays only the commands after its snapshot", i)
                    .isEqualTo(tail);
            assertThat(nodes[i].stateMachine().image().nextProducerId())
                    .as("voter %d's next producer id", i)
                    .isEqualTo(1007);
        }
        MetadataClient.ProducerIdBlock after = client.allocateProducerIds(2, 3);
        assertThat(after.firstProducerId())
                .as("no producer id is handed out twice across the restart")
                .isEqualTo(1007);
        assertThat(after.count()).isEqualTo(3);
    }

    @Test
    void anInvalidCommandIsRejectedWithItsTypeAndNotAppended() throws IOException {
        startCluster();
        registerBrokers(3);
        createTopic("orders");
        int leader = awaitLeader();
        long commitIndex = nodes[leader].commitIndex();

        assertThatThrownBy(() -> createTopic("orders"))
                .isInstanceOf(TopicExistsException.class)
                .hasMessage("topic 'orders' already exists");

        assertThat(nodes[leader].commitIndex()).isEqualTo(commitIndex);
    }

    @Test
    void everyWriteIsReportedWithHowItEnded() throws IOException {
        startCluster();
        List<MetadataClient.WriteOutcome> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Long> nanos = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (MetadataClient observed = new MetadataClient(MetadataRaftNode.group(peers), (n, outcome) -> {
            nanos.add(n);
            outcomes.add(outcome);
        })) {
            MetadataClient plain = client;
            client = observed;
            try {
                registerBrokers(3);
                createTopic("orders");
                assertThatThrownBy(() -> createTopic("orders")).isInstanceOf(TopicExistsException.class);
            } finally {
                client = plain;
            }
        }

        // 3 registrations and 3 unfencings, the topic, then the refused second creation.
        assertThat(outcomes).hasSize(8);
        assertThat(outcomes.subList(0, 7)).containsOnly(MetadataClient.WriteOutcome.COMMITTED);
        assertThat(outcomes.get(7)).isEqualTo(MetadataClient.WriteOutcome.REJECTED);
        assertThat(nanos).allSatisfy(n -> assertThat(n).isPositive());
    }

    @Test
    void votersSnapshotOnTheirOwnEveryThresholdEntriesAsTermAndIndexNamedFilesWithChecksums() throws IOException {
        snapshotThresholdEntries = 8;
        startCluster();
        registerBrokers(3);
        for (int t = 0; t < 6; t++) {
            createTopic("t" + t);
        }
        awaitSameImage(0, 1, 2);
        for (int i = 0; i < 3; i++) {
            Path sm = dir.resolve("c" + i)
                    .resolve(nodes[i].group().getGroupId().getUuid().toString())
                    .resolve("sm");
            await().atMost(TIMEOUT).untilAsserted(() -> {
                try (var files = java.nio.file.Files.list(sm)) {
                    assertThat(files.map(f -> f.getFileName().toString()))
                            .anyMatch(n -> n.matches("snapshot\\.\\d+_\\d+"))
                            .anyMatch(n -> n.matches("snapshot\\.\\d+_\\d+\\.md5"));
                }
            });
        }
    }

    @Test
    void aVoterBehindThePurgedLogCatchesUpFromTheLeadersSnapshot() throws IOException {
        snapshotThresholdEntries = 8;
        logSegmentBytes = 2048;
        startCluster();
        registerBrokers(3);
        int follower = (awaitLeader() + 1) % 3;
        stop(follower);
        int written = 40;
        for (int t = 0; t < written; t++) {
            createTopic("t" + t);
        }

        start(follower);

        awaitSameImage(0, 1, 2);
        assertThat(nodes[follower].stateMachine().image().topics()).hasSize(written);
        assertThat(nodes[follower].stateMachine().appliedCommandsSinceStart())
                .as("the follower got a snapshot rather than every entry it missed")
                .isLessThan(written);
    }
}
