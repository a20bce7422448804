package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.BackgroundFailures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/**
 * Differential ({@link Differential}): issue 8's group scenario with real {@code KafkaConsumer}s ({@code group.protocol=consumer},
 * KIP-848) against each target: a group of 3 on a {@value #PARTITIONS}-partition topic while a
 * producer writes sequential values keyed across the partitions the whole time. Every member polls,
 * reports each record and {@code commitSync}s what the poll returned; every callback, delivery and
 * commit goes into one {@link GroupHistory}. The membership changes one step at a time:
 *
 * <ol>
 *   <li>a 4th member joins;
 *   <li>a member leaves cleanly ({@code close});
 *   <li>a member crashes (a child JVM, SIGKILL: no leave; the coordinator must expire its session);
 *   <li>a static member ({@code group.instance.id}) leaves and comes back, and gets its partitions
 *       back, which nobody else was given meanwhile.
 * </ol>
 *
 * After each change, once the group is stable again: every partition is owned by exactly one live
 * member by the callbacks, and the group's description (state {@code STABLE}, each member's
 * assignment) says the same; no partition was ever assigned while another member owned it; no record
 * below a committed offset was delivered again; a record was delivered twice only in a partition a
 * crash, a lost partition or a failed commit explains. At the end every acknowledged value was
 * delivered, every offset of every partition was delivered, and the group's committed offsets are
 * the partitions' ends. Written down and compared with Apache Kafka's: after each change the stable
 * group's members and how many partitions each holds (the balance, not which partitions: that is the
 * assignor's choice), whether the static member got its partitions back and who was given them
 * meanwhile, and what was never delivered.
 *
 * <p>The crash waits for the coordinator's consumer-group session timeout: the Kafka target sets it
 * to 10 s ({@link ApacheKafkaTarget}); a target with a longer one makes this test slower, up to
 * {@link #PATIENCE}.
 */
@OnSharedTargets
class ConsumerGroupIT {

    static final int PARTITIONS = 12;

    /** How long the group may take to settle after a change (a crash waits for the session timeout). */
    static final Duration PATIENCE = GroupScenario.PATIENCE;

    private static final GroupMember.Protocol KIP_848 = GroupMember.Protocol.CONSUMER;

    @Test
    void membersJoinLeaveCrashAndComeBackWhileEveryPartitionHasOneOwnerAndNothingIsSkipped() {
        Differential.assertSameOutcome(ConsumerGroupIT::scenario);
    }

    private static void scenario(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        String topic = Clients.uniqueTopic("group-scenario");
        String group = "group-scenario-" + UUID.randomUUID().toString().substring(0, 8);
        short replication = (short) Math.min(3, target.registeredBrokerCount());
        GroupHistory history = new GroupHistory();
        Path logs = Path.of(System.getProperty("tributary.build.dir", "target"), "consumer-group-it");
        Files.createDirectories(logs);
        List<GroupScenario.Running> running = new ArrayList<>();
        ChildGroupMember crashing = null;
        // The producer's ticks and the child member's event reader report here (one collector per
        // target, so that one target's failures are not another's); checked in every wait.
        BackgroundFailures background = new BackgroundFailures();
        try (Admin admin = target.admin();
                SequenceProducer producer = new SequenceProducer(target, topic, background)) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, replication)))
                    .all()
                    .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            Clients.awaitLeaders(admin, topic, PARTITIONS);
            producer.start();
            GroupScenario scenario =
                    new GroupScenario(target, admin, group, topic, PARTITIONS, history, outcome, background);

            GroupScenario.Running dynamic = scenario.startMember("dynamic", null, KIP_848);
            running.add(dynamic);
            GroupScenario.Running static1 = scenario.startMember("static-1", "the-static-member", KIP_848);
            running.add(static1);
            crashing = scenario.startChild("crashing", null, KIP_848, logs.resolve(group + "-crashing.err"));
            scenario.awaitStable("three members", Set.of("dynamic", "static-1", "crashing"), running);

            GroupScenario.Running fourth = scenario.startMember("fourth", null, KIP_848);
            running.add(fourth);
            scenario.awaitStable(
                    "a fourth member joined", Set.of("dynamic", "static-1", "crashing", "fourth"), running);

            dynamic.leave();
            running.remove(dynamic);
            scenario.awaitStable("a member left cleanly", Set.of("static-1", "crashing", "fourth"), running);

            crashing.crash(history);
            scenario.awaitStable("a member crashed and its session expired", Set.of("static-1", "fourth"), running);

            Set<Integer> staticPartitions = history.ownedBy("static-1");
            int beforeStaticLeave = history.size();
            static1.leave();
            running.remove(static1);
            GroupScenario.Running static2 = scenario.startMember("static-2", "the-static-member", KIP_848);
            running.add(static2);
            scenario.awaitStable("the static member came back", Set.of("static-2", "fourth"), running);
            outcome.add(
                    "the static member's partitions back",
                    history.ownedBy("static-2").equals(staticPartitions));
            outcome.add(
                    "given the static member's partitions while it was away",
                    history.assignedSince(beforeStaticLeave, staticPartitions));
            assertThat(history.ownedBy("static-2"))
                    .as("the static member's partitions back, as before it left; %s", history)
                    .isEqualTo(staticPartitions);
            assertThat(history.assignedSince(beforeStaticLeave, staticPartitions))
                    .as("who was given the static member's partitions while it was away; %s", history)
                    .containsExactly("static-2");

            producer.stop();
            assertThat(producer.failureCount())
                    .as("failed sends of %d, e.g. %s; %s", producer.sent(), producer.failures(), target.logsHint())
                    .isZero();
            Map<Integer, Long> ends = producer.endOffsets();
            assertThat(ends.keySet()).as("partitions written").hasSize(PARTITIONS);
            scenario.awaitEverythingDeliveredAndCommitted(ends, running);

            Set<Long> missing = new TreeSet<>(producer.acknowledged());
            missing.removeAll(history.deliveredValues());
            outcome.add("acknowledged values never delivered", missing.size());
            outcome.add("committed offsets", "each partition's end");
            assertThat(missing)
                    .as("acknowledged values never delivered to the group")
                    .isEmpty();
            for (GroupScenario.Running member : running) {
                member.leave();
            }
            running.clear();
            scenario.checkInvariants("after every member left");
            outcome.add("two owners at once, records delivered below a commit", "none");
        } finally {
            for (GroupScenario.Running member : running) {
                member.leaveQuietly();
            }
            if (crashing != null) {
                crashing.close();
            }
            background.stopAll(PATIENCE);
        }
        background.check();
    }
}
