package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.BackgroundFailures;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps a consumer-group scenario takes on one target ({@code ConsumerGroupIT}, {@code
 * ClassicGroupIT}, {@code ClassicGroupToolsIT}): start members in this JVM, wait until the group
 * is stable with a given set of members and write down how many partitions each holds, check the
 * {@link GroupHistory}'s invariants, and wait until everything produced was delivered and
 * committed. Every wait ends at once when a member in this JVM died or {@code background} (the
 * producer's ticks, the readers of child members) reported a failure; every read of the group's
 * committed offsets checks that none is lower than one read before.
 *
 * <p>Used by one scenario's thread; the history is thread-safe on its own.
 */
final class GroupScenario {

    private static final Logger log = LoggerFactory.getLogger(GroupScenario.class);

    /** How long the group may take to settle after a change (a crash waits for the session timeout). */
    static final Duration PATIENCE = Clients.PATIENCE;

    /** A member in this JVM and the thread running its loop. */
    record Running(GroupMember member, Thread thread) {
        /** Closes the member (a dynamic one leaves the group) and checks that nothing ended it before. */
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

    private final KafkaTarget target;
    private final Admin admin;
    private final String group;
    private final String topic;
    private final int partitions;
    private final GroupHistory history;
    private final Differential.Outcome outcome;
    private final BackgroundFailures background;
    /** Each static member's {@code group.instance.id}, by member name. */
    private final Map<String, String> instanceIds = new HashMap<>();
    /** The highest committed offset read so far per partition: none may be lower later. */
    private final Map<Integer, Long> committedSeen = new TreeMap<>();

    GroupScenario(
            KafkaTarget target,
            Admin admin,
            String group,
            String topic,
            int partitions,
            GroupHistory history,
            Differential.Outcome outcome,
            BackgroundFailures background) {
        this.target = target;
        this.admin = admin;
        this.group = group;
        this.topic = topic;
        this.partitions = partitions;
        this.history = history;
        this.outcome = outcome;
        this.background = background;
    }

    /** Starts a member of {@code protocol} in this JVM (static with {@code instanceId}, else null). */
    Running startMember(String name, String instanceId, GroupMember.Protocol protocol) {
        rememberInstanceId(name, instanceId);
        GroupMember member =
                new GroupMember(name, target.bootstrapServers(), group, instanceId, protocol, topic, history::add);
        Thread thread = Thread.ofPlatform().name("member-" + name).start(member);
        return new Running(member, thread);
    }

    /**
     * Starts a member of {@code protocol} in a child JVM ({@link ChildGroupMember}), static with
     * {@code instanceId} (else null), its standard error into {@code stderr}.
     */
    ChildGroupMember startChild(String name, String instanceId, GroupMember.Protocol protocol, Path stderr)
            throws IOException {
        rememberInstanceId(name, instanceId);
        return ChildGroupMember.start(
                name, target.bootstrapServers(), group, instanceId, protocol, topic, history, stderr, background);
    }

    /**
     * Starts a dynamic member in Python's librdkafka client ({@link
     * ChildGroupMember#startLibrdkafka}), its standard error into {@code stderr}.
     */
    ChildGroupMember startLibrdkafkaChild(String name, Path stderr) throws IOException {
        return ChildGroupMember.startLibrdkafka(
                name, target.bootstrapServers(), group, topic, history, stderr, background);
    }

    private void rememberInstanceId(String name, String instanceId) {
        if (instanceId != null) {
            instanceIds.put(name, instanceId);
        }
    }

    /**
     * How the group's description names a member: a static member by its {@code
     * group.instance.id} (its identity; Kafka describes a static member that came back under the
     * client id its first incarnation joined with), a dynamic one by its client id, its name.
     */
    private String describedAs(String name) {
        return instanceIds.getOrDefault(name, name);
    }

    /**
     * Waits until the callbacks give every partition to one of {@code live} and each of them has
     * some, and the group's description is {@code STABLE} with the same assignment; then checks the
     * whole history and writes down, as {@code phase}, how many partitions each member holds (which
     * partitions is the assignor's choice; how balanced it is and who holds some is not).
     */
    void awaitStable(String phase, Set<String> live, List<Running> running) {
        Set<Integer> all = IntStream.range(0, partitions).boxed().collect(Collectors.toSet());
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
                        Map<String, Set<Integer>> byCallbacks = new TreeMap<>();
                        owners.forEach((p, m) -> byCallbacks
                                .computeIfAbsent(describedAs(m), k -> new TreeSet<>())
                                .add(p));
                        assertThat(describedAssignment())
                                .as("described assignment by instance id (static members) or client id")
                                .isEqualTo(byCallbacks);
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    phase + ": the group did not settle: " + e.getMessage() + "\nhistory:\n" + history + "\n"
                            + target.logsHint(),
                    e);
        }
        log.info(
                "{}: settled after {} ms, owners {}", phase, (System.nanoTime() - start) / 1_000_000, history.owners());
        checkInvariants(phase);
        outcome.add(phase, "STABLE, partitions by member " + partitionCounts());
    }

    /** How many partitions each member owns now, by the callbacks. */
    Map<String, Long> partitionCounts() {
        return new TreeMap<>(history.owners().values().stream()
                .collect(Collectors.groupingBy(member -> member, Collectors.counting())));
    }

    /**
     * The group's members, static ones by {@code group.instance.id} and dynamic ones by client id,
     * and the partitions of the topic each is assigned, from {@code describeConsumerGroups}; fails
     * (an assertion: a wait retries it) unless the group is {@code STABLE}.
     */
    Map<String, Set<Integer>> describedAssignment() throws Exception {
        Map<String, Set<Integer>> described = new TreeMap<>();
        for (MemberDescription member : describeStable().members()) {
            described.put(member.groupInstanceId().orElse(member.clientId()), partitionsOf(member));
        }
        return described;
    }

    /** The client id the group's description gives the static member {@code instanceId}. */
    String describedClientId(String instanceId) throws Exception {
        return describeStable().members().stream()
                .filter(m -> m.groupInstanceId().equals(Optional.of(instanceId)))
                .map(MemberDescription::clientId)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no member with instance id " + instanceId));
    }

    private ConsumerGroupDescription describeStable() throws Exception {
        ConsumerGroupDescription description;
        try {
            description = admin.describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                // No member has joined yet (a wait retries an assertion, not an exception).
                throw new AssertionError("group " + group + " not found", e);
            }
            throw e;
        }
        assertThat(description.groupState()).as("group state").isEqualTo(GroupState.STABLE);
        return description;
    }

    private Set<Integer> partitionsOf(MemberDescription member) {
        Set<Integer> owned = new TreeSet<>();
        for (TopicPartition partition : member.assignment().topicPartitions()) {
            if (partition.topic().equals(topic)) {
                owned.add(partition.partition());
            }
        }
        return owned;
    }

    /**
     * No partition with two owners at once, no record delivered again below a committed offset or
     * without a crash, a lost partition or a failed commit to explain it, no commit lower than one
     * before it.
     */
    void checkInvariants(String phase) {
        assertThat(history.ownershipViolations())
                .as("%s: partitions with two owners at once; history:%n%s", phase, history)
                .isEmpty();
        assertThat(history.redeliveryViolations())
                .as("%s: records delivered again; history:%n%s", phase, history)
                .isEmpty();
        assertThat(history.commitRegressions())
                .as("%s: commits that went back; history:%n%s", phase, history)
                .isEmpty();
    }

    /**
     * Waits until every offset below each partition's end was delivered to the group and the group
     * committed each partition's end.
     */
    void awaitEverythingDeliveredAndCommitted(Map<Integer, Long> ends, List<Running> running) {
        try {
            Awaitility.await("every record delivered and committed")
                    .atMost(PATIENCE)
                    .pollInterval(Duration.ofMillis(250))
                    .untilAsserted(() -> {
                        assertMembersAlive(running);
                        Map<Integer, Long> committed = committedOffsets();
                        assertThat(undelivered(ends, 10))
                                .as("offsets not delivered yet, by partition (committed now: %s)", committed)
                                .isEmpty();
                        assertThat(committed).as("committed offsets").isEqualTo(ends);
                    });
        } catch (ConditionTimeoutException e) {
            StringBuilder near = new StringBuilder();
            undelivered(ends, 3)
                    .forEach((p, offsets) -> offsets.forEach(o -> near.append("around partition ")
                            .append(p)
                            .append(" offset ")
                            .append(o)
                            .append(":\n")
                            .append(history.around(p, o))));
            throw new AssertionError(
                    "not everything was delivered and committed: " + e.getMessage() + "\nhistory:\n" + history + "\n"
                            + near + target.logsHint(),
                    e);
        }
    }

    /** Partition -> the first {@code limit} offsets below its end that were never delivered. */
    private Map<Integer, List<Long>> undelivered(Map<Integer, Long> ends, int limit) {
        Map<Integer, Set<Long>> delivered = history.deliveredOffsets();
        Map<Integer, List<Long>> undelivered = new TreeMap<>();
        ends.forEach((p, end) -> {
            Set<Long> offsets = delivered.getOrDefault(p, Set.of());
            List<Long> missing = LongStream.range(0, end)
                    .filter(o -> !offsets.contains(o))
                    .limit(limit)
                    .boxed()
                    .toList();
            if (!missing.isEmpty()) {
                undelivered.put(p, missing);
            }
        });
        return undelivered;
    }

    /**
     * The group's committed offsets of the topic by partition (admin {@code
     * listConsumerGroupOffsets}); throws at once (not an assertion, which a wait would retry) when
     * one is lower than an offset read before: something committed went back.
     */
    Map<Integer, Long> committedOffsets() throws Exception {
        Map<Integer, Long> committed = new TreeMap<>();
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        offsets.forEach((tp, o) -> {
            if (tp.topic().equals(topic)) {
                committed.put(tp.partition(), o == null ? -1 : o.offset());
            }
        });
        Map<Integer, String> regressions = new HashMap<>();
        committedSeen.forEach((p, before) -> {
            long now = committed.getOrDefault(p, -1L);
            if (now < before) {
                regressions.put(p, before + " -> " + now);
            }
        });
        if (!regressions.isEmpty()) {
            throw new IllegalStateException("committed offsets went back (partition: before -> now): " + regressions
                    + "\nhistory:\n" + history + "\n" + target.logsHint());
        }
        committed.forEach((p, o) -> committedSeen.merge(p, o, Math::max));
        return committed;
    }

    private void assertMembersAlive(List<Running> running) {
        // Not an assertion: Awaitility would retry it; a dead member fails the wait at once.
        try {
            background.check();
        } catch (AssertionError e) {
            throw new IllegalStateException("the producer or a child member's reader failed", e);
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
