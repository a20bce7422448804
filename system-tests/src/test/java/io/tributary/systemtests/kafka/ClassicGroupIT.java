package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Differential ({@link Differential}): Kafka's classic consumer group protocol (JoinGroup,
 * SyncGroup, Heartbeat, LeaveGroup, OffsetCommit with a generation) as the default {@code
 * KafkaConsumer} speaks it (no {@code group.protocol} set), on a {@value ClassicGroupSteps#PARTITIONS}-partition
 * topic, with short sessions ({@link GroupMember#CLASSIC_SESSION_TIMEOUT}, heartbeats every {@link
 * GroupMember#CLASSIC_HEARTBEAT_INTERVAL}). Each member polls, reports each record and {@code
 * commitSync}s what the poll returned; every callback, delivery, commit and crash goes into one
 * {@link GroupHistory}. {@link SequenceProducer} writes {@value #RECORDS_PER_STEP} more records
 * (keyed 0, 1, 2...: the same records in the same partitions on every target) before the first
 * step and during each change, so that the changes happen while records flow and every count and
 * committed offset compared is the same on every target.
 *
 * <ul>
 *   <li>Dynamic members, eager ({@code RangeAssignor}) and cooperative ({@code
 *       CooperativeStickyAssignor}): three join (one of them in a child JVM); one closes (LeaveGroup:
 *       its partitions move before its session could have expired); the child gets SIGKILL (its
 *       partitions move once its session expired, not before).
 *   <li>Online migration between the classic and the consumer protocol (below).
 * </ul>
 *
 * After each change, once the group is stable again ({@link GroupScenario#awaitStable}): every
 * partition is owned by exactly one live member by the callbacks and by {@code
 * describeConsumerGroups} ({@code STABLE}); no partition was assigned while another member owned
 * it; no record below a committed offset was delivered again, a record was delivered twice only in
 * a partition a crash, a lost partition or a failed commit explains; no commit went back (by the
 * members' commits and by the group's committed offsets, read through the admin client); every
 * record written so far was delivered and the group committed each partition's end (no loss: what
 * the killed member read without committing was read again by the next owner). Written down and
 * compared with Apache Kafka's: after each change how many partitions each member holds, how many
 * records were written and all delivered and committed, whether the partitions moved before or
 * after the session timeout, the group's type; at the end the committed offset of every partition
 * and how many distinct records were consumed; never ids or times. Static members have their own
 * class, {@link ClassicStaticMembersIT}, which runs alone.
 */
@OnSharedTargets
class ClassicGroupIT {

    private static final int RECORDS_PER_STEP = ClassicGroupSteps.RECORDS_PER_STEP;

    private static final GroupMember.Protocol EAGER = GroupMember.Protocol.CLASSIC_EAGER;
    private static final GroupMember.Protocol COOPERATIVE = GroupMember.Protocol.CLASSIC_COOPERATIVE;

    /**
     * The least time a killed member's partitions take to move: its session timeout from its last
     * heartbeat, which was at most a heartbeat interval (and a scheduling hiccup) before the kill.
     */
    static final Duration LEAST_EXPIRY =
            GroupMember.CLASSIC_SESSION_TIMEOUT.minus(GroupMember.CLASSIC_HEARTBEAT_INTERVAL.multipliedBy(2));

    @Test
    void eagerMembersJoinLeaveAndCrashWhileEveryPartitionHasOneOwnerAndNothingIsLost() {
        Differential.assertSameOutcome((target, outcome) -> joinLeaveCrash(target, outcome, EAGER));
    }

    @Test
    void cooperativeMembersJoinLeaveAndCrashWhileEveryPartitionHasOneOwnerAndNothingIsLost() {
        Differential.assertSameOutcome((target, outcome) -> joinLeaveCrash(target, outcome, COOPERATIVE));
    }

    /**
     * Kafka 4.4's online migration with real consumers: one of three cooperative classic members is
     * restarted with {@code group.protocol=consumer} (the group becomes a consumer group whose two
     * other members keep the classic protocol), then with the classic protocol again (its leave
     * turns the group back into a classic group); records flow throughout and none is lost.
     */
    @Test
    void aMemberRestartedWithTheConsumerProtocolAndBackMovesTheGroupBetweenProtocolsLosingNothing() {
        Differential.assertSameOutcome(ClassicGroupIT::migration);
    }

    private static void joinLeaveCrash(KafkaTarget target, Differential.Outcome outcome, GroupMember.Protocol protocol)
            throws Exception {
        // the group and topic named classic-eager-... or classic-cooperative-...
        ClassicGroupSteps steps = new ClassicGroupSteps(
                target, outcome, protocol.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        try (steps) {
            steps.producer.limit(RECORDS_PER_STEP);
            steps.producer.start();
            GroupScenario.Running leaving = steps.start("member-1", null, protocol);
            steps.start("member-2", null, protocol);
            ChildGroupMember crashing = steps.startChild("member-3", null, protocol);
            steps.settle("three members joined", Set.of("member-1", "member-2", "member-3"));

            steps.producer.limit(2L * RECORDS_PER_STEP);
            long leftAt = System.nanoTime();
            leaving.leave();
            steps.running.remove(leaving);
            steps.scenario.awaitStable("member-1 closed (LeaveGroup)", Set.of("member-2", "member-3"), steps.running);
            Duration moved = Duration.ofNanos(System.nanoTime() - leftAt);
            steps.outcome.add(
                    "member-1's partitions moved before its session could have expired",
                    moved.compareTo(LEAST_EXPIRY) < 0);
            assertThat(moved)
                    .as(
                            "member-1's partitions moved %s after its close: its LeaveGroup was not acted on,"
                                    + " its %s session expired",
                            moved, GroupMember.CLASSIC_SESSION_TIMEOUT)
                    .isLessThan(LEAST_EXPIRY);
            steps.consumeAndCommit("member-1 closed (LeaveGroup)");

            steps.producer.limit(3L * RECORDS_PER_STEP);
            long killedAt = System.nanoTime();
            crashing.crash(steps.history);
            steps.scenario.awaitStable("member-3 killed (SIGKILL)", Set.of("member-2"), steps.running);
            moved = Duration.ofNanos(System.nanoTime() - killedAt);
            steps.outcome.add(
                    "member-3's partitions moved only once its session could have expired",
                    moved.compareTo(LEAST_EXPIRY) >= 0);
            assertThat(moved)
                    .as(
                            "the killed member's partitions moved %s after the kill, before its %s session could expire",
                            moved, GroupMember.CLASSIC_SESSION_TIMEOUT)
                    .isGreaterThanOrEqualTo(LEAST_EXPIRY);
            steps.consumeAndCommit("member-3 killed (SIGKILL)");

            steps.finish();
        }
        steps.background.check();
    }

    private static void migration(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        ClassicGroupSteps steps = new ClassicGroupSteps(target, outcome, "classic-migration");
        try (steps) {
            steps.producer.limit(RECORDS_PER_STEP);
            steps.producer.start();
            steps.start("member-1", null, COOPERATIVE);
            steps.start("member-2", null, COOPERATIVE);
            GroupScenario.Running third = steps.start("member-3", null, COOPERATIVE);
            steps.settle("three classic members joined", Set.of("member-1", "member-2", "member-3"));
            outcome.add("group type", steps.groupType());

            steps.producer.limit(2L * RECORDS_PER_STEP);
            third.leave();
            steps.running.remove(third);
            GroupScenario.Running upgraded = steps.start("member-3-consumer", null, GroupMember.Protocol.CONSUMER);
            steps.settle(
                    "member-3 restarted with group.protocol=consumer",
                    Set.of("member-1", "member-2", "member-3-consumer"));
            outcome.add("group type after member-3 came back with the consumer protocol", steps.groupType());

            steps.producer.limit(3L * RECORDS_PER_STEP);
            upgraded.leave();
            steps.running.remove(upgraded);
            steps.start("member-3-classic", null, COOPERATIVE);
            steps.settle(
                    "member-3 restarted with the classic protocol again",
                    Set.of("member-1", "member-2", "member-3-classic"));
            outcome.add("group type after member-3 came back with the classic protocol", steps.groupType());

            steps.finish();
        }
        steps.background.check();
    }
}
