package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListStreamsGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberAssignment;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Differential ({@link Differential}): KIP-1071 streams groups with a real Kafka Streams
 * application ({@code group.protocol=streams}): the group coordinator assigns the tasks and creates
 * the internal topics. The topology counts records by value: it reads a {@value #PARTITIONS}-partition
 * input topic (subtopology 0), re-keys by value into a repartition topic, and counts in a state store
 * backed by a changelog topic (subtopology 1) whose counts go to an output topic: {@value #TASKS}
 * tasks in all.
 *
 * <ol>
 *   <li>two instances (one stream thread each) join the group: once it is stable, both have active
 *       tasks, balanced;
 *   <li>records are counted right (read back from the output topic, the last count of each word);
 *   <li>one instance closes (leaving the group): the other takes every task over;
 *   <li>more records: the counts go on from the state restored from the changelog;
 *   <li>the group cannot be deleted while the other instance runs; once it closed, the input's
 *       committed offsets are its end offsets, and the group can be deleted.
 * </ol>
 *
 * Written down and compared with Apache Kafka's: the active and standby task counts per instance
 * (not which tasks), the internal topics (application id replaced) with their partition counts, the
 * described group's state, members and topology, the counts read back, how ListGroups lists the
 * group, what describing it as a consumer group gives, which topics have committed offsets, and the
 * deletes' outcomes. Never ids or timings.
 */
@OnSharedTargets
class StreamsGroupIT {

    private static final Logger log = LoggerFactory.getLogger(StreamsGroupIT.class);

    static final int PARTITIONS = 4;
    /** Subtopology 0 (input) and 1 (repartition topic) have {@value #PARTITIONS} tasks each. */
    static final int TASKS = 2 * PARTITIONS;

    static final int WORDS = 6;
    static final Duration PATIENCE = Clients.PATIENCE;

    @Test
    void twoInstancesShareTheTasksAndTheSurvivorTakesThemAllWhileCountsStayRight() {
        Differential.assertSameOutcome(StreamsGroupIT::scenario);
    }

    private static void scenario(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        String input = Clients.uniqueTopic("streams-in");
        String output = Clients.uniqueTopic("streams-out");
        String applicationId = "streams-app-" + UUID.randomUUID().toString().substring(0, 8);
        Path stateDirs = Files.createTempDirectory("streams-group-it-");
        List<Instance> instances = new ArrayList<>();
        try (Admin admin = target.admin();
                KafkaProducer<String, String> producer = producer(target)) {
            Clients.createTopic(admin, input, PARTITIONS);
            Clients.createTopic(admin, output, PARTITIONS);
            Instance a = Instance.start("a", target, applicationId, input, output, stateDirs);
            instances.add(a);
            Instance b = Instance.start("b", target, applicationId, input, output, stateDirs);
            instances.add(b);

            awaitTasks("two instances joined", admin, applicationId, List.of(a, b), target);
            outcome.add("active tasks per instance", activeCounts(List.of(a, b)));
            outcome.add("standby tasks", a.standbyTasks() + b.standbyTasks());
            outcome.add("internal topics", internalTopics(admin, applicationId));
            outcome.add("described group", described(admin, applicationId));
            outcome.add("listed as", listed(admin, applicationId));

            Map<String, Long> expected = produce(producer, input, 0, 5 * WORDS);
            awaitCounts("the first records", target, output, expected);
            outcome.add("counts after the first records", expected);

            a.close();
            instances.remove(a);
            awaitTasks("instance a closed", admin, applicationId, List.of(b), target);
            outcome.add("active tasks after a closed", activeCounts(List.of(b)));
            outcome.add("described group after a closed", described(admin, applicationId));

            Map<String, Long> more = produce(producer, input, 5 * WORDS, 2 * WORDS);
            more.forEach((word, count) -> expected.merge(word, count, Long::sum));
            awaitCounts("more records after the takeover", target, output, expected);
            outcome.add("counts after the takeover", expected);

            outcome.add(
                    "deleted while b runs",
                    outcomeOf(() -> admin.deleteStreamsGroups(List.of(applicationId))
                            .all()
                            .get(30, TimeUnit.SECONDS)));
            outcome.add("described as a consumer group", outcomeOf(() -> {
                var group = admin.describeConsumerGroups(List.of(applicationId))
                        .describedGroups()
                        .get(applicationId)
                        .get(30, TimeUnit.SECONDS);
                return group.groupState() + ", type " + group.type() + ", members "
                        + group.members().size();
            }));
            b.close();
            instances.remove(b);
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listStreamsGroupOffsets(
                            Map.of(applicationId, new ListStreamsGroupOffsetsSpec()))
                    .partitionsToOffsetAndMetadata(applicationId)
                    .get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> inputEnds = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
            admin.listOffsets(Clients.partitions(input, PARTITIONS).stream()
                            .collect(java.util.stream.Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest())))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> inputEnds.put(tp, info.offset()));
            Map<TopicPartition, Long> inputCommitted = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
            committed.forEach((tp, offset) -> {
                if (tp.topic().equals(input) && offset != null) {
                    inputCommitted.put(tp, offset.offset());
                }
            });
            outcome.add(
                    "topics with committed offsets after both closed",
                    committed.keySet().stream()
                            .map(tp -> tp.topic().equals(input)
                                    ? "<input>"
                                    : tp.topic().replace(applicationId, "<app>"))
                            .distinct()
                            .sorted()
                            .toList());
            outcome.add("input committed at its end offsets", inputCommitted.equals(inputEnds));
            outcome.add("described after both closed", described(admin, applicationId));
            outcome.add(
                    "deleted after both closed",
                    outcomeOf(() -> admin.deleteStreamsGroups(List.of(applicationId))
                            .all()
                            .get(30, TimeUnit.SECONDS)));
            outcome.add(
                    "described after the delete",
                    outcomeOf(() -> describe(admin, applicationId).groupState()));
            log.info("{}: {}", target, String.join("\n  ", outcome.lines()));
        } finally {
            for (Instance instance : instances) {
                instance.close();
            }
            StreamsApps.deleteQuietly(stateDirs);
        }
    }

    /** What a call gave: its value, "ok" for none, or the simple name of the exception it failed with. */
    private static String outcomeOf(java.util.concurrent.Callable<?> call) {
        try {
            Object value = call.call();
            return value == null ? "ok" : value.toString();
        } catch (ExecutionException e) {
            return e.getCause().getClass().getSimpleName();
        } catch (Exception e) {
            return e.getClass().getSimpleName();
        }
    }

    private static KafkaProducer<String, String> producer(KafkaTarget target) {
        Properties properties = target.clientProperties();
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(PATIENCE.toMillis()));
        return new KafkaProducer<>(properties);
    }

    /**
     * Sends {@code count} records keyed {@code k<i>} with values {@code w<i mod WORDS>}, from i =
     * {@code from}, and waits for each; returns how many of each word it sent.
     */
    private static Map<String, Long> produce(KafkaProducer<String, String> producer, String topic, int from, int count)
            throws Exception {
        Map<String, Long> words = new TreeMap<>();
        for (int i = from; i < from + count; i++) {
            String word = "w" + (i % WORDS);
            producer.send(new ProducerRecord<>(topic, "k" + i, word)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            words.merge(word, 1L, Long::sum);
        }
        return words;
    }

    /** Active task counts of the instances, ascending. */
    private static List<Integer> activeCounts(List<Instance> instances) {
        return instances.stream().map(Instance::activeTasks).sorted().toList();
    }

    /**
     * Waits until every instance runs, every task is active on exactly one of them and each has
     * some, and the described group is stable with as many members, each at its target assignment.
     */
    private static void awaitTasks(
            String phase, Admin admin, String applicationId, List<Instance> instances, KafkaTarget target) {
        try {
            Awaitility.await(phase)
                    .atMost(PATIENCE)
                    .pollInterval(Duration.ofMillis(250))
                    .untilAsserted(() -> {
                        for (Instance instance : instances) {
                            instance.checkAlive();
                            assertThat(instance.streams.state())
                                    .as("%s's state", instance.name)
                                    .isEqualTo(KafkaStreams.State.RUNNING);
                            assertThat(instance.activeTasks())
                                    .as("%s's active tasks", instance.name)
                                    .isPositive();
                        }
                        assertThat(instances.stream()
                                        .mapToInt(Instance::activeTasks)
                                        .sum())
                                .as("active tasks of all instances")
                                .isEqualTo(TASKS);
                        StreamsGroupDescription description = describe(admin, applicationId);
                        assertThat(description.groupState()).as("group state").isEqualTo(GroupState.STABLE);
                        assertThat(description.members()).as("members").hasSize(instances.size());
                        for (StreamsGroupMemberDescription member : description.members()) {
                            assertThat(member.assignment())
                                    .as("%s's assignment", member.clientId())
                                    .isEqualTo(member.targetAssignment());
                        }
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    phase + ": the group did not settle: " + e.getMessage() + "\n" + target.logsHint());
        }
        log.info("{}: active tasks {}", phase, activeCounts(instances));
    }

    private static StreamsGroupDescription describe(Admin admin, String applicationId)
            throws InterruptedException, ExecutionException, TimeoutException {
        return admin.describeStreamsGroups(List.of(applicationId))
                .describedGroups()
                .get(applicationId)
                .get(30, TimeUnit.SECONDS);
    }

    /** The described group: state, member count, each member's task counts, topology epoch and subtopologies. */
    private static String described(Admin admin, String applicationId) throws Exception {
        StreamsGroupDescription description = describe(admin, applicationId);
        List<String> members = new ArrayList<>();
        for (StreamsGroupMemberDescription member : description.members()) {
            members.add("active " + tasks(member.assignment().activeTasks()) + ", standby "
                    + tasks(member.assignment().standbyTasks()) + ", warmup "
                    + tasks(member.assignment().warmupTasks()) + ", topology epoch " + member.topologyEpoch());
        }
        members.sort(Comparator.naturalOrder());
        List<String> subtopologies = description.subtopologies().stream()
                .map(s -> s.subtopologyId() + ": sources " + s.sourceTopics().size() + ", repartition sinks "
                        + s.repartitionSinkTopics().size() + ", changelogs "
                        + s.stateChangelogTopics().size() + ", repartition sources "
                        + s.repartitionSourceTopics().size())
                .sorted()
                .toList();
        return description.groupState() + ", topology epoch " + description.topologyEpoch() + ", subtopologies "
                + subtopologies + ", members " + members;
    }

    private static int tasks(List<StreamsGroupMemberAssignment.TaskIds> tasks) {
        return tasks.stream().mapToInt(t -> t.partitions().size()).sum();
    }

    /** The internal topics the group's coordinator created, the application id replaced, with partition counts. */
    private static Map<String, Integer> internalTopics(Admin admin, String applicationId) throws Exception {
        Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        List<String> internal =
                names.stream().filter(n -> n.startsWith(applicationId + "-")).toList();
        Map<String, Integer> topics = new TreeMap<>();
        admin.describeTopics(internal)
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .forEach((name, description) -> topics.put(
                        "<app>" + name.substring(applicationId.length()),
                        description.partitions().size()));
        return topics;
    }

    /** The group's type and protocol type as ListGroups gives them. */
    private static String listed(Admin admin, String applicationId) throws Exception {
        for (GroupListing listing : admin.listGroups().all().get(30, TimeUnit.SECONDS)) {
            if (listing.groupId().equals(applicationId)) {
                return "type " + listing.type().map(Object::toString).orElse("?") + ", protocol type '"
                        + listing.protocol() + "', state "
                        + listing.groupState().map(Object::toString).orElse("?");
            }
        }
        return "not listed";
    }

    /** Reads the output topic from the start until each word's last count is the expected one. */
    private static void awaitCounts(String phase, KafkaTarget target, String output, Map<String, Long> expected) {
        Properties properties = target.clientProperties();
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<String, Long> counts = new TreeMap<>();
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(properties)) {
            consumer.assign(Clients.partitions(output, PARTITIONS));
            consumer.seekToBeginning(consumer.assignment());
            Awaitility.await(phase + ": counts")
                    .atMost(PATIENCE)
                    .pollInterval(Duration.ZERO)
                    .until(() -> {
                        for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
                            counts.put(record.key(), record.value());
                        }
                        return counts.equals(expected);
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    phase + ": the counts read back are " + counts + ", not " + expected + "\n" + target.logsHint());
        }
    }

    /** One Kafka Streams instance of the application: one stream thread, its own state directory. */
    private static final class Instance {
        final String name;
        final KafkaStreams streams;
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        private Instance(String name, KafkaStreams streams) {
            this.name = name;
            this.streams = streams;
        }

        static Instance start(
                String name, KafkaTarget target, String applicationId, String input, String output, Path stateDirs)
                throws IOException {
            StreamsBuilder builder = new StreamsBuilder();
            builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                    .map((key, value) -> KeyValue.pair(value, value))
                    .groupByKey(Grouped.with(Serdes.String(), Serdes.String()))
                    .count(Materialized.as("counts"))
                    .toStream()
                    .to(output, Produced.with(Serdes.String(), Serdes.Long()));
            Properties properties = new Properties();
            properties.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
            properties.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers());
            properties.put(StreamsConfig.CLIENT_ID_CONFIG, "streams-" + name);
            properties.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
            properties.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
            properties.put(
                    StreamsConfig.STATE_DIR_CONFIG,
                    Files.createDirectories(stateDirs.resolve(name)).toString());
            // Counts reach the output topic within a fraction of a second.
            properties.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
            properties.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
            KafkaStreams streams = new KafkaStreams(builder.build(), properties);
            Instance instance = new Instance(name, streams);
            streams.setUncaughtExceptionHandler(e -> {
                instance.failure.compareAndSet(null, e);
                return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                        .SHUTDOWN_CLIENT;
            });
            streams.start();
            return instance;
        }

        int activeTasks() {
            return streams.metadataForLocalThreads().stream()
                    .mapToInt(t -> t.activeTasks().size())
                    .sum();
        }

        int standbyTasks() {
            return streams.metadataForLocalThreads().stream()
                    .map(ThreadMetadata::standbyTasks)
                    .mapToInt(Set::size)
                    .sum();
        }

        void checkAlive() {
            StreamsApps.checkAlive(name, streams, failure);
        }

        void close() {
            StreamsApps.closeLeaving(streams);
        }
    }
}
