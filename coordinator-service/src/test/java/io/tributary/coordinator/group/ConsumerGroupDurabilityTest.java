package io.tributary.coordinator.group;

import static io.tributary.coordinator.group.Heartbeats.GROUP;
import static io.tributary.coordinator.group.Heartbeats.REBALANCE_TIMEOUT_MS;
import static io.tributary.coordinator.group.Heartbeats.all;
import static io.tributary.coordinator.group.Heartbeats.assignment;
import static io.tributary.coordinator.group.Heartbeats.beat;
import static io.tributary.coordinator.group.Heartbeats.beatUnchanged;
import static io.tributary.coordinator.group.Heartbeats.join;
import static io.tributary.coordinator.group.Heartbeats.leave;
import static io.tributary.coordinator.group.Heartbeats.partitions;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.coordinator.group.ConsumerGroupRecord.GroupMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberAssignment;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberRemoved;
import io.tributary.coordinator.group.ConsumerGroupRecord.TargetMember;
import io.tributary.coordinator.group.ConsumerGroupRecord.TargetMetadata;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * What the consumer group coordinator writes (its records, in Kafka's order, only what changed),
 * when its answers may go out (once their writes and every earlier one are durable), what a failed
 * write does, and what a new leader loads.
 */
class ConsumerGroupDurabilityTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final long SESSION_MS = GroupConfig.DEFAULTS.sessionTimeout().toMillis();

    private final FakeTopics topics = new FakeTopics();
    private final UUID topic = topics.create("t", 4).id();
    private final SimulatedGroupStore store = new SimulatedGroupStore();
    private GroupCoordinator coordinator = new GroupCoordinator(GroupConfig.DEFAULTS, topics);
    private long now = T0;

    /** A heartbeat whose writes are made durable at once. */
    private HeartbeatResponse send(HeartbeatRequest request) {
        GroupCoordinator.Pending pending = coordinator.heartbeatDurably(request, now);
        store.drain(coordinator);
        store.apply(coordinator, Integer.MAX_VALUE);
        assertThat(pending.written()).isCompletedWithValue(Optional.empty());
        return pending.response();
    }

    /** A new coordinator loading what is stored. */
    private void failover() {
        coordinator.clear();
        coordinator = new GroupCoordinator(GroupConfig.DEFAULTS, topics);
        coordinator.load(store.groups(), now);
    }

    private GroupDescription.Member member(String memberId) {
        return coordinator.describe(GROUP).orElseThrow().members().stream()
                .filter(m -> m.memberId().equals(memberId))
                .findFirst()
                .orElseThrow();
    }

    private List<ConsumerGroupRecord> queued() {
        return coordinator.drainWrites().stream()
                .flatMap(w -> ((PendingWrites.Append) w).records().stream())
                .toList();
    }

    @Test
    void aJoinWritesTheGroupItsMetadataTheTargetAndItsAssignmentInKafkasOrder() {
        coordinator.heartbeatDurably(join("a", List.of("t")), now);
        List<ConsumerGroupRecord> records = queued();
        assertThat(records)
                .extracting(r -> (Class) r.getClass())
                .containsExactly(
                        GroupMetadata.class,
                        MemberMetadata.class,
                        TargetMember.class,
                        TargetMetadata.class,
                        MemberAssignment.class);
        GroupMetadata group = (GroupMetadata) records.getFirst();
        assertThat(group.metadataHash())
                .isEqualTo(StoredConsumerGroup.metadataHash(java.util.Map.of("t", topics.get("t"))));
        MemberAssignment a = (MemberAssignment) records.getLast();
        assertThat(a.assigned()).containsOnlyKeys(all(topic, 4));
        assertThat(a.assigned().values()).containsOnly(a.memberEpoch());
    }

    @Test
    void aHeartbeatThatChangesNothingWritesNothingAndIsAnsweredAtOnce() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        GroupCoordinator.Pending pending = coordinator.heartbeatDurably(beatUnchanged("a", a.memberEpoch()), now);
        assertThat(pending.written()).isCompletedWithValue(Optional.empty());
        assertThat(coordinator.drainWrites()).isEmpty();
    }

    @Test
    void anAnswerWaitsForItsWriteAndForEveryWriteBeforeIt() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        GroupCoordinator.Pending b = coordinator.heartbeatDurably(join("b", List.of("t")), now);
        GroupCoordinator.Pending aAgain = coordinator.heartbeatDurably(beatUnchanged("a", a.memberEpoch()), now);
        assertThat(b.written()).isNotDone();
        assertThat(aAgain.written())
                .as("a's answer may tell it of b's join: it waits for b's write")
                .isNotDone();
        store.drain(coordinator);
        store.apply(coordinator, 1);
        assertThat(b.written()).isCompletedWithValue(Optional.empty());
        assertThat(aAgain.written())
                .as("it has a write of its own (revoke for b)")
                .isNotDone();
        store.apply(coordinator, 1);
        assertThat(aAgain.written()).isCompletedWithValue(Optional.empty());
    }

    @Test
    void aNewLeaderKnowsEveryMemberAtItsEpochWithWhatItOwnsAndItsSessionStartsAfresh() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        HeartbeatResponse b = send(join("b", List.of("t")));
        a = send(beat("a", a.memberEpoch(), all(topic, 4))); // asked to revoke two partitions
        Set<TopicIdPartition> aKeeps = assignment(a);
        a = send(beat("a", a.memberEpoch(), aKeeps));
        b = send(beat("b", b.memberEpoch(), Set.of()));
        GroupDescription before = coordinator.describe(GROUP).orElseThrow();

        now += SESSION_MS - 1;
        failover();

        assertThat(coordinator.describe(GROUP)).contains(before);
        now += SESSION_MS - 1;
        assertThat(coordinator.tick(now)).as("sessions restarted at the load").isZero();
        HeartbeatResponse aNext = send(beatUnchanged("a", a.memberEpoch()));
        assertThat(aNext.memberEpoch()).isEqualTo(a.memberEpoch());
        assertThat(coordinator.validateCommit(GROUP, "b", b.memberEpoch(), Optional.empty(), assignment(b)))
                .isEqualTo(GroupCoordinator.Committer.MEMBER);
        now += 2;
        assertThat(coordinator.tick(now)).as("b was not heard since the load").isEqualTo(1);
    }

    @Test
    void aMemberRevokingGetsItsWholeRebalanceTimeoutFromTheLoadAndKeepsItsAssignmentEpochs() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        HeartbeatResponse b = send(join("b", List.of("t")));
        a = send(beat("a", a.memberEpoch(), all(topic, 4)));
        assertThat(member("a").state()).isEqualTo(MemberState.UNREVOKED_PARTITIONS);
        int epochBefore = member("a").memberEpoch();

        now += REBALANCE_TIMEOUT_MS - 1;
        failover();
        now += REBALANCE_TIMEOUT_MS / 2;
        send(beat("a", a.memberEpoch(), all(topic, 4))); // still revoking: its deadline stays
        send(beatUnchanged("b", b.memberEpoch()));
        now += REBALANCE_TIMEOUT_MS / 2 - 1;
        assertThat(coordinator.tick(now)).isZero();
        assertThat(member("a").pendingRevocation()).hasSize(2);
        assertThat(coordinator.validateCommit(
                        GROUP, "a", epochBefore, Optional.empty(), member("a").pendingRevocation()))
                .as("still its own since that epoch")
                .isEqualTo(GroupCoordinator.Committer.MEMBER);
        now += 2;
        assertThat(coordinator.tick(now))
                .as("did not revoke within its rebalance timeout")
                .isEqualTo(1);
    }

    @Test
    void topicsThatChangedWhileNoOneLedMoveTheGroupOnAtTheLoad() {
        send(join("a", List.of("t")));
        int epoch = coordinator.describe(GROUP).orElseThrow().groupEpoch();
        topics.grow("t", 6);

        failover();

        assertThat(coordinator.describe(GROUP).orElseThrow().groupEpoch()).isEqualTo(epoch + 1);
        assertThat(queued())
                .first()
                .isEqualTo(new GroupMetadata(
                        epoch + 1,
                        UniformAssignor.NAME,
                        StoredConsumerGroup.metadataHash(java.util.Map.of("t", topics.get("t")))));
    }

    @Test
    void aFailedWriteDropsTheGroupsAnswersTheWaitingAndTheStoredStateIsLoadedAgain() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        GroupCoordinator.Pending b = coordinator.heartbeatDurably(join("b", List.of("t")), now);
        GroupCoordinator.Pending c = coordinator.heartbeatDurably(join("c", List.of("t")), now);
        store.drain(coordinator);

        store.failFirst(coordinator, Errors.COORDINATOR_NOT_AVAILABLE, false);

        assertThat(b.written()).isCompletedWithValue(Optional.of(Errors.COORDINATOR_NOT_AVAILABLE));
        assertThat(c.written()).isCompletedWithValue(Optional.of(Errors.COORDINATOR_NOT_AVAILABLE));
        assertThat(coordinator.reloadNeeded()).isTrue();
        assertThat(coordinator.contains(GROUP)).as("dropped").isFalse();
        assertThat(store.apply(coordinator, Integer.MAX_VALUE))
                .as("c's write is not made")
                .isZero();
        coordinator.load(store.groups(), now);
        assertThat(coordinator.reloadNeeded()).isFalse();
        assertThat(coordinator.describe(GROUP).orElseThrow().members())
                .extracting(GroupDescription.Member::memberId)
                .containsExactly("a");
        assertThat(member("a").memberEpoch()).isEqualTo(a.memberEpoch());
    }

    @Test
    void aLeaveWritesTheMemberRemovedAndAStaticLeaveKeepsTheMemberAtEpochMinusTwo() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        HeartbeatResponse s = send(join("s", List.of("t"), Optional.of("i")));
        send(leave("a", -1, Optional.empty()));
        send(leave("s", -2, Optional.of("i")));

        failover();

        assertThat(coordinator.describe(GROUP).orElseThrow().members())
                .extracting(GroupDescription.Member::memberId)
                .containsExactly("s");
        assertThat(member("s").memberEpoch()).isEqualTo(-2);
        HeartbeatResponse replacement = send(join("s2", List.of("t"), Optional.of("i")));
        assertThat(replacement.memberId()).isEqualTo("s2");
        assertThat(s.memberEpoch()).isPositive();
        assertThat(a.memberEpoch()).isPositive();
    }

    @Test
    void aGroupForgottenOrDeletedIsDeletedFromTheStore() {
        send(join("a", List.of("t")));
        send(leave("a", -1, Optional.empty()));
        assertThat(store.groups()).extracting(StoredConsumerGroup::groupId).containsExactly(GROUP);

        var deleted = coordinator.forgetIfEmpty(GROUP);
        assertThat(coordinator.drainWrites()).singleElement().isInstanceOf(PendingWrites.Delete.class);
        assertThat(deleted).isNotDone();
    }

    @Test
    void aPartitionStoredAsOwnedTwiceStaysWithTheFirstMember() {
        TopicIdPartition p0 = partitions(topic, 0).first();
        TreeMap<TopicIdPartition, Integer> owned = new TreeMap<>(java.util.Map.of(p0, 5));
        StoredConsumerGroup stored = StoredConsumerGroup.empty(GROUP)
                .apply(List.of(
                        new GroupMetadata(5, UniformAssignor.NAME, 0),
                        MemberMetadata.empty("a"),
                        MemberMetadata.empty("b"),
                        new MemberAssignment("a", 5, 4, MemberState.STABLE, owned, new TreeMap<>()),
                        new MemberAssignment("b", 5, 4, MemberState.STABLE, owned, new TreeMap<>())));

        coordinator.load(List.of(stored), now);

        assertThat(member("a").assigned()).containsExactly(p0);
        assertThat(member("b").assigned()).isEmpty();
        coordinator.checkInvariants();
    }

    @Test
    void aRemovedMembersRecordsGoAndTheNewTargetIsWritten() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        send(join("b", List.of("t")));
        now += SESSION_MS + 1;
        send(beatUnchanged("a", a.memberEpoch()));
        queued();
        now += 1;
        assertThat(coordinator.tick(now)).isEqualTo(1);
        List<ConsumerGroupRecord> records = queued();
        assertThat(records).first().isInstanceOf(GroupMetadata.class);
        assertThat(records).contains(new MemberRemoved("b"));
    }
}
