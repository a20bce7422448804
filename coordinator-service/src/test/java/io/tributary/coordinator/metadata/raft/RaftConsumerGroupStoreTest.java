package io.tributary.coordinator.metadata.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tributary.coordinator.group.ConsumerGroupRecord;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberMetadata;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.GroupDescription;
import io.tributary.coordinator.group.HeartbeatRequest;
import io.tributary.coordinator.group.HeartbeatResponse;
import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException.Reason;
import io.tributary.coordinator.group.PendingWrites;
import io.tributary.coordinator.group.StoredConsumerGroup;
import io.tributary.coordinator.metadata.ImageCodec;
import io.tributary.coordinator.metadata.MetadataLimits;
import io.tributary.coordinator.metadata.TopicPartition;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RaftConsumerGroupStore} on three metadata voters in this JVM (Netty on 127.0.0.1, {@link
 * ThreeVoters}), driven by a real {@link GroupCoordinator}: what one leader's coordinator stored is
 * what a new leader's coordinator loads (members at their epochs, with their assignments); a change
 * larger than one command goes in several, in order; followers refuse writes; the bounds are
 * refused before anything is appended; restarts keep it from snapshots and the log tail.
 */
class RaftConsumerGroupStoreTest {

    /** Small bounds, so that the test reaches them: commands of 4 KiB, 2 consumer groups. */
    private static final MetadataLimits LIMITS = new MetadataLimits(4096, 100, 100, 10, 10, 64, 10, 2);

    private static final long NOW = 1_800_000_000_000L;

    @TempDir
    Path dir;

    private ThreeVoters voters;
    private final FakeTopics topics = new FakeTopics();

    @BeforeEach
    void startCluster() throws IOException {
        topics.create("t", 4);
        voters = new ThreeVoters(dir, LIMITS);
        voters.oneBrokerAndTopicT();
    }

    @AfterEach
    void closeAll() throws IOException {
        voters.close();
    }

    private RaftConsumerGroupStore store(int i) {
        return new RaftConsumerGroupStore(voters.node(i), voters.client(i));
    }

