package io.tributary.coordinator.group.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator.Committer;
import io.tributary.coordinator.group.GroupException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The streams-group state machine: topology and internal topics, task assignment and
 * reconciliation (revocation before reassignment), leaving, timeouts, fencing, topology epochs and
 * the offset rules.
 */
class StreamsGroupCoordinatorTest {

    private static final String GROUP = "app";
    private static final String INPUT = "input";
    private static final String REPARTITION = "app-counts-repartition";
    private static final String CHANGELOG = "app-counts-changelog";
    private static final long START_MS = 1_800_000_000_000L;

    private final FakeTopics topics = new FakeTopics();
    private final GroupConfig config = new GroupConfig(
            Duration.ofSeconds(10),
            Duration.ofSeconds(1),
            Duration.ofSeconds(30),
            10,
            100,
            4096,
            1000,
            1000,
            1000,
            "uniform");
    private static final StreamsGroupConfig NO_DELAY =
            StreamsGroupConfig.DEFAULTS.withInitialRebalanceDelay(Duration.ZERO);
    private final StreamsGroupCoordinator coordinator = new StreamsGroupCoordinator(config, NO_DELAY, topics);
    private long nowMs = START_MS;

    @AfterEach
    void invariants() {
        coordinator.checkInvariants();
    }

    /** Subtopology 0 reads the input and writes the repartition topic; 1 reads it and counts. */
    private static StreamsTopology topology(int epoch) {
        return Topologies.counting(epoch, INPUT, REPARTITION, 0, CHANGELOG);
    }

    private StreamsHeartbeatResponse join(String member, String process) {
        return join(member, process, topology(0));
    }

    private StreamsHeartbeatResponse join(String member, String process, StreamsTopology topology) {
        return coordinator.heartbeat(
                request(member, 0, Optional.of(topology), Optional.of(Tasks.EMPTY), process), nowMs);
    }

    private StreamsHeartbeatResponse heartbeat(String member, int epoch, Tasks owned) {
        return coordinator.heartbeat(
                request(member, epoch, Optional.empty(), Optional.of(owned), "p-" + member), nowMs);
    }

    private static StreamsHeartbeatRequest request(
            String member, int epoch, Optional<StreamsTopology> topology, Optional<Tasks> owned, String process) {
        return new StreamsHeartbeatRequest(
                GROUP,
                member,
                epoch,
                0,
                Optional.empty(),
                Optional.empty(),
                epoch == 0 ? 30_000 : -1,
                topology,
                owned,
                Optional.of(process),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                false,
                "client-" + member,
                "/127.0.0.1");
    }

    private static SortedSet<TaskId> tasks(String subtopology, int... partitions) {
        SortedSet<TaskId> tasks = new TreeSet<>();
        for (int p : partitions) {
            tasks.add(new TaskId(subtopology, p));
        }
        return tasks;
    }

    private static Tasks active(SortedSet<TaskId> tasks) {
        return new Tasks(tasks, new TreeSet<>(), new TreeSet<>());
    }

    private void createInternalTopics(StreamsHeartbeatResponse response) {
        for (StreamsTopology.InternalTopic topic : response.topicsToCreate()) {
            topics.create(topic.name(), topic.partitions());
        }
    }

    /** Joins "a" alone with every topic there: it owns all 8 tasks; returns its epoch. */
    private int soloMemberOwningEverything() {
        topics.create(INPUT, 4);
        createInternalTopics(join("a", "p-a"));
        StreamsHeartbeatResponse response = heartbeat("a", epochOf("a"), Tasks.EMPTY);
        assertThat(response.assignment().orElseThrow().active()).hasSize(8);
        return response.memberEpoch();
    }

    private int epochOf(String member) {
        return coordinator.describe(GROUP).orElseThrow().members().stream()
                .filter(m -> m.memberId().equals(member))
                .findFirst()
                .orElseThrow()
                .memberEpoch();
    }

