package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.BackgroundFailures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Differential ({@link Differential}): Kafka's classic consumer group protocol (JoinGroup,
 * SyncGroup, Heartbeat, LeaveGroup, OffsetCommit with a generation) as the default {@code
 * KafkaConsumer} speaks it (no {@code group.protocol} set), on a {@value #PARTITIONS}-partition
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
 *   <li>Static members (KIP-345, {@code group.instance.id}), eager: one closes without leaving (a
 *       static member's close does not send LeaveGroup) and a new consumer with its instance id
 *       takes its place; the child gets SIGKILL and a new child with its instance id starts within
 *       the session timeout. Each time the new incarnation gets exactly the partitions of the old
 *       one, in the same generation, and the other members see no rebalance (no rebalance
 *       callback, the same generation).
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
 * after the session timeout, for static members whether the partitions came back, the generation
 * stayed and how many rebalance callbacks the others saw; at the end the committed offset of every
 * partition and how many distinct records were consumed; never ids or times.
 */
@OnSharedTargets
// Alone, after every other class of the run: its static member must be restarted in a new child
// JVM within the 10 s session (see staticRestarts); beside another class's cluster on two loaded
// cores that start once took longer (the degraded target rebalanced the others).
@Isolated
class ClassicGroupIT {

    private static final Logger log = LoggerFactory.getLogger(ClassicGroupIT.class);

    static final int PARTITIONS = 12;

    /** Records written before the first step and during each change. */
    static final int RECORDS_PER_STEP = 600;

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

    @Test
    void staticMembersRestartedWithinTheirSessionGetTheirPartitionsBackWithoutARebalance() {
        Differential.assertSameOutcome(ClassicGroupIT::staticRestarts);
    }

    private static void joinLeaveCrash(KafkaTarget target, Differential.Outcome outcome, GroupMember.Protocol protocol)
            throws Exception {
        // the group and topic named classic-eager-... or classic-cooperative-...
        Steps steps = new Steps(
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
        Steps steps = new Steps(target, outcome, "classic-migration");
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

    private static void staticRestarts(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        Steps steps = new Steps(target, outcome, "classic-static");
        try (steps) {
            steps.producer.limit(RECORDS_PER_STEP);
            steps.producer.start();
            GroupScenario.Running a = steps.start("static-a", "instance-a", EAGER);
            GroupScenario.Running b = steps.start("static-b", "instance-b", EAGER);
            ChildGroupMember c = steps.startChild("static-c", "instance-c", EAGER);
            steps.settle("three static members joined", Set.of("static-a", "static-b", "static-c"));

            // static-a closes (a static member's close does not leave) and comes back at once.
            Set<Integer> partitionsOfA = steps.history.ownedBy("static-a");
            int generation = b.member().generationId();
            Quiet others = steps.quiet(List.of(b), "static-b", "static-c");
            steps.producer.limit(2L * RECORDS_PER_STEP);
            a.leave();
            steps.running.remove(a);
            GroupScenario.Running a2 = steps.start("static-a-restarted", "instance-a", EAGER);
            String phase = "static-a closed and restarted with its instance id";
            steps.settle(phase, Set.of("static-a-restarted", "static-b", "static-c"));
            steps.staticReturn(phase, "static-a-restarted", "instance-a", partitionsOfA, others);
            steps.sameGeneration(phase, generation, List.of(a2, b));

            // static-c is killed and a new child with its instance id starts at once.
            Set<Integer> partitionsOfC = steps.history.ownedBy("static-c");
            others = steps.quiet(List.of(a2, b), "static-a-restarted", "static-b");
            steps.producer.limit(3L * RECORDS_PER_STEP);
            c.crash(steps.history);
            steps.startChild("static-c-restarted", "instance-c", EAGER);
            phase = "static-c killed (SIGKILL) and restarted with its instance id";
            steps.settle(phase, Set.of("static-a-restarted", "static-b", "static-c-restarted"));
            steps.staticReturn(phase, "static-c-restarted", "instance-c", partitionsOfC, others);
            steps.sameGeneration(phase, generation, List.of(a2, b));

            steps.finish();
        }
        steps.background.check();
    }

    /**
     * What the members in this JVM had seen when a static member went away, and where the history
     * was: any rebalance since shows as another generation, another {@code onPartitionsAssigned}
     * call, or a callback of a child member in the history.
     */
    record Quiet(Map<GroupScenario.Running, Integer> assignedCallbacks, List<String> members, int position) {}

    /** One target's run of a scenario: its topic, group, producer, members and their history. */
    private static final class Steps implements AutoCloseable {
        final Differential.Outcome outcome;
        final GroupHistory history = new GroupHistory();
        // The producer's ticks and the child members' readers report here (one collector per
        // target, so that one target's failures are not another's); checked in every wait.
        final BackgroundFailures background = new BackgroundFailures();
        final List<GroupScenario.Running> running = new ArrayList<>();
        final List<ChildGroupMember> children = new ArrayList<>();
        final KafkaTarget target;
        final String topic;
        final String group;
        final Path logs;
        final Admin admin;
        final SequenceProducer producer;
        final GroupScenario scenario;

        Steps(KafkaTarget target, Differential.Outcome outcome, String prefix) throws Exception {
            this.target = target;
            this.outcome = outcome;
            this.topic = Clients.uniqueTopic(prefix);
            this.group = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
            this.logs = Path.of(System.getProperty("tributary.build.dir", "target"), "classic-group-it");
            Files.createDirectories(logs);
            this.admin = target.admin();
            try {
                Clients.createTopic(admin, topic, PARTITIONS);
            } catch (Exception | AssertionError e) {
                admin.close();
                throw e;
            }
            this.producer = new SequenceProducer(target, topic, background);
            this.scenario = new GroupScenario(target, admin, group, topic, PARTITIONS, history, outcome, background);
        }

        GroupScenario.Running start(String name, String instanceId, GroupMember.Protocol protocol) {
            GroupScenario.Running member = scenario.startMember(name, instanceId, protocol);
            running.add(member);
            return member;
        }

        ChildGroupMember startChild(String name, String instanceId, GroupMember.Protocol protocol) throws Exception {
            ChildGroupMember child =
                    scenario.startChild(name, instanceId, protocol, logs.resolve(group + "-" + name + ".err"));
            children.add(child);
            return child;
        }

        /** Waits for the group to settle with {@code live}, then for every record to be consumed. */
        void settle(String phase, Set<String> live) throws Exception {
            scenario.awaitStable(phase, live, running);
            consumeAndCommit(phase);
        }

        /**
         * Waits until the producer wrote everything up to its limit and the group consumed and
         * committed all of it; writes down how many records that is.
         */
        void consumeAndCommit(String phase) {
            Map<Integer, Long> ends = producer.awaitLimit();
            assertThat(producer.failureCount())
                    .as("failed sends, e.g. %s; %s", producer.failures(), target.logsHint())
                    .isZero();
            scenario.awaitEverythingDeliveredAndCommitted(ends, running);
            outcome.add(
                    phase,
                    ends.values().stream().mapToLong(Long::longValue).sum()
                            + " records written, all delivered and committed");
        }

        /** The group's type as the admin client describes it ({@code Classic}, {@code Consumer}). */
        String groupType() throws Exception {
            return admin.describeConsumerGroups(List.of(group))
                    .all()
                    .get(GroupScenario.PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)
                    .get(group)
                    .type()
                    .toString();
        }

        Quiet quiet(List<GroupScenario.Running> inThisJvm, String... members) {
            Map<GroupScenario.Running, Integer> callbacks = new java.util.HashMap<>();
            inThisJvm.forEach(m -> callbacks.put(m, m.member().assignedCallbacks()));
            return new Quiet(callbacks, List.of(members), history.size());
        }

        /**
         * Writes down (and expects) that {@code returned}, a static member's new incarnation, holds
         * exactly the partitions of the old one, and that the others saw no rebalance since {@code
         * others} was taken; writes down the client id the group describes the instance with (Kafka
         * keeps the first incarnation's).
         */
        void staticReturn(String phase, String returned, String instanceId, Set<Integer> before, Quiet others)
                throws Exception {
            boolean same = history.ownedBy(returned).equals(before);
            outcome.add(phase + ": the partitions it had before", same);
            assertThat(history.ownedBy(returned))
                    .as("%s: %s's partitions, which the old incarnation had; %s", phase, returned, history)
                    .isEqualTo(before);
            List<String> callbacks = new ArrayList<>();
            others.assignedCallbacks().forEach((member, count) -> {
                int since = member.member().assignedCallbacks() - count;
                if (since != 0) {
                    callbacks.add(member.member().name() + ": onPartitionsAssigned " + since + " time(s)");
                }
            });
            List<GroupHistory.Event> events = history.snapshot();
            for (GroupHistory.Event event : events.subList(others.position(), events.size())) {
                boolean callback = event instanceof GroupHistory.Assigned
                        || event instanceof GroupHistory.Revoked
                        || event instanceof GroupHistory.Lost;
                if (callback && others.members().contains(event.member())) {
                    callbacks.add(event.toString());
                }
            }
            outcome.add(phase + ": rebalance callbacks of the other members", callbacks.size());
            assertThat(callbacks)
                    .as("%s: rebalances the other members saw; history:%n%s", phase, history)
                    .isEmpty();
            outcome.add(phase + ": the client id described for " + instanceId, scenario.describedClientId(instanceId));
        }

        /** Writes down (and expects) that every one of {@code members} is in {@code generation}. */
        void sameGeneration(String phase, int generation, List<GroupScenario.Running> members) {
            Map<String, Integer> generations = new java.util.TreeMap<>();
            members.forEach(m -> generations.put(m.member().name(), m.member().generationId()));
            boolean same = generations.values().stream().allMatch(g -> g == generation);
            outcome.add(phase + ": every member in the generation before", same);
            assertThat(generations)
                    .as("%s: generations, the one before was %d", phase, generation)
                    .allSatisfy((name, g) -> assertThat(g).as(name).isEqualTo(generation));
        }

        /**
         * Stops the producer; writes down the committed offset of every partition and how many
         * distinct records were consumed, and expects every acknowledged record among them; closes
         * every member and checks the history once more.
         */
        void finish() throws Exception {
            producer.stop();
            assertThat(producer.failureCount())
                    .as("failed sends, e.g. %s; %s", producer.failures(), target.logsHint())
                    .isZero();
            Map<Integer, Long> ends = producer.endOffsets();
            scenario.awaitEverythingDeliveredAndCommitted(ends, running);
            outcome.add("committed offsets by partition", scenario.committedOffsets());
            Set<Long> delivered = history.deliveredValues();
            outcome.add("distinct records consumed", delivered.size());
            Set<Long> missing = new TreeSet<>(producer.acknowledged());
            missing.removeAll(delivered);
            assertThat(missing).as("acknowledged values never delivered").isEmpty();
            assertThat(delivered)
                    .as("values delivered")
                    .containsExactlyInAnyOrderElementsOf(
                            LongStream.range(0, producer.sent()).boxed().toList());
            for (GroupScenario.Running member : List.copyOf(running)) {
                member.leave();
                running.remove(member);
            }
            for (ChildGroupMember child : children) {
                if (child.isAlive()) {
                    child.leave();
                }
            }
            scenario.checkInvariants("after every member closed");
            outcome.add("two owners at once, records delivered again unexplained, commits that went back", "none");
        }

        @Override
        public void close() throws Exception {
            log.info("{} outcome on {}:\n{}", group, target.kind(), String.join("\n", outcome.lines()));
            try {
                for (GroupScenario.Running member : running) {
                    member.leaveQuietly();
                }
                children.forEach(ChildGroupMember::close);
                producer.close();
                admin.close();
            } finally {
                background.stopAll(GroupScenario.PATIENCE);
            }
        }
    }
}
