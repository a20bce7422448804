package io.tributary.coordinator.metadata.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException.Reason;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.ImageCodec;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTopic;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataLimits;
import io.tributary.coordinator.metadata.TopicPartition;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RaftOffsetStore} on three metadata voters in this JVM (Netty on 127.0.0.1): committed
 * offsets survive a leader change and a restart from snapshots; followers refuse writes; the bounds
 * are enforced before anything is appended.
 */
class RaftOffsetStoreTest {

    private static final Duration TIMEOUT = ThreeVoters.TIMEOUT;
    private static final TopicPartition T0 = new TopicPartition("t", 0);
    private static final TopicPartition T1 = new TopicPartition("t", 1);
    /** Small bounds, so that the test reaches them: 2 groups, 2 offsets per group, 8 metadata bytes. */
    private static final MetadataLimits LIMITS = new MetadataLimits(1 << 20, 100, 100, 2, 2, 8);

    @TempDir
    Path dir;

    private ThreeVoters voters;
    private MetadataClient client;

    @BeforeEach
    void startCluster() throws IOException {
        voters = new ThreeVoters(dir, LIMITS);
        client = voters.client();
        for (int id = 0; id < 2; id++) {
            client.submit(Fixtures.register(id, 0, Optional.empty()));
            client.submit(new UnfenceBroker(id, Fixtures.incarnation(id, 0)));
        }
        client.submit(Fixtures.createTopic("t", List.of(List.of(0, 1), List.of(1, 0))));
        client.submit(Fixtures.createTopic("u", List.of(List.of(0, 1))));
    }

    @AfterEach
    void closeAll() throws IOException {
        voters.close();
    }

    private RaftOffsetStore store(int i) {
        return new RaftOffsetStore(voters.node(i), voters.client(i));
    }

    private int awaitLeader() {
        return voters.awaitLeader();
    }

    private void stop(int i) throws IOException {
        voters.stop(i);
    }

    private void start(int i) throws IOException {
        voters.start(i);
    }

    private static CommittedOffset at(long offset) {
        return new CommittedOffset(offset, 0, "m", 1_700_000_000_000L + offset);
    }

    @Test
    void aCommitIsReadBackOnTheLeaderAndSurvivesALeaderChange() throws Exception {
        int leader = awaitLeader();
        RaftOffsetStore store = store(leader);
        store.commit("g", Map.of(T0, at(10), T1, at(20)));
        assertThat(store.fetch("g"))
                .as("read on the leader right after the acknowledgement")
                .containsExactlyInAnyOrderEntriesOf(Map.of(T0, at(10), T1, at(20)));
        assertThat(store.groups()).containsExactly("g");

        stop(leader);
        int next = awaitLeader();
        RaftOffsetStore nextStore = store(next);
        assertThat(nextStore.fetch("g")).containsExactlyInAnyOrderEntriesOf(Map.of(T0, at(10), T1, at(20)));
        nextStore.commit("g", Map.of(T0, at(11)));
        assertThat(nextStore.fetch("g")).containsExactlyInAnyOrderEntriesOf(Map.of(T0, at(11), T1, at(20)));
        int survivor = voters.runningOtherThan(next);
        await().atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(store(survivor).fetch("g")).containsEntry(T0, at(11)));
    }

    @Test
    void aFollowerRefusesWritesAsNotLeaderButServesReads() throws Exception {
        int leader = awaitLeader();
        store(leader).commit("g", Map.of(T0, at(1)));
        int follower = (leader + 1) % 3;
        OffsetStoreException e = org.junit.jupiter.api.Assertions.assertThrows(
                OffsetStoreException.class, () -> store(follower).commit("g", Map.of(T0, at(2))));
        assertThat(e.reason()).isEqualTo(Reason.NOT_LEADER);
        assertThatThrownBy(() -> store(follower).deleteGroup("g"))
                .isInstanceOfSatisfying(
                        OffsetStoreException.class, x -> assertThat(x.reason()).isEqualTo(Reason.NOT_LEADER));
        await().atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(store(follower).fetch("g")).containsExactly(Map.entry(T0, at(1))));
    }

    @Test
    void boundsAreRefusedAsLimitExceededAndChangeNothing() throws Exception {
        RaftOffsetStore store = store(awaitLeader());
        store.commit("g1", Map.of(T0, at(1)));
        store.commit("g2", Map.of(T0, at(1)));
        assertThatThrownBy(() -> store.commit("g3", Map.of(T0, at(1))))
                .isInstanceOfSatisfying(
                        OffsetStoreException.class, x -> assertThat(x.reason()).isEqualTo(Reason.LIMIT_EXCEEDED));
        assertThatThrownBy(() -> store.commit("g1", Map.of(T1, at(1), new TopicPartition("u", 0), at(1))))
                .isInstanceOfSatisfying(
                        OffsetStoreException.class, x -> assertThat(x.reason()).isEqualTo(Reason.LIMIT_EXCEEDED));
        assertThatThrownBy(() -> store.commit("g1", Map.of(T0, new CommittedOffset(1, 0, "123456789", 0))))
                .isInstanceOfSatisfying(
                        OffsetStoreException.class, x -> assertThat(x.reason()).isEqualTo(Reason.LIMIT_EXCEEDED));
        assertThat(store.groups()).containsExactlyInAnyOrder("g1", "g2");
        assertThat(store.fetch("g1")).containsExactly(Map.entry(T0, at(1)));
        assertThatThrownBy(() -> store.commit("", Map.of(T0, at(1)))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deletesRemoveOffsetsAndADeletedTopicTakesItsOffsetsAlong() throws Exception {
        RaftOffsetStore store = store(awaitLeader());
        store.commit("g", Map.of(T0, at(1), T1, at(2)));
        store.commit("h", Map.of(new TopicPartition("u", 0), at(3)));
        store.deleteOffsets("g", List.of(T1));
        assertThat(store.fetch("g")).containsOnlyKeys(T0);
        store.deleteGroup("g");
        assertThat(store.fetch("g")).isEmpty();
        store.deleteGroup("g");
        client.submit(new DeleteTopic("u"));
        assertThat(store.groups()).isEmpty();
    }

    @Test
    void offsetsSurviveARestartOfEveryVoterFromSnapshotsAndTheLogTail() throws Exception {
        RaftOffsetStore store = store(awaitLeader());
        store.commit("g", Map.of(T0, at(1)));
        for (int i = 0; i < 3; i++) {
            int voter = i;
            await().atMost(TIMEOUT)
                    .until(() -> voters.node(voter)
                                    .stateMachine()
                                    .image()
                                    .committedOffsets()
                                    .groupCount()
                            == 1);
            voters.node(i).takeSnapshot();
        }
        store.commit("g", Map.of(T1, at(2)));
        await().atMost(TIMEOUT)
                .until(() -> IntStream.range(0, 3)
                        .allMatch(i -> voters.node(i)
                                        .stateMachine()
                                        .image()
                                        .committedOffsets()
                                        .offsetCount()
                                == 2));
        byte[] before = ImageCodec.encode(voters.node(0).stateMachine().image());
        for (int i = 0; i < 3; i++) {
            stop(i);
        }
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        int leader = awaitLeader();
        await().atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(store(leader).fetch("g"))
                        .containsExactlyInAnyOrderEntriesOf(Map.of(T0, at(1), T1, at(2))));
        await().atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(ImageCodec.encode(
                                voters.node(leader).stateMachine().image()))
                        .isEqualTo(before));
    }
}