    private static HeartbeatRequest join(String groupId, String memberId) {
        return new HeartbeatRequest(
                groupId,
                memberId,
                0,
                Optional.empty(),
                Optional.empty(),
                60_000,
                Optional.of(List.of("t")),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new TreeSet<>()),
                "client-" + memberId,
                "/127.0.0.1");
    }

    /** Serves a heartbeat on {@code coordinator} and makes its writes durable through {@code store}. */
    private static HeartbeatResponse serve(
            GroupCoordinator coordinator, RaftConsumerGroupStore store, HeartbeatRequest request) throws Exception {
        GroupCoordinator.Pending pending = coordinator.heartbeatDurably(request, NOW);
        for (PendingWrites.Write write : coordinator.drainWrites()) {
            switch (write) {
                case PendingWrites.Append append -> store.append(append.groupId(), append.records());
                case PendingWrites.Delete delete -> store.delete(delete.groupId());
            }
            coordinator.written(write);
        }
        assertThat(pending.written()).isCompletedWithValue(Optional.empty());
        return pending.response();
    }

    @Test
    void whatOneLeadersCoordinatorStoredANewLeadersCoordinatorLoads() throws Exception {
        int leader = voters.awaitLeader();
        GroupCoordinator coordinator = new GroupCoordinator(GroupConfig.DEFAULTS, topics);
        RaftConsumerGroupStore store = store(leader);
        serve(coordinator, store, join("g", "a"));
        serve(coordinator, store, join("g", "b"));
        GroupDescription before = coordinator.describe("g").orElseThrow();
        assertThat(store.load().keySet())
                .as("read on the leader right after the acknowledgement")
                .containsExactly("g");

        voters.stop(leader);
        int next = voters.awaitLeader();
        GroupCoordinator taken = new GroupCoordinator(GroupConfig.DEFAULTS, topics);
        taken.load(store(next).load().values(), NOW + 1000);
        assertThat(taken.describe("g"))
                .as("members at their epochs, with their assignments")
                .contains(before);
        int survivor = voters.runningOtherThan(next);
        await().atMost(ThreeVoters.TIMEOUT)
                .untilAsserted(() ->
                        assertThat(store(survivor).load()).isEqualTo(store(next).load()));
    }

    @Test
    void aChangeLargerThanOneCommandIsWrittenInSeveralInOrder() throws Exception {
        int leader = voters.awaitLeader();
        RaftConsumerGroupStore store = store(leader);
        List<ConsumerGroupRecord> records = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            records.add(new MemberMetadata(
                    "member-" + i,
                    Optional.empty(),
                    Optional.empty(),
                    "client",
                    "/127.0.0.1",
                    1000,
                    List.of("topic-with-a-long-name-" + "x".repeat(100)),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty()));
        }
        long before = voters.node(leader).stateMachine().appliedIndex();
        store.append("g", records);
        long entries = voters.node(leader).stateMachine().appliedIndex() - before;
        assertThat(entries).as("about 6 KiB of records in commands of 4 KiB").isGreaterThanOrEqualTo(2);
        assertThat(store.load().get("g"))
                .isEqualTo(StoredConsumerGroup.empty("g").apply(records));
    }

    @Test
    void aFollowerRefusesWritesAsNotLeaderButServesLoads() throws Exception {
        int leader = voters.awaitLeader();
        store(leader).append("g", List.of(MemberMetadata.empty("a")));
        int follower = (leader + 1) % 3;
        ThreeVoters.assertReason(
                assertThrows(
                        OffsetStoreException.class,
                        () -> store(follower).append("g", List.of(MemberMetadata.empty("b")))),
                Reason.NOT_LEADER);
        ThreeVoters.assertReason(
                assertThrows(OffsetStoreException.class, () -> store(follower).delete("g")), Reason.NOT_LEADER);
        await().atMost(ThreeVoters.TIMEOUT)
                .untilAsserted(() ->
                        assertThat(store(follower).load().get("g").members()).containsOnlyKeys("a"));
    }

    /**
     * The leader's applied index once it has applied everything committed: an append returns when
     * its command is committed, and the leader's state machine may apply it a moment later.
     */
    private long settledAppliedIndex(int leader) {
        MetadataRaftNode node = voters.node(leader);
        await("the leader applied what was committed")
                .until(() -> node.stateMachine().appliedIndex() >= node.commitIndex());
        return node.stateMachine().appliedIndex();
    }

    @Test
    void boundsAreRefusedAsLimitExceededBeforeAnythingIsAppended() throws Exception {
        int leader = voters.awaitLeader();
        RaftConsumerGroupStore store = store(leader);
        store.append("g1", List.of(MemberMetadata.empty("a")));
        store.append("g2", List.of(MemberMetadata.empty("a")));
        ThreeVoters.assertReason(
                assertThrows(OffsetStoreException.class, () -> store.append("g3", List.of(MemberMetadata.empty("a")))),
                Reason.LIMIT_EXCEEDED);
        store.append("g2", List.of(MemberMetadata.empty("b")));
        MemberMetadata tooLarge = new MemberMetadata(
                "c",
                Optional.empty(),
                Optional.empty(),
                "client",
                "/127.0.0.1",
                1000,
                List.of("x".repeat(LIMITS.maxCommandBytes())),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
        long before = settledAppliedIndex(leader);
        ThreeVoters.assertReason(
                assertThrows(
                        OffsetStoreException.class,
                        () -> store.append("g1", List.of(MemberMetadata.empty("d"), tooLarge))),
                Reason.LIMIT_EXCEEDED);
        assertThat(voters.node(leader).stateMachine().appliedIndex())
                .as("not even the record before it")
                .isEqualTo(before);
        assertThat(store.load().get("g1").members()).containsOnlyKeys("a");
        assertThat(store.load().get("g2").members()).containsOnlyKeys("a", "b");
        assertThatThrownBy(() -> store.append("", List.of(MemberMetadata.empty("a"))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.append("g1", List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.delete("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deletingAGroupKeepsItsOffsets() throws Exception {
        int leader = voters.awaitLeader();
        RaftConsumerGroupStore store = store(leader);
        RaftOffsetStore offsets = new RaftOffsetStore(voters.node(leader), voters.client(leader));
        TopicPartition t0 = new TopicPartition("t", 0);
        store.append("g", List.of(MemberMetadata.empty("a")));
        offsets.commit("g", Map.of(t0, new CommittedOffset(5, 0, "", 1)));
        store.delete("g");
        assertThat(store.load()).isEmpty();
        assertThat(offsets.fetch("g")).containsOnlyKeys(t0);
    }

    @Test
    void groupsSurviveARestartOfEveryVoterFromSnapshotsAndTheLogTail() throws Exception {
        GroupCoordinator coordinator = new GroupCoordinator(GroupConfig.DEFAULTS, topics);
        RaftConsumerGroupStore store = store(voters.awaitLeader());
        serve(coordinator, store, join("g", "a"));
        serve(coordinator, store, join("h", "a"));
        for (int i = 0; i < 3; i++) {
            int voter = i;
            await().atMost(ThreeVoters.TIMEOUT)
                    .until(() -> voters.node(voter)
                                    .stateMachine()
                                    .image()
                                    .consumerGroups()
                                    .count()
                            == 2);
            voters.node(i).takeSnapshot();
        }
        serve(coordinator, store, join("g", "b"));
        store.delete("h");
        await().atMost(ThreeVoters.TIMEOUT)
                .until(() -> IntStream.range(0, 3)
                        .allMatch(i -> voters.node(i)
                                .stateMachine()
                                .image()
                                .consumerGroups()
                                .asMap()
                                .keySet()
                                .equals(Set.of("g"))));
        byte[] before = ImageCodec.encode(voters.node(0).stateMachine().image());
        for (int i = 0; i < 3; i++) {
            voters.stop(i);
        }
        for (int i = 0; i < 3; i++) {
            voters.start(i);
        }
        int leader = voters.awaitLeader();
        GroupCoordinator taken = new GroupCoordinator(GroupConfig.DEFAULTS, topics);
        taken.load(store(leader).load().values(), NOW);
        assertThat(taken.describe("g"))
                .as("g's first member only in the snapshots, its second and h's deletion only in the log tail")
                .isEqualTo(coordinator.describe("g"));
        assertThat(taken.contains("h")).isFalse();
        await().atMost(ThreeVoters.TIMEOUT)
                .untilAsserted(() -> assertThat(ImageCodec.encode(
                                voters.node(leader).stateMachine().image()))
                        .isEqualTo(before));
    }
}