    @Test
    void aMissingSourceTopicIsAStatusAndNoTasks() {
        StreamsHeartbeatResponse response = join("a", "p-a");

        assertThat(response.statuses())
                .extracting(StreamsStatus::code)
                .containsExactly(StreamsStatus.Code.MISSING_SOURCE_TOPICS);
        assertThat(response.statuses().getFirst().detail()).contains(INPUT);
        assertThat(response.assignment().orElseThrow().isEmpty()).isTrue();
        assertThat(response.topicsToCreate()).isEmpty();
        assertThat(coordinator.describe(GROUP).orElseThrow().state()).isEqualTo(StreamsGroup.NOT_READY);
    }

    @Test
    void missingInternalTopicsAreToBeCreatedWithTheSourcePartitionCountAndThenTasksAreAssigned() {
        topics.create(INPUT, 4);

        StreamsHeartbeatResponse response = join("a", "p-a");

        assertThat(response.statuses())
                .extracting(StreamsStatus::code)
                .containsExactly(StreamsStatus.Code.MISSING_INTERNAL_TOPICS);
        assertThat(response.topicsToCreate())
                .extracting(StreamsTopology.InternalTopic::name, StreamsTopology.InternalTopic::partitions)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(CHANGELOG, 4),
                        org.assertj.core.groups.Tuple.tuple(REPARTITION, 4));
        assertThat(response.topicsToCreate())
                .filteredOn(t -> t.name().equals(CHANGELOG))
                .extracting(StreamsTopology.InternalTopic::configs)
                .containsExactly(Map.of("cleanup.policy", "compact"));
        assertThat(response.assignment().orElseThrow().isEmpty()).isTrue();
        assertThat(coordinator.missingInternalTopics()).hasSize(2);

        createInternalTopics(response);
        coordinator.tick(nowMs);
        StreamsHeartbeatResponse next = heartbeat("a", response.memberEpoch(), Tasks.EMPTY);

