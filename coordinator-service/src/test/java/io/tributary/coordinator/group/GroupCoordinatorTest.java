package io.tributary.coordinator.group;

import static io.tributary.coordinator.group.Heartbeats.GROUP;
import static io.tributary.coordinator.group.Heartbeats.REBALANCE_TIMEOUT_MS;
import static io.tributary.coordinator.group.Heartbeats.all;
import static io.tributary.coordinator.group.Heartbeats.assignment;
import static io.tributary.coordinator.group.Heartbeats.beat;
import static io.tributary.coordinator.group.Heartbeats.beatUnchanged;
import static io.tributary.coordinator.group.Heartbeats.join;
import static io.tributary.coordinator.group.Heartbeats.leave;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.protocol.Errors;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class GroupCoordinatorTest {

    private static final long T0 = 1_800_000_000_000L;

    private final FakeTopics topics = new FakeTopics();
    private final UUID topic = topics.create("t", 4).id();
    private final GroupCoordinator coordinator = new GroupCoordinator(GroupConfig.DEFAULTS, topics);
    private long now = T0;

    private HeartbeatResponse send(HeartbeatRequest request) {
        HeartbeatResponse response = coordinator.heartbeat(request, now);
        coordinator.checkInvariants();
        return response;
    }

    private static void assertError(Errors error, ThrowingCallable call) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        GroupException.class, e -> assertThat(e.error()).isEqualTo(error));
    }

    @Test
    void theFirstMemberJoinsAndGetsEveryPartition() {
        HeartbeatResponse response = send(join("a", List.of("t")));

        assertThat(response.memberEpoch()).isPositive();
        assertThat(assignment(response)).isEqualTo(all(topic, 4));
        assertThat(response.heartbeatIntervalMs()).isEqualTo(5000);
        assertThat(coordinator.describe(GROUP).orElseThrow().state()).isEqualTo(GroupDescription.STABLE);
    }

    @Test
    void aPartitionGoesToTheNewMemberOnlyAfterItsOwnerRevokedIt() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        int aEpoch = a.memberEpoch();

        HeartbeatResponse b = send(join("b", List.of("t")));
        assertThat(assignment(b)).as("everything is still owned by a").isEmpty();
        assertThat(b.memberEpoch()).isGreaterThan(aEpoch);

        // a learns it must give up two partitions, and stays at its epoch until it does.
        HeartbeatResponse aRevoke = send(beat("a", aEpoch, all(topic, 4)));
        Set<TopicIdPartition> aKeeps = assignment(aRevoke);
        assertThat(aKeeps).hasSize(2);
        assertThat(aRevoke.memberEpoch()).isEqualTo(aEpoch);
        assertThat(coordinator.describe(GROUP).orElseThrow().state()).isEqualTo(GroupDescription.RECONCILING);

        // a still reports all four: nothing moves.
        send(beat("a", aEpoch, all(topic, 4)));
        assertThat(send(beat("b", b.memberEpoch(), Set.of())).assignment()).isEmpty();

        // a revoked: it moves to the new epoch, and b gets the two partitions.
        HeartbeatResponse aDone = send(beat("a", aEpoch, aKeeps));
        assertThat(aDone.memberEpoch()).isEqualTo(b.memberEpoch());
        HeartbeatResponse bGets = send(beat("b", b.memberEpoch(), Set.of()));
        Set<TopicIdPartition> expected = new TreeSet<>(all(topic, 4));
        expected.removeAll(aKeeps);
        assertThat(assignment(bGets)).isEqualTo(expected);
        assertThat(coordinator.describe(GROUP).orElseThrow().state()).isEqualTo(GroupDescription.STABLE);
    }

    @Test
    void anAcknowledgementOfAnOlderAssignmentReleasesNothing() {
        // a is given all four, but its client could not resolve the topic yet (its metadata lags
        // the coordinator's): it acknowledges the part it could resolve, nothing, and goes on to
        // take all four once its metadata has the topic.
        HeartbeatResponse a = send(join("a", List.of("t")));
        assertThat(assignment(a)).isEqualTo(all(topic, 4));
        HeartbeatResponse b = send(join("b", List.of("t")));

        HeartbeatResponse stale = send(beat("a", a.memberEpoch(), Set.of()));
        Set<TopicIdPartition> aKeeps = assignment(stale);
        assertThat(aKeeps).hasSize(2);
        assertThat(stale.memberEpoch())
                .as("an empty list from a member that was given partitions acknowledges an older assignment")
                .isEqualTo(a.memberEpoch());
        assertThat(send(beat("b", b.memberEpoch(), Set.of())).assignment())
                .as("nothing released to b while a may still be taking all four")
                .isEmpty();

        // a caught up: it owns all four, then gives up the two it no longer keeps.
        assertThat(send(beat("a", a.memberEpoch(), all(topic, 4))).memberEpoch())
                .isEqualTo(a.memberEpoch());
        assertThat(send(beat("a", a.memberEpoch(), aKeeps)).memberEpoch()).isEqualTo(b.memberEpoch());
        Set<TopicIdPartition> rest = new TreeSet<>(all(topic, 4));
        rest.removeAll(aKeeps);
        assertThat(assignment(send(beat("b", b.memberEpoch(), Set.of())))).isEqualTo(rest);
    }

    @Test
    void aMemberThatLeavesReleasesItsPartitionsAtOnce() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        HeartbeatResponse b = send(join("b", List.of("t")));
        Set<TopicIdPartition> aKeeps = assignment(send(beat("a", a.memberEpoch(), all(topic, 4))));
        send(beat("a", a.memberEpoch(), aKeeps));
        int bEpoch = send(beat("b", b.memberEpoch(), Set.of())).memberEpoch();

        HeartbeatResponse left = send(leave("b", -1, Optional.empty()));

        assertThat(left.memberEpoch()).isEqualTo(-1);
        HeartbeatResponse aAll = send(beat("a", b.memberEpoch(), aKeeps));
        assertThat(assignment(aAll)).isEqualTo(all(topic, 4));
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.heartbeat(beat("b", bEpoch, Set.of()), now));
    }

    @Test
    void aMemberSilentForTheSessionTimeoutIsRemovedAndItsPartitionsReassigned() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        now += 10_000;
        HeartbeatResponse b = send(join("b", List.of("t")));

        now = T0 + GroupConfig.DEFAULTS.sessionTimeout().toMillis();
        assertThat(coordinator.tick(now))
                .as("exactly at the deadline, a is still in")
                .isZero();
        now += 1;
        assertThat(coordinator.tick(now)).isEqualTo(1);

        assertThat(assignment(send(beat("b", b.memberEpoch(), Set.of())))).isEqualTo(all(topic, 4));
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.heartbeat(beat("a", a.memberEpoch(), Set.of()), now));
    }

    @Test
    void aMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsRemoved() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        HeartbeatResponse b = send(join("b", List.of("t")));
        send(beat("a", a.memberEpoch(), all(topic, 4)));

        for (int i = 0; i < 20; i++) {
            now += REBALANCE_TIMEOUT_MS / 20;
            send(beat("a", a.memberEpoch(), all(topic, 4)));
            send(beat("b", b.memberEpoch(), Set.of()));
            coordinator.tick(now);
        }
        now += 1;
        assertThat(coordinator.tick(now)).isEqualTo(1);

        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.heartbeat(beat("a", a.memberEpoch(), Set.of()), now));
        assertThat(assignment(send(beat("b", b.memberEpoch(), Set.of())))).isEqualTo(all(topic, 4));
    }

    @Test
    void anEpochAheadOrOlderThanTheMembersIsFenced() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        int epoch = a.memberEpoch();

        assertError(Errors.FENCED_MEMBER_EPOCH, () -> coordinator.heartbeat(beat("a", epoch + 1, Set.of()), now));
        assertError(Errors.FENCED_MEMBER_EPOCH, () -> coordinator.heartbeat(beat("a", epoch - 1, Set.of()), now));
    }

    @Test
    void thePreviousEpochIsAcceptedWhenTheResponseThatMovedTheMemberWasLost() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        HeartbeatResponse b = send(join("b", List.of("t")));
        Set<TopicIdPartition> aKeeps = assignment(send(beat("a", a.memberEpoch(), all(topic, 4))));
        HeartbeatResponse moved = send(beat("a", a.memberEpoch(), aKeeps)); // the response is "lost"

        HeartbeatResponse retried = send(new HeartbeatRequest(
                GROUP,
                "a",
                a.memberEpoch(),
                Optional.empty(),
                Optional.empty(),
                REBALANCE_TIMEOUT_MS,
                Optional.of(List.of("t")),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new TreeSet<>(aKeeps)),
                "client-a",
                "127.0.0.1"));

        assertThat(retried.memberEpoch()).isEqualTo(moved.memberEpoch()).isEqualTo(b.memberEpoch());
        assertThat(assignment(retried)).as("a full request gets the assignment").isEqualTo(aKeeps);
        // Owning a partition that is not its own at the previous epoch is not a lost response.
        assertError(
                Errors.FENCED_MEMBER_EPOCH,
                () -> coordinator.heartbeat(beat("a", a.memberEpoch(), all(topic, 4)), now));
    }

    @Test
    void aHeartbeatThatDoesNotListOwnedPartitionsDoesNotCountAsARevocation() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        HeartbeatResponse b = send(join("b", List.of("t")));
        send(beat("a", a.memberEpoch(), all(topic, 4)));

        send(beatUnchanged("a", a.memberEpoch()));

        assertThat(send(beat("b", b.memberEpoch(), Set.of())).assignment()).isEmpty();
    }

    @Test
    void unknownMembersAreUnknownMemberIdAndUnknownGroupsGroupIdNotFound() {
        send(join("a", List.of("t")));

        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.heartbeat(beat("x", 5, Set.of()), now));
        assertError(
                Errors.GROUP_ID_NOT_FOUND,
                () -> coordinator.heartbeat(
                        new HeartbeatRequest(
                                "other",
                                "x",
                                5,
                                Optional.empty(),
                                Optional.empty(),
                                -1,
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                "c",
                                "h"),
                        now));
    }

    @Test
    void anUnknownGroupIsGroupIdNotFoundAsInKafkaEvenRightAfterClear() {
        HeartbeatResponse a = send(join("a", List.of("t")));

        coordinator.clear();

        assertError(Errors.GROUP_ID_NOT_FOUND, () -> coordinator.heartbeat(beat("a", a.memberEpoch(), Set.of()), now));
        assertError(
                Errors.GROUP_ID_NOT_FOUND,
                () -> coordinator.validateCommit(GROUP, "a", a.memberEpoch(), Optional.empty(), all(topic, 1)));
        assertThat(assignment(send(join("a", List.of("t"))))).isEqualTo(all(topic, 4));
    }

    @Test
    void aStaticMemberThatLeftForNowKeepsItsAssignmentAndAReplacementTakesItOver() {
        Optional<String> instance = Optional.of("i-1");
        HeartbeatResponse a = send(join("a", List.of("t"), instance));
        int groupEpoch = coordinator.describe(GROUP).orElseThrow().groupEpoch();

        assertThat(send(leave("a", -2, instance)).memberEpoch()).isEqualTo(-2);
        assertThat(coordinator.describe(GROUP).orElseThrow().members()).hasSize(1);

        HeartbeatResponse replacement = send(join("a2", List.of("t"), instance));

        assertThat(assignment(replacement)).isEqualTo(all(topic, 4));
        assertThat(replacement.memberEpoch()).isEqualTo(a.memberEpoch());
        assertThat(coordinator.describe(GROUP).orElseThrow().groupEpoch())
                .as("no rebalance")
                .isEqualTo(groupEpoch);
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.heartbeat(beat("a", a.memberEpoch(), Set.of()), now));
    }

    @Test
    void aStaticInstanceIdHeldByAnActiveMemberIsUnreleasedAndAnotherMemberUsingItIsFenced() {
        Optional<String> instance = Optional.of("i-1");
        HeartbeatResponse a = send(join("a", List.of("t"), instance));

        assertError(Errors.UNRELEASED_INSTANCE_ID, () -> coordinator.heartbeat(join("b", List.of("t"), instance), now));
        HeartbeatRequest impostor = new HeartbeatRequest(
                GROUP,
                "b",
                a.memberEpoch(),
                instance,
                Optional.empty(),
                -1,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                "c",
                "h");
        assertError(Errors.FENCED_INSTANCE_ID, () -> coordinator.heartbeat(impostor, now));
        assertError(Errors.FENCED_INSTANCE_ID, () -> coordinator.heartbeat(leave("b", -1, instance), now));
    }

    @Test
    void aStaticMemberThatDoesNotComeBackWithinTheSessionTimeoutIsRemoved() {
        Optional<String> instance = Optional.of("i-1");
        send(join("a", List.of("t"), instance));
        HeartbeatResponse b = send(join("b", List.of("t")));
        send(leave("a", -2, instance));

        now += GroupConfig.DEFAULTS.sessionTimeout().toMillis() - 1;
        send(beat("b", b.memberEpoch(), Set.of()));
        coordinator.tick(now);
        assertThat(coordinator.describe(GROUP).orElseThrow().members()).hasSize(2);
        now += 2;
        coordinator.tick(now);

        assertThat(coordinator.describe(GROUP).orElseThrow().members())
                .extracting(GroupDescription.Member::memberId)
                .containsExactly("b");
        HeartbeatResponse bAll = send(beat("b", b.memberEpoch(), Set.of()));
        assertThat(assignment(bAll)).isEqualTo(all(topic, 4));
    }

    @Test
    void aGroupAtItsMaximumSizeRefusesAnotherMember() {
        var small = new GroupCoordinator(GroupConfig.DEFAULTS.withMaxGroupSize(2), topics);
        small.heartbeat(join("a", List.of("t")), now);
        small.heartbeat(join("b", List.of("t")), now);

        assertError(Errors.GROUP_MAX_SIZE_REACHED, () -> small.heartbeat(join("c", List.of("t")), now));
    }

    @Test
    void anUnknownAssignorAndABadRegexAreRefused() {
        HeartbeatRequest ok = join("a", List.of("t"));
        HeartbeatRequest badAssignor = new HeartbeatRequest(
                GROUP,
                "a",
                0,
                Optional.empty(),
                Optional.empty(),
                1000,
                Optional.of(List.of("t")),
                Optional.empty(),
                Optional.of("sticky"),
                ok.ownedPartitions(),
                "c",
                "h");
        HeartbeatRequest badRegex = new HeartbeatRequest(
                GROUP,
                "a",
                0,
                Optional.empty(),
                Optional.empty(),
                1000,
                Optional.empty(),
                Optional.of("t("),
                Optional.empty(),
                ok.ownedPartitions(),
                "c",
                "h");

        assertError(Errors.UNSUPPORTED_ASSIGNOR, () -> coordinator.heartbeat(badAssignor, now));
        assertError(Errors.INVALID_REGULAR_EXPRESSION, () -> coordinator.heartbeat(badRegex, now));
        assertThat(coordinator.contains(GROUP))
                .as("a refused join leaves no group")
                .isFalse();
    }

    @Test
    void aJoinWithoutItsRequiredFieldsIsInvalid() {
        HeartbeatRequest noTimeout = new HeartbeatRequest(
                GROUP,
                "a",
                0,
                Optional.empty(),
                Optional.empty(),
                -1,
                Optional.of(List.of("t")),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new TreeSet<>()),
                "c",
                "h");
        HeartbeatRequest noSubscription = new HeartbeatRequest(
                GROUP,
                "a",
                0,
                Optional.empty(),
                Optional.empty(),
                1,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new TreeSet<>()),
                "c",
                "h");
        HeartbeatRequest noMemberId = new HeartbeatRequest(
                GROUP,
                "",
                0,
                Optional.empty(),
                Optional.empty(),
                1,
                Optional.of(List.of("t")),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new TreeSet<>()),
                "c",
                "h");

        assertError(Errors.INVALID_REQUEST, () -> coordinator.heartbeat(noTimeout, now));
        assertError(Errors.INVALID_REQUEST, () -> coordinator.heartbeat(noSubscription, now));
        assertError(Errors.INVALID_REQUEST, () -> coordinator.heartbeat(noMemberId, now));
    }

    @Test
    void aRegexSubscriptionFollowsTopicsCreatedLater() {
        HeartbeatRequest regexJoin = new HeartbeatRequest(
                GROUP,
                "a",
                0,
                Optional.empty(),
                Optional.empty(),
                1000,
                Optional.empty(),
                Optional.of("orders-.*"),
                Optional.empty(),
                Optional.of(new TreeSet<>()),
                "c",
                "h");
        HeartbeatResponse a = send(regexJoin);
        assertThat(assignment(a)).isEmpty();

        UUID orders = topics.create("orders-eu", 2).id();
        topics.create("payments", 2);
        coordinator.tick(now);
        HeartbeatResponse after = send(beat("a", a.memberEpoch(), Set.of()));

        assertThat(assignment(after)).isEqualTo(all(orders, 2));
        assertThat(after.memberEpoch()).isGreaterThan(a.memberEpoch());
    }

    @Test
    void newPartitionsOfASubscribedTopicAreAssignedAndADeletedTopicsAreRevoked() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        topics.grow("t", 6);
        HeartbeatResponse grown = send(beat("a", a.memberEpoch(), all(topic, 4)));
        assertThat(assignment(grown)).isEqualTo(all(topic, 6));

        topics.delete("t");
        HeartbeatResponse deleted = send(beat("a", grown.memberEpoch(), all(topic, 6)));
        assertThat(assignment(deleted)).isEmpty();
    }

    @Test
    void commitsAreAcceptedFromAMemberAtItsEpochOnly() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        Set<TopicIdPartition> p0 = all(topic, 1);

        assertThat(coordinator.validateCommit(GROUP, "a", a.memberEpoch(), Optional.empty(), p0))
                .isEqualTo(GroupCoordinator.Committer.MEMBER);
        assertError(
                Errors.STALE_MEMBER_EPOCH,
                () -> coordinator.validateCommit(GROUP, "a", a.memberEpoch() - 1, Optional.empty(), p0));
        assertError(
                Errors.STALE_MEMBER_EPOCH,
                () -> coordinator.validateCommit(GROUP, "a", a.memberEpoch() + 1, Optional.empty(), p0));
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.validateCommit(GROUP, "x", 1, Optional.empty(), p0));
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.validateCommit(GROUP, "", -1, Optional.empty(), p0));
        assertError(
                Errors.FENCED_INSTANCE_ID,
                () -> coordinator.validateCommit(GROUP, "a", a.memberEpoch(), Optional.of("i-9"), p0));
    }

    @Test
    void aCommitAtAnOlderEpochIsAcceptedForPartitionsOwnedSinceThenAsInKafka() {
        HeartbeatResponse a = send(join("a", List.of("t")));
        int aEpoch = a.memberEpoch();
        HeartbeatResponse b = send(join("b", List.of("t")));
        Set<TopicIdPartition> aKeeps = assignment(send(beat("a", aEpoch, all(topic, 4))));
        HeartbeatResponse aDone = send(beat("a", aEpoch, aKeeps));
        assertThat(aDone.memberEpoch()).isGreaterThan(aEpoch);
        Set<TopicIdPartition> bGets = assignment(send(beat("b", b.memberEpoch(), Set.of())));
        assertThat(bGets).hasSize(2);

        // a's commit sent at its old epoch, before it saw the response that moved it on (KIP-1251).
        assertThat(coordinator.validateCommit(GROUP, "a", aEpoch, Optional.empty(), aKeeps))
                .isEqualTo(GroupCoordinator.Committer.MEMBER);
        assertError(
                Errors.STALE_MEMBER_EPOCH,
                () -> coordinator.validateCommit(GROUP, "a", aEpoch, Optional.empty(), bGets));
        assertError(
                Errors.STALE_MEMBER_EPOCH,
                () -> coordinator.validateCommit(GROUP, "b", b.memberEpoch() - 1, Optional.empty(), bGets));
        assertThat(coordinator.validateCommit(GROUP, "b", b.memberEpoch(), Optional.empty(), bGets))
                .isEqualTo(GroupCoordinator.Committer.MEMBER);
    }

    @Test
    void commitsWithoutAMemberAreAcceptedIntoAGroupWithNoMembers() {
        assertThat(coordinator.validateCommit("fresh", "", -1, Optional.empty(), Set.of()))
                .isEqualTo(GroupCoordinator.Committer.ADMIN);
        assertError(
                Errors.GROUP_ID_NOT_FOUND,
                () -> coordinator.validateCommit("fresh", "m", 3, Optional.empty(), Set.of()));

        HeartbeatResponse a = send(join("a", List.of("t")));
        send(leave("a", -1, Optional.empty()));
        assertThat(coordinator.validateCommit(GROUP, "", -1, Optional.empty(), Set.of()))
                .isEqualTo(GroupCoordinator.Committer.ADMIN);
        assertError(
                Errors.UNKNOWN_MEMBER_ID,
                () -> coordinator.validateCommit(GROUP, "a", a.memberEpoch(), Optional.empty(), all(topic, 4)));
    }

    @Test
    void fetchesWithoutAMemberAreAlwaysAllowedAndMembersMustBeAtTheirEpoch() {
        HeartbeatResponse a = send(join("a", List.of("t")));

        coordinator.validateFetch(GROUP, Optional.empty(), -1);
        coordinator.validateFetch(GROUP, Optional.of("a"), a.memberEpoch());
        assertError(
                Errors.STALE_MEMBER_EPOCH,
                () -> coordinator.validateFetch(GROUP, Optional.of("a"), a.memberEpoch() - 1));
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.validateFetch(GROUP, Optional.of("x"), 1));
    }

    @Test
    void aGroupWithMembersCannotBeDeleted() {
        send(join("a", List.of("t")));

        assertError(Errors.NON_EMPTY_GROUP, () -> coordinator.checkDeletable(GROUP));
        send(leave("a", -1, Optional.empty()));
        coordinator.checkDeletable(GROUP);
        coordinator.forgetIfEmpty(GROUP);
        assertThat(coordinator.contains(GROUP)).isFalse();
    }

    @Test
    void theRebalanceTimeoutIsCappedAndTheAssignorIsTheMembersChoice() {
        var config = new GroupConfig(
                Duration.ofSeconds(45),
                Duration.ofSeconds(5),
                Duration.ofSeconds(10),
                10,
                10,
                4096,
                100,
                100,
                100,
                "uniform");
        var capped = new GroupCoordinator(config, topics);
        HeartbeatRequest rangeJoin = new HeartbeatRequest(
                GROUP,
                "a",
                0,
                Optional.empty(),
                Optional.empty(),
                600_000,
                Optional.of(List.of("t")),
                Optional.empty(),
                Optional.of("range"),
                Optional.of(new TreeSet<>()),
                "c",
                "h");
        HeartbeatResponse a = capped.heartbeat(rangeJoin, now);
        HeartbeatResponse b = capped.heartbeat(join("b", List.of("t")), now);
        capped.heartbeat(beat("a", a.memberEpoch(), all(topic, 4)), now);

        assertThat(capped.describe(GROUP).orElseThrow().assignor()).isEqualTo("range");
        now += 10_001;
        capped.heartbeat(beat("b", b.memberEpoch(), Set.of()), now);
        assertThat(capped.tick(now))
                .as("removed after the capped 10 s, not 600 s")
                .isEqualTo(1);
        assertThat(new HashSet<>(capped.describe(GROUP).orElseThrow().members().stream()
                        .map(GroupDescription.Member::memberId)
                        .toList()))
                .containsExactly("b");
    }

    @Test
    void atTheGroupLimitAGroupWithoutMembersIsForgottenAndOtherwiseTheJoinIsRetriable() {
        var config = new GroupConfig(
                Duration.ofSeconds(45),
                Duration.ofSeconds(5),
                Duration.ofMinutes(5),
                10,
                1,
                4096,
                100,
                100,
                100,
                "uniform");
        var one = new GroupCoordinator(config, topics);
        one.heartbeat(join("a", List.of("t")), now);
        HeartbeatRequest other = new HeartbeatRequest(
                "other",
                "b",
                0,
                Optional.empty(),
                Optional.empty(),
                1000,
                Optional.of(List.of("t")),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new TreeSet<>()),
                "c",
                "h");

        assertError(Errors.COORDINATOR_NOT_AVAILABLE, () -> one.heartbeat(other, now));
        one.heartbeat(leave("a", -1, Optional.empty()), now);
        assertThat(one.heartbeat(other, now).memberEpoch()).isPositive();
        assertThat(one.contains(GROUP)).isFalse();
    }

    @Test
    void aStaticMemberLeavingForNowReleasesWhatItWasRevokingAndKeepsTheRest() {
        Optional<String> instance = Optional.of("i-1");
        HeartbeatResponse a = send(join("a", List.of("t"), instance));
        HeartbeatResponse b = send(join("b", List.of("t")));
        Set<TopicIdPartition> aKeeps = assignment(send(beat("a", a.memberEpoch(), all(topic, 4))));

        send(leave("a", -2, instance));

        HeartbeatResponse bGets = send(beat("b", b.memberEpoch(), Set.of()));
        Set<TopicIdPartition> expected = new TreeSet<>(all(topic, 4));
        expected.removeAll(aKeeps);
        assertThat(assignment(bGets)).isEqualTo(expected);
        assertThat(assignment(send(join("a2", List.of("t"), instance)))).isEqualTo(aKeeps);
    }
}
