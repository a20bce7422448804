package io.tributary.coordinator.metadata.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import io.tributary.coordinator.metadata.MetadataLimits;
import io.tributary.coordinator.metadata.TopicExistsException;
import io.tributary.coordinator.metadata.raft.RaftNodeConfig.LogFlush;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MetadataClient} built on this process's voter ({@link MetadataClient#MetadataClient(
 * MetadataRaftNode, MetadataClient.WriteObserver)}): while the voter leads its writes go to its own
 * division in-process, with the same replies, typed errors and observer reports as through the
 * transport; on a follower they go through the transport to the leader. And a voter whose log is
 * not fsynced per write ({@link LogFlush#PAGE_CACHE}) keeps what it acknowledged across a restart.
 */
class InProcessWriteTest {

    @TempDir
    Path dir;

    @Test
    void theLeadersOwnClientWritesInProcessWithTheSameRepliesAndErrors() throws IOException {
        try (ThreeVoters voters = new ThreeVoters(dir, MetadataLimits.DEFAULTS)) {
            voters.oneBrokerAndTopicT();
            MetadataRaftNode leader = voters.node(voters.awaitLeader());
            List<MetadataClient.WriteOutcome> outcomes = new CopyOnWriteArrayList<>();
            // The group's addresses lead nowhere (a closed port): only the in-process path can commit.
            try (MetadataClient local = new MetadataClient(
                    MetadataRaftNode.group(List.of(closedPort(), closedPort(), closedPort())),
                    Duration.ofSeconds(3),
                    2,
                    Duration.ofMillis(10),
                    (nanos, outcome) -> outcomes.add(outcome),
                    leader,
                    leader.transport())) {
                long index = local.submitForIndex(new StoreClassicGroup(Fixtures.classicGeneration("g", 1, "m1")));

                assertThat(index).isPositive();
                assertThat(leader.stateMachine().appliedIndex()).isGreaterThanOrEqualTo(index);
                assertThat(leader.stateMachine().image().classicGroups().asMap())
                        .containsKey("g");
                assertThatThrownBy(() -> local.submit(Fixtures.createTopic("t", List.of(List.of(0)))))
                        .isInstanceOf(TopicExistsException.class);
            }
            assertThat(outcomes)
                    .containsExactly(MetadataClient.WriteOutcome.COMMITTED, MetadataClient.WriteOutcome.REJECTED);
        }
    }

    @Test
    void aFollowersClientWritesThroughTheLeader() throws IOException {
        try (ThreeVoters voters = new ThreeVoters(dir, MetadataLimits.DEFAULTS)) {
            int leader = voters.awaitLeader();
            MetadataRaftNode follower = voters.node(voters.runningOtherThan(leader));
            try (MetadataClient client = new MetadataClient(follower, MetadataClient.WriteObserver.NONE)) {
                long index = client.submitForIndex(new StoreClassicGroup(Fixtures.classicGeneration("g", 1, "m1")));

                assertThat(voters.node(leader).stateMachine().appliedIndex()).isGreaterThanOrEqualTo(index);
            }
        }
    }

    @Test
    void aPageCacheVoterKeepsWhatItAcknowledgedAcrossARestart() throws IOException {
        List<InetSocketAddress> peers = List.of(new InetSocketAddress("127.0.0.1", freePort()));
        RaftNodeConfig config =
                RaftNodeConfig.withDefaults(0, peers, dir.resolve("c0")).withLogFlush(LogFlush.PAGE_CACHE);
        MetadataRaftNode node = new MetadataRaftNode(config);
        node.start();
        try (MetadataClient client = new MetadataClient(node, MetadataClient.WriteObserver.NONE)) {
            for (int generation = 1; generation <= 20; generation++) {
                client.submit(new StoreClassicGroup(Fixtures.classicGeneration("g", generation, "m1")));
            }
        } finally {
            node.close();
        }

        MetadataRaftNode restarted = new MetadataRaftNode(config);
        restarted.start();
        try {
            // Restarted, the voter applies its log again up to the commit index it recorded.
            await().atMost(ThreeVoters.TIMEOUT)
                    .untilAsserted(() -> assertThat(restarted
                                    .stateMachine()
                                    .image()
                                    .classicGroups()
                                    .asMap()
                                    .get("g"))
                            .isNotNull()
                            .satisfies(g -> assertThat(g.generationId()).isEqualTo(20)));
        } finally {
            restarted.close();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static InetSocketAddress closedPort() throws IOException {
        return new InetSocketAddress("127.0.0.1", freePort());
    }
}
