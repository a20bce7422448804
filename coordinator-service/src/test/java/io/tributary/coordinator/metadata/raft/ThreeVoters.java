package io.tributary.coordinator.metadata.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException.Reason;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/**
 * Three metadata voters in this JVM over Netty on 127.0.0.1, each with its own client, storage under
 * one directory (the group stores' tests: {@link RaftOffsetStoreTest}, {@link
 * RaftClassicGroupStoreTest}). A stopped voter's slot is {@code null} until it is started again on
 * the same storage.
 */
final class ThreeVoters implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final Path dir;
    private final MetadataLimits limits;
    private final List<InetSocketAddress> peers = new ArrayList<>();
    private final MetadataRaftNode[] nodes = new MetadataRaftNode[3];
    private final MetadataClient[] clients = new MetadataClient[3];
    private final MetadataClient client;

    /** Starts the three voters and waits for a leader. */
    ThreeVoters(Path dir, MetadataLimits limits) throws IOException {
        this.dir = dir;
        this.limits = limits;
        for (int i = 0; i < 3; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                peers.add(new InetSocketAddress("127.0.0.1", s.getLocalPort()));
            }
        }
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        client = new MetadataClient(MetadataRaftNode.group(peers));
        awaitLeader();
    }

    /** Registers and unfences broker 0 and creates topic {@code t} of one partition on it. */
    void oneBrokerAndTopicT() throws IOException {
        client.submit(Fixtures.register(0, 0, Optional.empty()));
        client.submit(new UnfenceBroker(0, Fixtures.incarnation(0, 0)));
        client.submit(Fixtures.createTopic("t", List.of(List.of(0))));
    }

    /** Asserts that a group store refused a write with {@code reason}. */
    static void assertReason(Throwable thrown, Reason reason) {
        assertThat(thrown)
                .isInstanceOfSatisfying(
                        OffsetStoreException.class, x -> assertThat(x.reason()).isEqualTo(reason));
    }

    /** A client of the group, not tied to a voter. */
    MetadataClient client() {
        return client;
    }

    /** Voter {@code i}, or {@code null} while it is stopped. */
    MetadataRaftNode node(int i) {
        return nodes[i];
    }

    /** Voter {@code i}'s own client. */
    MetadataClient client(int i) {
        return clients[i];
    }

    /** Starts voter {@code i} on its storage (what it had before it stopped). */
    void start(int i) throws IOException {
        nodes[i] = new MetadataRaftNode(new RaftNodeConfig(
                i,
                peers,
                peers.get(i),
                dir.resolve("c" + i),
                RaftNodeConfig.DEFAULT_SNAPSHOT_THRESHOLD_ENTRIES,
                RaftNodeConfig.DEFAULT_LOG_SEGMENT_BYTES,
                RaftNodeConfig.DEFAULT_RPC_TIMEOUT_MIN,
                limits,
                RaftNodeConfig.LogFlush.FSYNC));
        nodes[i].start();
        clients[i] = new MetadataClient(MetadataRaftNode.group(peers));
    }

    /** Stops voter {@code i} and its client. */
    void stop(int i) throws IOException {
        clients[i].close();
        nodes[i].close();
        nodes[i] = null;
    }

    /** The index of the voter that leads (leader-ready), once there is one. */
    int awaitLeader() {
        return await().atMost(TIMEOUT)
                .until(
                        () -> IntStream.range(0, 3)
                                .filter(i -> nodes[i] != null && nodes[i].isLeader())
                                .boxed()
                                .findFirst(),
                        Optional::isPresent)
                .orElseThrow();
    }

    /** A running voter other than {@code except}. */
    int runningOtherThan(int except) {
        return IntStream.range(0, 3)
                .filter(i -> nodes[i] != null && i != except)
                .findFirst()
                .orElseThrow();
    }

    /** Stops every running voter, in parallel (a Ratis server takes about a second to close). */
    @Override
    public void close() throws IOException {
        client.close();
        IntStream.range(0, 3)
                .filter(i -> nodes[i] != null)
                .mapToObj(i -> CompletableFuture.runAsync(() -> {
                    try {
                        stop(i);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }))
                .toList()
                .forEach(CompletableFuture::join);
    }
}
