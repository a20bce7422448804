package io.tributary.coordinator.metadata.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException.Reason;
import io.tributary.coordinator.group.classic.ClassicGroupRecord;
import io.tributary.coordinator.group.classic.ClassicGroupRecord.Member;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.ImageCodec;
import io.tributary.coordinator.metadata.MetadataLimits;
import io.tributary.coordinator.metadata.TopicPartition;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RaftClassicGroupStore} on three metadata voters in this JVM (Netty on 127.0.0.1), as {@link
 * RaftOffsetStoreTest}: a stored generation survives a leader change and a restart from snapshots
 * and the log tail; followers refuse writes; the bounds are enforced before anything is appended.
 */
class RaftClassicGroupStoreTest {

    /** Small bounds, so that the test reaches them: commands of 4 KiB, 2 classic groups. */
    private static final MetadataLimits LIMITS = new MetadataLimits(4096, 100, 100, 10, 10, 64, 2);

    @TempDir
    Path dir;

    private ThreeVoters voters;

    @BeforeEach
    void startCluster() throws IOException {
        voters = new ThreeVoters(dir, LIMITS);
        voters.oneBrokerAndTopicT();
    }

    @AfterEach
    void closeAll() throws IOException {
        voters.close();
    }

    private RaftClassicGroupStore store(int i) {
        return new RaftClassicGroupStore(voters.node(i), voters.client(i));
    }

    private static ClassicGroupRecord generation(String groupId, int generationId, String... memberIds) {
        return Fixtures.classicGeneration(groupId, generationId, memberIds);
    }

    @Test
    void aStoredGenerationIsLoadedOnTheLeaderAndSurvivesALeaderChange() throws Exception {
        int leader = voters.awaitLeader();
        RaftClassicGroupStore store = store(leader);
        store.store(generation("g", 1, "m1", "static-m2"));
        store.store(generation("g", 2, "m1", "static-m2", "m3"));
        assertThat(store.load())
                .as("read on the leader right after the acknowledgement, the later generation replacing the first")
                .containsExactly(Map.entry("g", generation("g", 2, "m1", "static-m2", "m3")));

        voters.stop(leader);
        int next = voters.awaitLeader();
        RaftClassicGroupStore nextStore = store(next);
        assertThat(nextStore.load())
                .as("a new leader loads what the old one stored")
                .containsExactly(Map.entry("g", generation("g", 2, "m1", "static-m2", "m3")));
        nextStore.store(generation("g", 3, "m3"));
        assertThat(nextStore.load()).containsExactly(Map.entry("g", generation("g", 3, "m3")));
        int survivor = voters.runningOtherThan(next);
        await().atMost(ThreeVoters.TIMEOUT)
                .untilAsserted(() -> assertThat(store(survivor).load()).containsEntry("g", generation("g", 3, "m3")));
    }

    @Test
    void aFollowerRefusesWritesAsNotLeaderButServesLoads() throws Exception {
        int leader = voters.awaitLeader();
        store(leader).store(generation("g", 1, "m1"));
        int follower = (leader + 1) % 3;
        ThreeVoters.assertReason(
                org.junit.jupiter.api.Assertions.assertThrows(
                        OffsetStoreException.class, () -> store(follower).store(generation("g", 2, "m1"))),
                Reason.NOT_LEADER);
        ThreeVoters.assertReason(
                org.junit.jupiter.api.Assertions.assertThrows(
                        OffsetStoreException.class, () -> store(follower).delete("g")),
                Reason.NOT_LEADER);
        await().atMost(ThreeVoters.TIMEOUT)
                .untilAsserted(() ->
                        assertThat(store(follower).load()).containsExactly(Map.entry("g", generation("g", 1, "m1"))));
    }

