package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Differential: the admin operations on consumer groups, the same steps against every enabled
 * target, and what the admin client observes (normalised: no member ids, hosts or node ids) must be
 * {@link #EXPECTED} on each, Kafka's behaviour. A group of two KIP-848 consumers reads a 3-partition
 * topic and commits; then: list ({@code listGroups}, {@code listConsumerGroups}), describe (state,
 * members, assignment), list offsets; while the members are live, delete the group ({@code
 * GroupNotEmptyException}), alter its offsets and delete an offset of a subscribed topic (refused);
 * once the members are gone (state {@code EMPTY}), alter and delete offsets, a new consumer resumes
 * from exactly those, the group is deleted (then unknown), and deleting an unknown group is {@code
 * GroupIdNotFoundException}.
 */
@OnSharedTargets
class GroupAdminIT {

    static final int PARTITIONS = 3;
    static final int RECORDS_PER_PARTITION = 10;

    /** Kafka 4.4's answers; every target must observe exactly these lines. */
    static final List<String> EXPECTED = List.of(
            "listGroups: type=Optional[Consumer] protocol=consumer state=Optional[Stable]",
            "listGroups(consumer, STABLE): listed",
            "listConsumerGroups: type=Optional[Consumer] state=Optional[Stable]",
            "describe: type=Consumer state=Stable assignor=uniform simple=false coordinator=known"
                    + " epochs=present,equal",
            "describe members: [admin-member-1, admin-member-2] partitions=[0, 1, 2] per member=[1, 2]"
                    + " instanceIds=[] hosts=127.0.0.1 memberEpochs=present targetAssignment=current",
            "offsets: {0=10, 1=10, 2=10}",
            "delete live group: org.apache.kafka.common.errors.GroupNotEmptyException",
            "alter live group's offsets: org.apache.kafka.common.errors.UnknownMemberIdException",
            "delete live group's subscribed offset: org.apache.kafka.common.errors.GroupSubscribedToTopicException",
            "after the members closed: state=Empty members=0",
            "listGroups: type=Optional[Consumer] protocol=consumer state=Optional[Empty]",
            "alter empty group's offsets: ok",
            "offsets: {0=3, 1=10, 2=10}",
            "delete offset of partition 1: ok",
            "offsets: {0=3, 2=10}",
            "a new member resumes: {0=3, 1=0} records=17",
            "alter a new group's offsets: ok",
            "new group: type=Optional[Classic] protocol= state=Optional[Empty]",
            "offsets of the new group: {1=5}",
            "delete empty group: ok",
            "after delete: listed=false offsets={}",
            "delete unknown group: org.apache.kafka.common.errors.GroupIdNotFoundException",
            "delete the new group: ok");

    @Test
    void groupAdminOperationsObserveWhatKafkaDoes() throws Exception {
        Map<KafkaTargets.Kind, List<String>> observed = new LinkedHashMap<>();
        Map<KafkaTargets.Kind, String> hints = new LinkedHashMap<>();
        for (KafkaTargets.Kind kind : KafkaTargets.enabledList()) {
            KafkaTarget target = KafkaTargets.get(kind);
            hints.put(kind, target.logsHint());
            List<String> lines = new ArrayList<>();
            try {
                run(target, lines);
            } catch (Exception | AssertionError e) {
                lines.add("the scenario failed: " + e);
            }
            observed.put(kind, lines);
        }
        assertThat(observed)
                .as("observations per target (Kafka's are the reference); %s", hints.values())
                .allSatisfy((kind, lines) -> assertThat(lines).as(kind.name()).containsExactlyElementsOf(EXPECTED));
    }

    private static void run(KafkaTarget target, List<String> out) throws Exception {
        String topic = Clients.uniqueTopic("group-admin");
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String group = "group-admin-" + suffix;
        String newGroup = "group-admin-new-" + suffix;
        short replication = (short) Math.min(3, target.registeredBrokerCount());
        try (Admin admin = target.admin()) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, replication)))
                    .all()
                    .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            Clients.awaitLeaders(admin, topic, PARTITIONS);
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(target, Map.of())) {
                for (int p = 0; p < PARTITIONS; p++) {
                    for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
                        producer.send(new ProducerRecord<>(topic, p, null, bytes(p + "-" + i)));
                    }
                }
                producer.flush();
            }

            List<KafkaConsumer<byte[], byte[]>> members = new ArrayList<>();
            try {
                for (int m = 1; m <= 2; m++) {
                    KafkaConsumer<byte[], byte[]> consumer = member(target, group, "admin-member-" + m);
                    consumer.subscribe(List.of(topic));
                    members.add(consumer);
                }
                consumeAllAndCommit(admin, group, members);

                GroupListing listing =
                        listing(admin, group, new ListGroupsOptions()).orElseThrow();
                out.add("listGroups: type=" + listing.type() + " protocol=" + listing.protocol() + " state="
                        + listing.groupState());
                out.add("listGroups(consumer, STABLE): "
                        + (listing(
                                                admin,
                                                group,
                                                ListGroupsOptions.forConsumerGroups()
                                                        .inGroupStates(Set.of(GroupState.STABLE)))
                                        .isPresent()
                                ? "listed"
                                : "not listed"));
                out.add(listConsumerGroups(admin, group));
                ConsumerGroupDescription description = describe(admin, group);
                out.add("describe: type=" + description.type() + " state=" + description.groupState()
                        + " assignor=" + description.partitionAssignor()
                        + " simple=" + description.isSimpleConsumerGroup()
                        + " coordinator="
                        + (description.coordinator() != null
                                        && !description.coordinator().isEmpty()
                                ? "known"
                                : "unknown")
                        + " epochs=" + epochs(description));
                out.add(describeMembers(description, topic));
                out.add("offsets: " + offsets(admin, group));
                out.add("delete live group: "
                        + outcome(admin.deleteConsumerGroups(List.of(group)).all()));
                out.add("alter live group's offsets: "
                        + outcome(admin.alterConsumerGroupOffsets(
                                        group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(1)))
                                .all()));
                out.add("delete live group's subscribed offset: "
                        + outcome(admin.deleteConsumerGroupOffsets(group, Set.of(new TopicPartition(topic, 0)))
                                .all()));
            } finally {
                members.forEach(KafkaConsumer::close);
            }

            ConsumerGroupDescription empty = awaitState(admin, group, GroupState.EMPTY);
            out.add("after the members closed: state=" + empty.groupState() + " members="
                    + empty.members().size());
            listing(admin, group, new ListGroupsOptions())
                    .ifPresent(l -> out.add(
                            "listGroups: type=" + l.type() + " protocol=" + l.protocol() + " state=" + l.groupState()));
            out.add("alter empty group's offsets: "
                    + outcome(admin.alterConsumerGroupOffsets(
                                    group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(3)))
                            .all()));
            out.add("offsets: " + offsets(admin, group));
            out.add("delete offset of partition 1: "
                    + outcome(admin.deleteConsumerGroupOffsets(group, Set.of(new TopicPartition(topic, 1)))
                            .all()));
            out.add("offsets: " + offsets(admin, group));
            out.add("a new member resumes: " + resume(target, group, topic));

            out.add("alter a new group's offsets: "
                    + outcome(admin.alterConsumerGroupOffsets(
                                    newGroup, Map.of(new TopicPartition(topic, 1), new OffsetAndMetadata(5)))
                            .all()));
            out.add(listing(admin, newGroup, new ListGroupsOptions())
                    .map(l -> "new group: type=" + l.type() + " protocol=" + l.protocol() + " state=" + l.groupState())
                    .orElse("new group: not listed"));
            out.add("offsets of the new group: " + offsets(admin, newGroup));

            awaitState(admin, group, GroupState.EMPTY);
            out.add("delete empty group: "
                    + outcome(admin.deleteConsumerGroups(List.of(group)).all()));
            out.add("after delete: listed="
                    + listing(admin, group, new ListGroupsOptions()).isPresent() + " offsets="
                    + offsets(admin, group));
            out.add("delete unknown group: "
                    + outcome(admin.deleteConsumerGroups(List.of("no-such-group-" + suffix))
                            .all()));
            out.add("delete the new group: "
                    + outcome(admin.deleteConsumerGroups(List.of(newGroup)).all()));
        }
    }

    static KafkaConsumer<byte[], byte[]> member(KafkaTarget target, String group, String clientId) {
        Map<String, Object> settings = new TreeMap<>();
        GroupMember.properties(clientId, target.bootstrapServers(), group, null)
                .forEach((k, v) -> settings.put((String) k, v));
        return Clients.consumer(target, settings);
    }

    /**
     * Polls both members until they have read every record and the group is stable with a
     * partition for each, each member committing what it read after every poll.
     */
    private static void consumeAllAndCommit(Admin admin, String group, List<KafkaConsumer<byte[], byte[]>> members) {
        int[] consumed = new int[1];
        Awaitility.await("both members consume and the group is stable")
                .atMost(Clients.PATIENCE)
                .pollInterval(Duration.ZERO)
                .until(() -> {
                    for (KafkaConsumer<byte[], byte[]> member : members) {
                        int count = member.poll(Duration.ofMillis(100)).count();
                        if (count > 0) {
                            // At once, as a partition may move to the other member at the next poll.
                            member.commitSync();
                            consumed[0] += count;
                        }
                    }
                    if (consumed[0] < PARTITIONS * RECORDS_PER_PARTITION) {
                        return false;
                    }
                    if (members.stream().anyMatch(m -> m.assignment().isEmpty())) {
                        return false;
                    }
                    ConsumerGroupDescription description = describe(admin, group);
                    return description.groupState() == GroupState.STABLE
                            && description.members().size() == members.size()
                            && description.members().stream()
                                    .noneMatch(m ->
                                            m.assignment().topicPartitions().isEmpty());
                });
        assertThat(consumed[0]).as("records consumed once").isEqualTo(PARTITIONS * RECORDS_PER_PARTITION);
    }

    private static String resume(KafkaTarget target, String group, String topic) {
        Map<Integer, Long> firstOffsets = new TreeMap<>();
        int[] records = new int[1];
        try (KafkaConsumer<byte[], byte[]> consumer = member(target, group, "admin-member-3")) {
            consumer.subscribe(List.of(topic));
            Awaitility.await("the new member reads from the committed offsets")
                    .atMost(Clients.PATIENCE)
                    .pollInterval(Duration.ZERO)
                    .until(() -> {
                        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                            firstOffsets.putIfAbsent(record.partition(), record.offset());
                            records[0]++;
                        }
                        // 7 from partition 0 (committed 3), 10 from partition 1 (offset deleted:
                        // auto.offset.reset=earliest), none from partition 2 (committed at its end).
                        return records[0] >= 17 && consumer.assignment().size() == PARTITIONS;
                    });
            // One more poll: nothing else may arrive.
            records[0] += consumer.poll(Duration.ofMillis(500)).count();
        }
        return firstOffsets + " records=" + records[0];
    }

    static ConsumerGroupDescription describe(Admin admin, String group) throws Exception {
        return admin.describeConsumerGroups(List.of(group))
                .describedGroups()
                .get(group)
                .get(30, TimeUnit.SECONDS);
    }

    private static ConsumerGroupDescription awaitState(Admin admin, String group, GroupState state) {
        ConsumerGroupDescription[] seen = new ConsumerGroupDescription[1];
        Awaitility.await("group " + group + " " + state)
                .atMost(Clients.PATIENCE)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    seen[0] = describe(admin, group);
                    return seen[0].groupState() == state;
                });
        return seen[0];
    }

    private static Optional<GroupListing> listing(Admin admin, String group, ListGroupsOptions options)
            throws Exception {
        Collection<GroupListing> all = admin.listGroups(options).all().get(30, TimeUnit.SECONDS);
        return all.stream().filter(l -> l.groupId().equals(group)).findFirst();
    }

    @SuppressWarnings("deprecation") // the older API is still what many tools call
    private static String listConsumerGroups(Admin admin, String group) throws Exception {
        Collection<ConsumerGroupListing> all = admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS);
        return all.stream()
                .filter(l -> l.groupId().equals(group))
                .findFirst()
                .map(l -> "listConsumerGroups: type=" + l.type() + " state=" + l.groupState())
                .orElse("listConsumerGroups: not listed");
    }

    private static String epochs(ConsumerGroupDescription description) {
        if (description.groupEpoch().isEmpty()
                || description.targetAssignmentEpoch().isEmpty()) {
            return "missing";
        }
        return "present," + (description.groupEpoch().equals(description.targetAssignmentEpoch()) ? "equal" : "differ");
    }

    private static String describeMembers(ConsumerGroupDescription description, String topic) {
        Set<String> clientIds = new TreeSet<>();
        Set<Integer> partitions = new TreeSet<>();
        List<Integer> perMember = new ArrayList<>();
        Set<String> instanceIds = new TreeSet<>();
        Set<String> hosts = new TreeSet<>();
        boolean epochs = true;
        boolean targetIsCurrent = true;
        for (MemberDescription member : description.members()) {
            clientIds.add(member.clientId());
            int count = 0;
            for (TopicPartition tp : member.assignment().topicPartitions()) {
                if (tp.topic().equals(topic)) {
                    partitions.add(tp.partition());
                    count++;
                }
            }
            perMember.add(count);
            member.groupInstanceId().ifPresent(instanceIds::add);
            // Kafka names the client's address as InetAddress.toString() does: "/127.0.0.1".
            hosts.add(member.host().startsWith("/") ? member.host().substring(1) : member.host());
            epochs &= member.memberEpoch().isPresent();
            targetIsCurrent &= member.targetAssignment()
                    .map(t -> t.equals(member.assignment()))
                    .orElse(false);
        }
        perMember.sort(null);
        return "describe members: " + clientIds + " partitions=" + partitions + " per member=" + perMember
                + " instanceIds=" + instanceIds + " hosts=" + String.join(",", hosts)
                + " memberEpochs=" + (epochs ? "present" : "missing")
                + " targetAssignment=" + (targetIsCurrent ? "current" : "differs");
    }

    static Map<Integer, Long> offsets(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        return offsets.entrySet().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(
                        e -> e.getKey().partition(), e -> e.getValue().offset(), (a, b) -> a, TreeMap::new));
    }

    /** "ok", or the class of what the future failed with. */
    static String outcome(org.apache.kafka.common.KafkaFuture<?> future) {
        try {
            future.get(60, TimeUnit.SECONDS);
            return "ok";
        } catch (ExecutionException e) {
            return e.getCause().getClass().getName();
        } catch (Exception e) {
            return e.getClass().getName();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
