package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.kafka.connect.LinesFileSinkConnector;
import io.tributary.systemtests.kafka.connect.NumberedSourceConnector;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ClassicGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.ClassicGroupState;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Differential ({@link Differential}): Kafka Connect 4.4 in distributed mode on each target. Two
 * workers ({@link ConnectWorker}, child JVMs) share one Connect group (a classic group of protocol
 * type {@code connect}, protocols {@code sessioned}/{@code compatible}/{@code default}: what this
 * test exercises in the target's group coordinator) and the config, offset and status topics, which
 * Connect creates itself (compacted, the cluster's default replication factor). Through the REST
 * API of one worker the test creates a source ({@link NumberedSourceConnector}, {@value
 * #SOURCE_TASKS} tasks, each emitting its own range of {@value #RECORDS_PER_RANGE} numbered records
 * as far as a release file allows) and a sink ({@link LinesFileSinkConnector}, {@value #SINK_TASKS}
 * tasks, each appending what it reads to its own file) on a {@value #PARTITIONS}-partition topic.
 *
 * <ol>
 *   <li>The workers join one after the other ({@code describeClassicGroups}: Stable with 1, then 2
 *       members), so the first leads the group; both connectors and all tasks are RUNNING, spread
 *       by the leader's assignment so that each worker runs one connector and two tasks; each
 *       worker's log names the first as the leader (the leader is not in the REST API).
 *   <li>The first {@value #FIRST_RELEASE} records of each range are released: the sink's files
 *       hold exactly those, the source's committed offsets ({@code GET /connectors/{name}/offsets})
 *       are at {@value #FIRST_RELEASE} for each range and the sink's consumer group has committed
 *       the topic's end.
 *   <li>SIGKILL to the second worker, the follower (no leave: the coordinator's session timeout
 *       must remove it; the leader then keeps its work for {@code scheduled.rebalance.max.delay.ms}
 *       and takes it over in the rebalance it asks for by joining again): the group is Stable with 1
 *       member, the survivor runs both connectors and all four tasks, RUNNING, and still leads.
 *   <li>The rest is released: the sink's files hold every record (at least once: the set of
 *       distinct numbers is compared), the source's offsets are at each range's end, and the topic
 *       holds each record once (the moved source task resumed at its committed offset).
 *   <li>Connect's config, offset and status topics are ones the test created compacted with short
 *       segments ({@link #INTERNAL_TOPIC_CONFIGS}; Connect refuses ones that do not compact). A
 *       worker is started again (a new JVM, as a restarted pod): it reads the three from their
 *       start, joins, the work is shared again, balanced and RUNNING; the broker's cleaner then
 *       removes records from the status topic (fewer records than its end offsets) while Connect
 *       runs on it, and the topic still holds each record once (a source task the restarted worker
 *       took resumed at the offset it read).
 * </ol>
 *
 * Written down and compared with Apache Kafka's: the group's state, protocol type, protocol and
 * size; each connector's and task's state; how many connectors and tasks each worker runs (sorted,
 * no worker ids or ports); the leader by start order; the distinct records delivered; the source's
 * offsets; the records in the topic. Connect's group settles in seconds because the workers ask for
 * a {@value #SESSION_TIMEOUT_MS} ms session, a {@value #HEARTBEAT_INTERVAL_MS} ms heartbeat and a
 * {@value #REBALANCE_DELAY_MS} ms rebalance delay, and the sink's consumers for the same session and
 * heartbeat. Workers' logs:
 * {@code target/connect-distributed-it/<target>-<run>/worker-*}.
 */
@OnSharedTargets
class ConnectDistributedIT {

    private static final Logger log = LoggerFactory.getLogger(ConnectDistributedIT.class);

    static final int SOURCE_TASKS = 2;
    static final int SINK_TASKS = 2;
    static final int PARTITIONS = 4;
    static final long RECORDS_PER_RANGE = 1000;
    static final long FIRST_RELEASE = 500;
    static final int OFFSETS_PARTITIONS = 4;
    static final int STATUS_PARTITIONS = 2;

    /**
     * Connect's three topics, created by the test before the workers start (Connect checks that they
     * compact, and would create them itself otherwise) with segments short enough that the broker's
     * cleaner compacts them while the test runs.
     */
    static final Map<String, String> INTERNAL_TOPIC_CONFIGS = Map.of(
            "cleanup.policy", "compact",
            "segment.ms", "1000",
            "min.cleanable.dirty.ratio", "0.01",
            "min.compaction.lag.ms", "0");

    /**
     * The Connect group's session: the coordinator removes a killed worker after this long. The
     * shortest both targets accept without changing their settings (Kafka's and Tributary's
     * default {@code group.min.session.timeout.ms}); the sink's consumers ask for the same.
     */
    static final int SESSION_TIMEOUT_MS = 6_000;

    /**
     * A twelfth of the session: a worker hears of a rebalance within half a second, and a
     * heartbeat or two lost on a loaded machine do not expire it.
     */
    static final int HEARTBEAT_INTERVAL_MS = 500;

    /**
     * How long the group's leader keeps a lost worker's connectors and tasks for it to come back
     * ({@code scheduled.rebalance.max.delay.ms}). Above 0, so that the kill still goes through
     * Connect's delayed reassignment (the leader holds the lost work back, then asks for the
     * rebalance that moves it by joining its Stable group again); 1 s, because nothing here
     * depends on how long it is.
     */
    static final int REBALANCE_DELAY_MS = 1_000;

    /** How often each step looks whether it settled. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(200);

    private static final List<String> ORDINALS = List.of("first", "second");

    /** How long each step may take to settle: a safety net, not an assertion on speed. */
    static final Duration PATIENCE = Clients.PATIENCE;

    @Test
    void twoWorkersRunASourceAndASinkAndTheSurvivorTakesOverAKilledWorkersTasks() {
        Differential.assertSameOutcome(ConnectDistributedIT::scenario);
    }

    private static void scenario(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        long begin = System.nanoTime();
        String run = UUID.randomUUID().toString().substring(0, 8);
        Path work = Files.createTempDirectory("systest-connect-");
        Path logs = Path.of(System.getProperty("tributary.build.dir", "target"), "connect-distributed-it")
                .resolve(target.kind().name().toLowerCase(Locale.ROOT) + "-" + run);
        List<ConnectWorker> workers = new ArrayList<>();
        try (Admin admin = target.admin()) {
            Scenario scenario = new Scenario(target, admin, run, work, logs, outcome);
            Clients.createTopic(admin, scenario.topic(), PARTITIONS);
            scenario.createInternalTopics();
            scenario.release(FIRST_RELEASE);
            Map<String, String> settings = scenario.workerSettings();
            // One after the other: the first to join an empty classic group leads it (Kafka's
            // coordinator), so the second is a follower, the one killed below.
            ConnectWorker first = ConnectWorker.start("worker-a", logs.resolve("worker-a"), settings);
            workers.add(first);
            first.awaitReady();
            scenario.awaitGroup("connect group with the first worker", 1);
            ConnectWorker second = ConnectWorker.start("worker-b", logs.resolve("worker-b"), settings);
            workers.add(second);
            second.awaitReady();
            long start = System.nanoTime();
            scenario.awaitGroup("connect group with both workers", 2);
            ConnectRest rest = new ConnectRest(first.url());
            scenario.createConnectors(rest);
            ConnectPlacement before = scenario.awaitPlacement(
                    "both connectors running, one connector and two tasks on each worker",
                    rest,
                    p -> p.allRunning()
                            && p.workers().equals(Set.of(first.workerId(), second.workerId()))
                            && p.isBalanced());
            outcome.add("states", before.states(scenario.roles()));
            outcome.add("per worker before the kill", before.perWorker());
            outcome.add("the group's leader, as the workers logged it", scenario.leader(workers));
            scenario.awaitDelivered("the first release delivered", rest, FIRST_RELEASE);
            scenario.awaitSinkCommitted();
            log.info("{}: Connect settled and delivered the first release in {} ms", target, millisSince(start));

            // SIGKILL to the follower: the coordinator must expire its session; the leader then
            // keeps its connector and tasks for it for scheduled.rebalance.max.delay.ms and moves
            // them to itself in the rebalance it asks for (a Stable group's leader joining again)
            outcome.add("SIGKILL to the worker started second, which ran", before.load(second.workerId()));
            long kill = System.nanoTime();
            second.kill();
            ConnectRest survivor = new ConnectRest(first.url());
            ConnectPlacement after = scenario.awaitPlacement(
                    "every connector and task running on the surviving worker",
                    survivor,
                    p -> p.allRunning() && p.workers().equals(Set.of(first.workerId())));
            log.info("{}: the survivor ran everything {} ms after the kill", target, millisSince(kill));
            scenario.awaitGroup("connect group with the survivor alone", 1);
            outcome.add("states after the kill", after.states(scenario.roles()));
            outcome.add("per worker after the kill", after.perWorker());
            outcome.add("the group's leader after the kill", scenario.leader(List.of(first)));

            scenario.release(RECORDS_PER_RANGE);
            scenario.awaitDelivered("every record delivered", survivor, RECORDS_PER_RANGE);
            long records = scenario.recordsInTopic();
            outcome.add("records in the topic", records);
            assertThat(records)
                    .as("records in the topic: each once, the moved source task resumed at its committed offset")
                    .isEqualTo(SOURCE_TASKS * RECORDS_PER_RANGE);

            long restart = System.nanoTime();
            ConnectWorker again = ConnectWorker.start("worker-b-again", logs.resolve("worker-b-again"), settings);
            workers.add(again);
            again.awaitReady();
            scenario.awaitGroup("connect group with a worker started again", 2);
            ConnectPlacement restarted = scenario.awaitPlacement(
                    "work shared again with the worker started again",
                    survivor,
                    p -> p.allRunning()
                            && p.workers().equals(Set.of(first.workerId(), again.workerId()))
                            && p.isBalanced());
            log.info("{}: work shared again {} ms after the restart", target, millisSince(restart));
            outcome.add("states after a worker started again", restarted.states(scenario.roles()));
            outcome.add("per worker after a worker started again", restarted.perWorker());
            // The broker's cleaner compacts Connect's own topics (short segments, see
            // createInternalTopics). The status topic is the one with versions to remove: each
            // task's state was written when it started and again when the kill moved it, and the
            // restarted worker's writes, seconds later, closed the segments holding both (the
            // newest version of a key in the active segment is never cleaned, so before the
            // restart this depends on when Connect happened to write; and Connect writes a source
            // offset only when it moved, twice a task here).
            scenario.awaitCompacted(scenario.statusTopic(), STATUS_PARTITIONS);
            outcome.add("Connect's status topic compacted by the broker", true);
            long recordsAfterRestart = scenario.recordsInTopic();
            outcome.add("records in the topic after the restart", recordsAfterRestart);
            assertThat(recordsAfterRestart)
                    .as("records in the topic after a worker started again: a source task it took resumed at its"
                            + " committed offset, read from the offset topic")
                    .isEqualTo(SOURCE_TASKS * RECORDS_PER_RANGE);
            log.info(
                    "{}: scenario done in {} ms, {} ms after the group formed; outcome:\n{}",
                    target,
                    millisSince(begin),
                    millisSince(start),
                    String.join("\n", outcome.lines()));
        } catch (Exception | AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nConnect workers' logs: " + logs + tails(workers), e);
        } finally {
            for (ConnectWorker worker : workers) {
                worker.close();
            }
            deleteQuietly(work);
        }
    }

    /** The steps of the scenario on one target. */
    private record Scenario(
            KafkaTarget target, Admin admin, String run, Path work, Path logs, Differential.Outcome outcome) {

        String topic() {
            return "connect-numbers-" + run;
        }

        String group() {
            return "connect-it-" + run;
        }

        String sourceName() {
            return "numbers-source-" + run;
        }

        String sinkName() {
            return "lines-sink-" + run;
        }

        /** The connectors' names as the outcome writes them. */
        Map<String, String> roles() {
            return Map.of(sourceName(), "source", sinkName(), "sink");
        }

        Path sinkDir() {
            return work.resolve("sink");
        }

        /**
         * The workers' settings: the group, its internal topics, converters, the plugins found by
         * {@code ServiceLoader} only, short sessions for the group and the sink's consumers, and
         * offsets committed every half second.
         */
        Map<String, String> workerSettings() {
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("bootstrap.servers", target.bootstrapServers());
            settings.put("group.id", group());
            settings.put("config.storage.topic", configsTopic());
            settings.put("offset.storage.topic", offsetsTopic());
            settings.put("status.storage.topic", statusTopic());
            // -1: the cluster's default replication factor (1, or 3 on the degraded target)
            settings.put("config.storage.replication.factor", "-1");
            settings.put("offset.storage.replication.factor", "-1");
            settings.put("status.storage.replication.factor", "-1");
            settings.put("offset.storage.partitions", Integer.toString(OFFSETS_PARTITIONS));
            settings.put("status.storage.partitions", Integer.toString(STATUS_PARTITIONS));
            settings.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
            settings.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
            settings.put("plugin.discovery", "service_load");
            settings.put("session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS));
            settings.put("heartbeat.interval.ms", Integer.toString(HEARTBEAT_INTERVAL_MS));
            settings.put("scheduled.rebalance.max.delay.ms", Integer.toString(REBALANCE_DELAY_MS));
            // a worker that cannot read the config topic to its end in time waits this long (5
            // minutes by default) before it tries to join again
            settings.put("worker.unsync.backoff.ms", "2000");
            settings.put("offset.flush.interval.ms", "500");
            settings.put("consumer.group.protocol", "classic");
            settings.put("consumer.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS));
            settings.put("consumer.heartbeat.interval.ms", Integer.toString(HEARTBEAT_INTERVAL_MS));
            return settings;
        }

        String configsTopic() {
            return group() + "-configs";
        }

        String offsetsTopic() {
            return group() + "-offsets";
        }

        String statusTopic() {
            return group() + "-status";
        }

        /** Creates Connect's config, offset and status topics, compacted ({@link #INTERNAL_TOPIC_CONFIGS}). */
        void createInternalTopics() throws Exception {
            List<NewTopic> topics = List.of(
                    new NewTopic(configsTopic(), Optional.of(1), Optional.empty()).configs(INTERNAL_TOPIC_CONFIGS),
                    new NewTopic(offsetsTopic(), Optional.of(OFFSETS_PARTITIONS), Optional.empty())
                            .configs(INTERNAL_TOPIC_CONFIGS),
                    new NewTopic(statusTopic(), Optional.of(STATUS_PARTITIONS), Optional.empty())
                            .configs(INTERNAL_TOPIC_CONFIGS));
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
            for (NewTopic topic : topics) {
                Clients.awaitLeaders(admin, topic.name(), topic.numPartitions());
            }
        }

        /**
         * Waits until the broker's cleaner removed records from {@code topic}: reading it from its
         * start gives fewer records than its end offsets (a compacted topic keeps its offsets, so
         * the difference is what the cleaner removed).
         */
        void awaitCompacted(String topic, int partitions) {
            AtomicReference<String> last = new AtomicReference<>("not read yet");
            List<TopicPartition> all = Clients.partitions(topic, partitions);
            try (var consumer = Clients.consumer(target, Map.of())) {
                consumer.assign(all);
                await(topic + " compacted", last::get, () -> {
                    Map<TopicPartition, Long> ends = consumer.endOffsets(all);
                    long read = Clients.readFromStart(consumer, all, ends).size();
                    long written =
                            ends.values().stream().mapToLong(Long::longValue).sum();
                    last.set(read + " records read of " + written + " written");
                    return read < written;
                });
            }
        }

        /** Lets each source task emit its range's first {@code records} records. */
        void release(long records) throws IOException {
            Path file = work.resolve("release");
            Path next = work.resolve("release.next");
            Files.writeString(next, Long.toString(records), StandardCharsets.UTF_8);
            Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }

        /** Waits until the Connect group is Stable with {@code members} members; writes it down. */
        void awaitGroup(String phase, int members) {
            AtomicReference<ClassicGroupDescription> seen = new AtomicReference<>();
            await(phase, () -> "last description: " + seen.get(), () -> {
                ClassicGroupDescription description = admin.describeClassicGroups(List.of(group()))
                        .describedGroups()
                        .get(group())
                        .get(30, TimeUnit.SECONDS);
                seen.set(description);
                return description.state() == ClassicGroupState.STABLE
                        && description.members().size() == members;
            });
            ClassicGroupDescription group = seen.get();
            outcome.add(
                    phase,
                    group.state() + ", protocol type " + group.protocol() + ", protocol " + group.protocolData()
                            + ", members " + group.members().size());
        }

        /**
         * Which worker the last assignment each of {@code workers} logged names as the group's
         * leader, by the order they were started ("the worker started first"); they must agree.
         */
        String leader(List<ConnectWorker> workers) throws IOException {
            Set<String> named = new TreeSet<>();
            for (ConnectWorker worker : workers) {
                String member = worker.lastLeaderSeen().orElse("none");
                int index = IntStream.range(0, workers.size())
                        .filter(i -> workers.get(i).hasMemberId(member))
                        .findFirst()
                        .orElse(-1);
                named.add(index < 0 ? "none of the workers" : "the worker started " + ORDINALS.get(index));
            }
            assertThat(named).as("the leader each worker last logged").hasSize(1);
            return named.iterator().next();
        }

        void createConnectors(ConnectRest rest) {
            Map<String, String> source = Map.of(
                    "connector.class",
                    NumberedSourceConnector.class.getName(),
                    "tasks.max",
                    Integer.toString(SOURCE_TASKS),
                    NumberedSourceConnector.TOPIC,
                    topic(),
                    NumberedSourceConnector.RECORDS_PER_RANGE,
                    Long.toString(RECORDS_PER_RANGE),
                    NumberedSourceConnector.RELEASE_FILE,
                    work.resolve("release").toString());
            Map<String, String> sink = Map.of(
                    "connector.class",
                    LinesFileSinkConnector.class.getName(),
                    "tasks.max",
                    Integer.toString(SINK_TASKS),
                    "topics",
                    topic(),
                    LinesFileSinkConnector.OUTPUT_DIR,
                    sinkDir().toString());
            // 409 while the group rebalances (Connect's "try again"): retried
            await("the source connector created", () -> "", () -> {
                rest.createConnector(sourceName(), source);
                return true;
            });
            await("the sink connector created", () -> "", () -> {
                rest.createConnector(sinkName(), sink);
                return true;
            });
        }

        /** Waits until the statuses satisfy {@code settled}; returns them. */
        ConnectPlacement awaitPlacement(String phase, ConnectRest rest, Predicate<ConnectPlacement> settled) {
            AtomicReference<ConnectPlacement> seen = new AtomicReference<>();
            await(phase, () -> "last statuses: " + seen.get(), () -> {
                ConnectPlacement placement = new ConnectPlacement(rest.statuses(), sourceName(), sinkName());
                seen.set(placement);
                return settled.test(placement);
            });
            log.info("{}: {}: {}", target, phase, seen.get().statuses());
            return seen.get();
        }

        /**
         * Waits until the sink's files hold exactly the first {@code released} records of every
         * range (each at least once) and the source committed {@code released} for each range; writes
         * both down.
         */
        void awaitDelivered(String phase, ConnectRest rest, long released) {
            Set<Long> expected = new TreeSet<>();
            for (long range = 0; range < SOURCE_TASKS; range++) {
                long first = range * RECORDS_PER_RANGE;
                LongStream.range(first, first + released).forEach(expected::add);
            }
            Map<String, String> expectedOffsets = new TreeMap<>();
            for (int range = 0; range < SOURCE_TASKS; range++) {
                expectedOffsets.put("{\"range\":\"" + range + "\"}", "{\"next\":" + released + "}");
            }
            AtomicReference<SinkDelivery> seen = new AtomicReference<>(SinkDelivery.NOTHING);
            AtomicReference<Map<String, String>> offsets = new AtomicReference<>(Map.of());
            await(
                    phase,
                    () -> "delivered " + seen.get().summary(expected) + "; source offsets " + offsets.get(),
                    () -> {
                        seen.set(SinkDelivery.read(sinkDir()));
                        offsets.set(rest.sourceOffsets(sourceName()));
                        return seen.get().numbers().equals(expected)
                                && offsets.get().equals(expectedOffsets);
                    });
            log.info(
                    "{}: {}: {} in {} lines",
                    target,
                    phase,
                    seen.get().summary(expected),
                    seen.get().lines());
            outcome.add(phase, seen.get().summary(expected));
            outcome.add(phase + ", source offsets", offsets.get());
        }

        /** Waits until the sink's consumer group has committed the end of every partition. */
        void awaitSinkCommitted() {
            AtomicReference<Map<TopicPartition, Long>> ends = new AtomicReference<>(Map.of());
            AtomicReference<Map<TopicPartition, Long>> seen = new AtomicReference<>(Map.of());
            await(
                    "the sink's consumer group committed the topic's end",
                    () -> "ends " + ends.get() + ", committed " + seen.get(),
                    () -> {
                        ends.set(endOffsets());
                        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(
                                        "connect-" + sinkName())
                                .partitionsToOffsetAndMetadata()
                                .get(30, TimeUnit.SECONDS);
                        Map<TopicPartition, Long> offsets = new HashMap<>();
                        committed.forEach((p, o) -> offsets.put(p, o == null ? -1L : o.offset()));
                        seen.set(offsets);
                        return offsets.equals(ends.get());
                    });
            outcome.add("the sink's consumer group committed", "every partition's end");
        }

        long recordsInTopic() throws Exception {
            return endOffsets().values().stream().mapToLong(Long::longValue).sum();
        }

        private Map<TopicPartition, Long> endOffsets() throws Exception {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            Clients.partitions(topic(), PARTITIONS).forEach(p -> latest.put(p, OffsetSpec.latest()));
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((p, info) -> ends.put(p, info.offset()));
            return ends;
        }

        /** Awaitility with the scenario's patience; the timeout names {@code last} and the logs. */
        private void await(String phase, Supplier<String> last, Awaited condition) {
            try {
                Awaitility.await(phase)
                        .atMost(PATIENCE)
                        .pollInterval(POLL_INTERVAL)
                        .ignoreExceptions()
                        .until(condition::holds);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(
                        phase + ": not within " + PATIENCE + "; " + last.get() + "; " + target.logsHint(), e);
            }
        }
    }

    /** A condition of {@link Scenario#await} that may throw (a refused request: not yet). */
    @FunctionalInterface
    private interface Awaited {
        boolean holds() throws Exception;
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static String tails(List<ConnectWorker> workers) {
        StringBuilder text = new StringBuilder();
        for (ConnectWorker worker : workers) {
            text.append("\n---- ").append(worker).append('\n').append(worker.tail());
        }
        return text.toString();
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