    @Test
    void boundsAreRefusedAsLimitExceededAndChangeNothing() throws Exception {
        RaftClassicGroupStore store = store(voters.awaitLeader());
        store.store(generation("g1", 1, "m1"));
        store.store(generation("g2", 1));
        ThreeVoters.assertReason(
                org.junit.jupiter.api.Assertions.assertThrows(
                        OffsetStoreException.class, () -> store.store(generation("g3", 1, "m1"))),
                Reason.LIMIT_EXCEEDED);
        store.store(generation("g2", 2, "m1"));
        ClassicGroupRecord tooLarge = new ClassicGroupRecord(
                "g1",
                "consumer",
                "range",
                2,
                "m1",
                0,
                List.of(new Member(
                        "m1", Optional.empty(), "c", "h", 1, 1, new byte[0], new byte[LIMITS.maxCommandBytes()])));
        ThreeVoters.assertReason(
                org.junit.jupiter.api.Assertions.assertThrows(OffsetStoreException.class, () -> store.store(tooLarge)),
                Reason.LIMIT_EXCEEDED);
        assertThat(store.load())
                .containsExactly(
                        Map.entry("g1", generation("g1", 1, "m1")), Map.entry("g2", generation("g2", 2, "m1")));
        assertThatThrownBy(() -> store.store(generation("", 1, "m1"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.store(generation("g1", 3, "m1", "m1")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.delete("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deletingAGroupRemovesItsGenerationButNotItsOffsetsNorTheOtherWayRound() throws Exception {
        int leader = voters.awaitLeader();
        RaftClassicGroupStore store = store(leader);
        RaftOffsetStore offsets = new RaftOffsetStore(voters.node(leader), voters.client(leader));
        TopicPartition t0 = new TopicPartition("t", 0);
        store.store(generation("g", 1, "m1"));
        store.store(generation("h", 1, "m1"));
        offsets.commit("g", Map.of(t0, new CommittedOffset(5, 0, "", 1)));
        offsets.commit("h", Map.of(t0, new CommittedOffset(6, 0, "", 1)));
        store.delete("g");
        assertThat(store.load()).containsOnlyKeys("h");
        assertThat(offsets.fetch("g")).containsOnlyKeys(t0);
        store.delete("g");
        offsets.deleteGroup("h");
        assertThat(store.load()).as("DeleteGroups sends both deletes").containsOnlyKeys("h");
        assertThat(offsets.groups()).containsExactly("g");
    }

    @Test
    void generationsSurviveARestartOfEveryVoterFromSnapshotsAndTheLogTail() throws Exception {
        RaftClassicGroupStore store = store(voters.awaitLeader());
        store.store(generation("g", 1, "m1", "static-m2"));
        store.store(generation("h", 4));
        for (int i = 0; i < 3; i++) {
            int voter = i;
            await().atMost(ThreeVoters.TIMEOUT)
                    .until(() -> voters.node(voter)
                                    .stateMachine()
                                    .image()
                                    .classicGroups()
                                    .count()
                            == 2);
            voters.node(i).takeSnapshot();
        }
        store.delete("h");
        store.store(generation("k", 2, "static-m2", "m3"));
        await().atMost(ThreeVoters.TIMEOUT)
                .until(() -> IntStream.range(0, 3)
                        .allMatch(i -> voters.node(i)
                                .stateMachine()
                                .image()
                                .classicGroups()
                                .asMap()
                                .keySet()
                                .equals(java.util.Set.of("g", "k"))));
        byte[] before = ImageCodec.encode(voters.node(0).stateMachine().image());
        for (int i = 0; i < 3; i++) {
            voters.stop(i);
        }
        for (int i = 0; i < 3; i++) {
            voters.start(i);
        }
        int leader = voters.awaitLeader();
        assertThat(store(leader).load())
                .as("g only in the snapshots, k and h's deletion only in the log tail")
                .containsExactly(
                        Map.entry("g", generation("g", 1, "m1", "static-m2")),
                        Map.entry("k", generation("k", 2, "static-m2", "m3")));
        await().atMost(ThreeVoters.TIMEOUT)
                .untilAsserted(() -> assertThat(ImageCodec.encode(
                                voters.node(leader).stateMachine().image()))
                        .isEqualTo(before));
    }
}
