package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.BackgroundFailures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One target's run of a classic group scenario ({@link ClassicGroupIT}, {@link
 * ClassicStaticMembersIT}): its {@value #PARTITIONS}-partition topic, group, producer, members and
 * their history, and the steps the scenarios are written in.
 */
final class ClassicGroupSteps implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClassicGroupSteps.class);

    static final int PARTITIONS = 12;

    /** Records written before the first step and during each change. */
    static final int RECORDS_PER_STEP = 600;

    /**
     * What the members in this JVM had seen when a static member went away, and where the history
     * was: any rebalance since shows as another generation, another {@code onPartitionsAssigned}
     * call, or a callback of a child member in the history.
     */
    record Quiet(Map<GroupScenario.Running, Integer> assignedCallbacks, List<String> members, int position) {}

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

    ClassicGroupSteps(KafkaTarget target, Differential.Outcome outcome, String prefix) throws Exception {
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