        assertThat(next.statuses()).isEmpty();
        assertThat(next.topicsToCreate()).isEmpty();
        assertThat(next.memberEpoch()).isGreaterThan(response.memberEpoch());
        Tasks assignment = next.assignment().orElseThrow();
        assertThat(assignment.active())
                .containsExactlyElementsOf(union(tasks("0", 0, 1, 2, 3), tasks("1", 0, 1, 2, 3)));
        assertThat(assignment.standby()).isEmpty();
        assertThat(coordinator.describe(GROUP).orElseThrow().state()).isEqualTo(StreamsGroup.STABLE);
    }

    @Test
    void aNewGroupsFirstAssignmentWaitsForTheInitialRebalanceDelayThenSharesTheTasksAtOnce() {
        StreamsGroupCoordinator delayed = new StreamsGroupCoordinator(
                config, StreamsGroupConfig.DEFAULTS.withInitialRebalanceDelay(Duration.ofSeconds(3)), topics);
        topics.create(INPUT, 4);
        topics.create(REPARTITION, 4);
        topics.create(CHANGELOG, 4);

        StreamsHeartbeatResponse a =
                delayed.heartbeat(request("a", 0, Optional.of(topology(0)), Optional.of(Tasks.EMPTY), "p-a"), nowMs);
        assertThat(a.statuses()).extracting(StreamsStatus::code).containsExactly(StreamsStatus.Code.ASSIGNMENT_DELAYED);
        assertThat(a.assignment().orElseThrow().isEmpty()).isTrue();
        nowMs += 1000;
        StreamsHeartbeatResponse b =
                delayed.heartbeat(request("b", 0, Optional.of(topology(0)), Optional.of(Tasks.EMPTY), "p-b"), nowMs);
        assertThat(b.assignment().orElseThrow().isEmpty()).isTrue();

        nowMs += 2001;
        StreamsHeartbeatResponse aAfter = delayed.heartbeat(
                request("a", a.memberEpoch(), Optional.empty(), Optional.of(Tasks.EMPTY), "p-a"), nowMs);
        StreamsHeartbeatResponse bAfter = delayed.heartbeat(
                request("b", b.memberEpoch(), Optional.empty(), Optional.of(Tasks.EMPTY), "p-b"), nowMs);

        assertThat(aAfter.statuses()).isEmpty();
        assertThat(aAfter.assignment().orElseThrow().active())
                .as("a's half, without a revocation first")
                .hasSize(4);
        assertThat(bAfter.assignment().orElseThrow().active()).hasSize(4);
        delayed.checkInvariants();
    }

    @Test
    void aJoiningMemberGetsTasksOnlyAfterTheOwnerRevokedThem() {
        int epochA = soloMemberOwningEverything();
        Tasks all = active(union(tasks("0", 0, 1, 2, 3), tasks("1", 0, 1, 2, 3)));

        StreamsHeartbeatResponse b = join("b", "p-b");
        assertThat(b.assignment().orElseThrow().isEmpty())
                .as("b waits for a to revoke")
                .isTrue();

        StreamsHeartbeatResponse a = heartbeat("a", epochA, all);
        assertThat(a.memberEpoch()).as("a stays at its epoch while revoking").isEqualTo(epochA);
        Tasks kept = a.assignment().orElseThrow();
        assertThat(kept.active()).hasSize(4);
        assertThat(coordinator.describe(GROUP).orElseThrow().state()).isEqualTo(StreamsGroup.RECONCILING);

        StreamsHeartbeatResponse bAgain = heartbeat("b", b.memberEpoch(), Tasks.EMPTY);
        assertThat(bAgain.assignment().map(Tasks::active).orElse(new TreeSet<>()))
                .as("still owned by a")
                .isEmpty();

        StreamsHeartbeatResponse aAcked = heartbeat("a", epochA, kept);
        assertThat(aAcked.memberEpoch()).isGreaterThan(epochA);
        StreamsHeartbeatResponse bGets = heartbeat("b", bAgain.memberEpoch(), Tasks.EMPTY);
        SortedSet<TaskId> expected = new TreeSet<>(all.active());
        expected.removeAll(kept.active());
        assertThat(bGets.assignment().orElseThrow().active()).isEqualTo(expected);
        heartbeat("a", aAcked.memberEpoch(), kept);
        assertThat(coordinator.describe(GROUP).orElseThrow().state()).isEqualTo(StreamsGroup.STABLE);
    }

    @Test
    void anAcknowledgementOfAnOlderAssignmentReleasesNothing() {
        // a was given all 8 tasks but has not reported owning them: its empty list acknowledges
        // what it had before, and it may still be taking the 8.
        int epochA = soloMemberOwningEverything();
        Tasks all = active(union(tasks("0", 0, 1, 2, 3), tasks("1", 0, 1, 2, 3)));
        StreamsHeartbeatResponse b = join("b", "p-b");

        StreamsHeartbeatResponse stale = heartbeat("a", epochA, Tasks.EMPTY);
        assertThat(stale.memberEpoch()).as("a stays at its epoch").isEqualTo(epochA);
        Tasks kept = stale.assignment().orElseThrow();
        assertThat(kept.active()).hasSize(4);
        assertThat(heartbeat("b", b.memberEpoch(), Tasks.EMPTY)
                        .assignment()
                        .map(Tasks::active)
                        .orElse(new TreeSet<>()))
                .as("nothing released to b while a may still be taking all 8")
                .isEmpty();

        heartbeat("a", epochA, all);
        assertThat(heartbeat("a", epochA, kept).memberEpoch()).isGreaterThan(epochA);
        SortedSet<TaskId> rest = new TreeSet<>(all.active());
        rest.removeAll(kept.active());
        assertThat(heartbeat("b", b.memberEpoch(), Tasks.EMPTY)
                        .assignment()
                        .orElseThrow()
                        .active())
                .isEqualTo(rest);
    }

    @Test
    void theSurvivorTakesEveryTaskWhenAMemberLeaves() {
        int epochA = soloMemberOwningEverything();
        Tasks all = active(union(tasks("0", 0, 1, 2, 3), tasks("1", 0, 1, 2, 3)));
        StreamsHeartbeatResponse b = join("b", "p-b");
        Tasks kept = heartbeat("a", epochA, all).assignment().orElseThrow();
        heartbeat("a", epochA, kept);
        Tasks bTasks = heartbeat("b", b.memberEpoch(), Tasks.EMPTY).assignment().orElseThrow();
        assertThat(bTasks.active()).hasSize(4);

        StreamsHeartbeatResponse left = coordinator.heartbeat(
                request("b", StreamsHeartbeatRequest.LEAVE_EPOCH, Optional.empty(), Optional.empty(), "p-b"), nowMs);
        assertThat(left.memberEpoch()).isEqualTo(StreamsHeartbeatRequest.LEAVE_EPOCH);

        StreamsHeartbeatResponse a = heartbeat("a", epochOf("a"), kept);
        assertThat(a.assignment().orElseThrow()).isEqualTo(all);
    }

    @Test
    void aSilentMemberIsRemovedAfterTheSessionTimeout() {
        soloMemberOwningEverything();
        join("b", "p-b");

        nowMs += config.sessionTimeout().toMillis() + 1;
        heartbeat("a", epochOf("a"), active(union(tasks("0", 0, 1, 2, 3), tasks("1", 0, 1, 2, 3))));
        assertThat(coordinator.tick(nowMs)).isEqualTo(1);

        assertThat(coordinator.describe(GROUP).orElseThrow().members())
                .extracting(StreamsGroupDescription.Member::memberId)
                .containsExactly("a");
    }

    @Test
    void aMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsRemoved() {
        int epochA = soloMemberOwningEverything();
        Tasks all = active(union(tasks("0", 0, 1, 2, 3), tasks("1", 0, 1, 2, 3)));
        join("b", "p-b");
        heartbeat("a", epochA, all);

        nowMs += 30_001;
        heartbeat("b", epochOf("b"), Tasks.EMPTY);
        coordinator.tick(nowMs);

        assertThat(coordinator.describe(GROUP).orElseThrow().members())
                .extracting(StreamsGroupDescription.Member::memberId)
                .containsExactly("b");
    }

    @Test
    void anEpochAheadOrAnUnknownMemberIsRefused() {
        int epochA = soloMemberOwningEverything();

        assertThatThrownBy(() -> heartbeat("a", epochA + 5, Tasks.EMPTY))
                .isInstanceOf(GroupException.class)
                .extracting(e -> ((GroupException) e).error())
                .isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        assertThatThrownBy(() -> heartbeat("zz", epochA, Tasks.EMPTY))
                .extracting(e -> ((GroupException) e).error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThatThrownBy(() -> coordinator.heartbeat(
                        new StreamsHeartbeatRequest(
                                "other",
                                "m",
                                3,
                                0,
                                Optional.empty(),
                                Optional.empty(),
                                -1,
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                false,
                                "c",
                                "h"),
                        nowMs))
                .extracting(e -> ((GroupException) e).error())
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
    }

    @Test
    void aJoinWithoutTopologyOrWithTasksIsAnInvalidRequest() {
        assertThatThrownBy(() ->
                        coordinator.heartbeat(request("a", 0, Optional.empty(), Optional.of(Tasks.EMPTY), "p"), nowMs))
                .extracting(e -> ((GroupException) e).error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThatThrownBy(() -> coordinator.heartbeat(
                        request("a", 0, Optional.of(topology(0)), Optional.of(active(tasks("0", 1))), "p"), nowMs))
                .extracting(e -> ((GroupException) e).error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(coordinator.groupCount())
                .as("a refused join leaves no group")
                .isZero();
    }

    @Test
    void aHigherTopologyEpochIsRefusedWhileOthersRunAndALowerOneIsStale() {
        soloMemberOwningEverything();

        assertThatThrownBy(() -> join("b", "p-b", topology(1)))
                .extracting(e -> ((GroupException) e).error())
                .isEqualTo(Errors.STREAMS_INVALID_TOPOLOGY_EPOCH);

        StreamsGroupCoordinator other = new StreamsGroupCoordinator(config, NO_DELAY, topics);
        other.heartbeat(request("a", 0, Optional.of(topology(2)), Optional.of(Tasks.EMPTY), "p-a"), nowMs);
        StreamsHeartbeatResponse stale =
                other.heartbeat(request("b", 0, Optional.of(topology(1)), Optional.of(Tasks.EMPTY), "p-b"), nowMs);
        assertThat(stale.statuses()).extracting(StreamsStatus::code).contains(StreamsStatus.Code.STALE_TOPOLOGY);
    }

    @Test
    void commitsAreAcceptedAtTheCurrentEpochAndAtAnOlderOneOnlyForTasksOwnedSinceThen() {
        int epochA = soloMemberOwningEverything();
        Tasks all = active(union(tasks("0", 0, 1, 2, 3), tasks("1", 0, 1, 2, 3)));
        join("b", "p-b");
        Tasks kept = heartbeat("a", epochA, all).assignment().orElseThrow();
        int newEpoch = heartbeat("a", epochA, kept).memberEpoch();
        assertThat(newEpoch).isGreaterThan(epochA);
        int keptPartition = kept.active().stream()
                .filter(t -> t.subtopologyId().equals("0"))
                .findFirst()
                .orElseThrow()
                .partition();
        int lostPartition = all.active().stream()
                .filter(t -> t.subtopologyId().equals("0") && !kept.active().contains(t))
                .findFirst()
                .orElseThrow()
                .partition();

        assertThat(coordinator.validateCommit(
                        GROUP, "a", newEpoch, Optional.empty(), Map.of(INPUT, List.of(keptPartition, lostPartition))))
                .as("current epoch")
                .contains(Committer.MEMBER);
        assertThat(coordinator.validateCommit(
                        GROUP, "a", epochA, Optional.empty(), Map.of(INPUT, List.of(keptPartition))))
                .as("an older epoch for a task owned since then")
                .contains(Committer.MEMBER);
        assertThatThrownBy(() -> coordinator.validateCommit(
                        GROUP, "a", epochA, Optional.empty(), Map.of(INPUT, List.of(lostPartition))))
                .extracting(e -> ((GroupException) e).error())
                .isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThatThrownBy(() -> coordinator.validateCommit(GROUP, "zz", newEpoch, Optional.empty(), Map.of()))
                .extracting(e -> ((GroupException) e).error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(coordinator.validateCommit("not-streams", "a", 1, Optional.empty(), Map.of()))
                .isEmpty();
    }

    @Test
    void aStaticMemberThatLeavesForNowIsReplacedByItsNextInstanceWithItsTasks() {
        topics.create(INPUT, 4);
        createInternalTopics(coordinator.heartbeat(staticRequest("a1", 0, Optional.of(topology(0))), nowMs));
        Tasks owned = coordinator
                .heartbeat(staticRequest("a1", epochOf("a1"), Optional.empty()), nowMs)
                .assignment()
                .orElseThrow();
        assertThat(owned.active()).hasSize(8);

        coordinator.heartbeat(staticRequest("a1", StreamsHeartbeatRequest.STATIC_LEAVE_EPOCH, Optional.empty()), nowMs);
        StreamsHeartbeatResponse back = coordinator.heartbeat(staticRequest("a2", 0, Optional.of(topology(0))), nowMs);

        assertThat(back.assignment().orElseThrow()).isEqualTo(owned);
        assertThat(coordinator.describe(GROUP).orElseThrow().members())
                .extracting(StreamsGroupDescription.Member::memberId)
                .containsExactly("a2");
    }

    private static StreamsHeartbeatRequest staticRequest(String member, int epoch, Optional<StreamsTopology> topology) {
        return new StreamsHeartbeatRequest(
                GROUP,
                member,
                epoch,
                0,
                Optional.of("instance"),
                Optional.empty(),
                epoch == 0 ? 30_000 : -1,
                topology,
                Optional.of(Tasks.EMPTY),
                Optional.of("p"),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                false,
                "c",
                "h");
    }

    private static SortedSet<TaskId> union(SortedSet<TaskId> a, SortedSet<TaskId> b) {
        SortedSet<TaskId> union = new TreeSet<>(a);
        union.addAll(b);
        return union;
    }
}
