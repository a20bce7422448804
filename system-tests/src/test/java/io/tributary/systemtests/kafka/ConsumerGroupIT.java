package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.BackgroundFailures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
@ExtendWith(KafkaTargets.class)
class ConsumerGroupIT {

    private static final Logger log = LoggerFactory.getLogger(ConsumerGroupIT.class);

    static final int PARTITIONS = 12;

    /** How long the group may take to settle after a change (a crash waits for the session timeout). */
    static final Duration PATIENCE = Clients.PATIENCE;

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
        List<Running> running = new ArrayList<>();
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
            Scenario scenario = new Scenario(target, admin, group, topic, history, outcome, background);

            Running dynamic = scenario.startMember("dynamic", null);
            running.add(dynamic);
            Running static1 = scenario.startMember("static-1", "the-static-member");
            running.add(static1);
            crashing = ChildGroupMember.start(
                    "crashing",
                    target.bootstrapServers(),
                    group,
                    topic,
                    history,
                    logs.resolve(group + "-crashing.err"),
                    background);
            scenario.awaitStable("three members", Set.of("dynamic", "static-1", "crashing"), running);

            Running fourth = scenario.startMember("fourth", null);
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
            Running static2 = scenario.startMember("static-2", "the-static-member");
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
            for (Running member : running) {
                member.leave();
            }
            running.clear();
            scenario.checkInvariants("after every member left");
            outcome.add("two owners at once, records delivered below a commit", "none");
        } finally {
            for (Running member : running) {
                member.leaveQuietly();
            }
            if (crashing != null) {
                crashing.close();
            }
            background.stopAll(PATIENCE);
        }
        background.check();
    }

    /** A member in this JVM and the thread running its loop. */
    record Running(GroupMember member, Thread thread) {
        void leave() throws InterruptedException {
            member.leave();
            thread.join(PATIENCE.toMillis());
            assertThat(thread.isAlive())
                    .as("%s still running after leave", member.name())
                    .isFalse();
            assertThat(member.failure()).as("what ended %s", member.name()).isNull();
        }

        void leaveQuietly() {
            member.leave();
            try {
                thread.join(PATIENCE.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The steps of the scenario on one target. */
    record Scenario(
            KafkaTarget target,
            Admin admin,
            String group,
            String topic,
            GroupHistory history,
            Differential.Outcome outcome,
            BackgroundFailures background) {

        Running startMember(String name, String instanceId) {
            GroupMember member =
                    new GroupMember(name, target.bootstrapServers(), group, instanceId, topic, history::add);
            Thread thread = Thread.ofPlatform().name("member-" + name).start(member);
            return new Running(member, thread);
        }

        /**
         * Waits until the callbacks give every partition to one of {@code live} and each of them
         * has some, and the group's description is {@code STABLE} with the same assignment; then
         * checks the whole history.
         */
        void awaitStable(String phase, Set<String> live, List<Running> running) {
            Set<Integer> all = IntStream.range(0, PARTITIONS).boxed().collect(Collectors.toSet());
            long start = System.nanoTime();
            try {
                Awaitility.await(phase)
                        .atMost(PATIENCE)
                        .pollInterval(Duration.ofMillis(250))
                        .untilAsserted(() -> {
                            assertMembersAlive(running);
                            Map<Integer, String> owners = history.owners();
                            assertThat(owners.keySet()).as("owned partitions").isEqualTo(all);
                            assertThat(Set.copyOf(owners.values())).as("owners").isEqualTo(live);
                            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group))
                                    .describedGroups()
                                    .get(group)
                                    .get(30, TimeUnit.SECONDS);
                            assertThat(description.groupState())
                                    .as("group state")
                                    .isEqualTo(GroupState.STABLE);
                            Map<String, Set<Integer>> described = new TreeMap<>();
                            for (MemberDescription member : description.members()) {
                                described.put(member.clientId(), partitionsOf(member));
                            }
                            Map<String, Set<Integer>> byCallbacks = new TreeMap<>();
                            owners.forEach((p, m) -> byCallbacks
                                    .computeIfAbsent(m, k -> new TreeSet<>())
                                    .add(p));
                            assertThat(described)
                                    .as("described assignment by client id")
                                    .isEqualTo(byCallbacks);
                        });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError(
                        phase + ": the group did not settle: " + e.getMessage() + "\nhistory:\n" + history + "\n"
                                + target.logsHint(),
                        e);
            }
            log.info(
                    "{}: settled after {} ms, owners {}",
                    phase,
                    (System.nanoTime() - start) / 1_000_000,
                    history.owners());
            checkInvariants(phase);
            // What the group looks like once stable: its members and how many partitions each holds
            // (which partitions is the assignor's choice; how balanced it is and who holds some is not).
            Map<String, Long> counts = new TreeMap<>(history.owners().values().stream()
                    .collect(Collectors.groupingBy(member -> member, Collectors.counting())));
            outcome.add(phase, "STABLE, partitions by member " + counts);
        }

        private Set<Integer> partitionsOf(MemberDescription member) {
            Set<Integer> partitions = new TreeSet<>();
            for (TopicPartition partition : member.assignment().topicPartitions()) {
                if (partition.topic().equals(topic)) {
                    partitions.add(partition.partition());
                }
            }
            return partitions;
        }

        void checkInvariants(String phase) {
            assertThat(history.ownershipViolations())
                    .as("%s: partitions with two owners at once; history:%n%s", phase, history)
                    .isEmpty();
            assertThat(history.redeliveryViolations())
                    .as("%s: records delivered again; history:%n%s", phase, history)
                    .isEmpty();
        }

        /**
         * Waits until every offset below each partition's end was delivered to the group and the
         * group committed each partition's end.
         */
        void awaitEverythingDeliveredAndCommitted(Map<Integer, Long> ends, List<Running> running) {
            Map<TopicPartition, Long> expectedCommits = new HashMap<>();
            ends.forEach((p, end) -> expectedCommits.put(new TopicPartition(topic, p), end));
            try {
                Awaitility.await("every record delivered and committed")
                        .atMost(PATIENCE)
                        .pollInterval(Duration.ofMillis(250))
                        .untilAsserted(() -> {
                            assertMembersAlive(running);
                            Map<Integer, Set<Long>> delivered = history.deliveredOffsets();
                            Map<Integer, Long> skipped = new TreeMap<>();
                            ends.forEach((p, end) -> {
                                Set<Long> offsets = delivered.getOrDefault(p, Set.of());
                                long missing = end
                                        - offsets.stream().filter(o -> o < end).count();
                                if (missing > 0) {
                                    skipped.put(p, missing);
                                }
                            });
                            assertThat(skipped)
                                    .as("offsets not delivered yet, by partition")
                                    .isEmpty();
                            Map<TopicPartition, Long> committed = new HashMap<>();
                            admin.listConsumerGroupOffsets(group)
                                    .partitionsToOffsetAndMetadata()
                                    .get(30, TimeUnit.SECONDS)
                                    .forEach((tp, o) -> committed.put(tp, o == null ? -1 : offset(o)));
                            assertThat(committed).as("committed offsets").isEqualTo(expectedCommits);
                        });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError(
                        "not everything was delivered and committed: " + e.getMessage() + "\nhistory:\n" + history
                                + "\n" + target.logsHint(),
                        e);
            }
        }

        private static long offset(OffsetAndMetadata o) {
            return o.offset();
        }

        private void assertMembersAlive(List<Running> running) {
            // Not an assertion: Awaitility would retry it; a dead member fails the wait at once.
            try {
                background.check();
            } catch (AssertionError e) {
                throw new IllegalStateException("the producer or the child member's reader failed", e);
            }
            for (Running member : running) {
                if (member.member().failure() != null) {
                    throw new IllegalStateException(
                            "member " + member.member().name() + " died",
                            member.member().failure());
                }
            }
        }
    }
}
