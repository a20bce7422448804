package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.kafka.CompactionWorkload.Rec;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Differential (issue 17): the same compaction workload ({@link CompactionWorkload}) on every
 * target, and what a consumer then reads must be Kafka's and the model's: each key's latest record
 * at its original offset, tombstones gone once {@code delete.retention.ms} has passed (or kept,
 * where it has not), a fetch from a removed offset landing on the next surviving record, and
 * ListOffsets. The targets' cleaners run every {@code 250 ms} ({@code log.cleaner.backoff.ms} on
 * Kafka, {@code tributary.broker.log-cleaner.backoff} on Tributary, set on the shared targets).
 */
@OnSharedTargets
class CompactionIT {

    private static final Logger log = LoggerFactory.getLogger(CompactionIT.class);

    /** The workloads' seed; {@code -Dcompaction.seed=...} to try another. */
    private static final long SEED = Long.getLong("compaction.seed", 17L);

    /** Shorter than {@link CompactionWorkload#STEP_INTERVAL_MS}: a new segment every few steps. */
    private static final long SEGMENT_MS = 60_000;

    /** The first scenario's {@code delete.retention.ms}: tombstones go a second after their first pass. */
    private static final long DELETE_RETENTION_MS = 1000;

    /** How many offsets inside removed ranges the consumer is positioned at. */
    private static final int REMOVED_OFFSETS_PROBED = 10;

    /**
     * The cleanable range is made the same on every target, whatever each one's segment
     * boundaries: a first sentinel, stamped {@link #SEGMENT_MS} after the step that would follow
     * the last (a segment rolls when the incoming batch is more than {@code segment.ms} newer than
     * the max timestamp of the segment's first batch), closes the segment holding the last step; once the consumer sees no key twice below it (every segment below went
     * through a pass, which gives a tombstone its delete horizon: the pass's start plus {@code
     * delete.retention.ms}), the test waits out the retention and writes a second sentinel, stamped
     * now, which closes the first one's segment: the pass that dirty segment calls for (Kafka cleans
     * a log only when its dirty ratio is above {@code min.cleanable.dirty.ratio}, and has no pass for
     * tombstones whose horizon passed) drops every tombstone. The first sentinel's value is 2,000
     * characters, so that its segment alone is well above the 1 % dirty ratio.
     */
    @Test
    void aCompactedTopicKeepsEachKeysLatestRecordAtItsOffsetAndDropsExpiredTombstones() {
        Differential.assertSameOutcome((target, outcome) -> {
            outcome.add("seed", SEED);
            String topic = Clients.uniqueTopic("compaction");
            try (Admin admin = target.admin()) {
                createCompactedTopic(admin, topic, Optional.empty(), DELETE_RETENTION_MS);
            }
            CompactionWorkload workload = CompactionWorkload.draw(SEED, 90, 30, baseTimestampMs());
            CompactionWorkload.Written written = workload.write(target, topic, 0, workload.stepCount());
            describeWritten(outcome, written);
            Rec first = CompactionWorkload.writeSentinel(
                    target,
                    topic,
                    "sentinel-1",
                    "x".repeat(2000),
                    Optional.of(workload.stepTimestampMs(workload.stepCount() - 1)
                            + CompactionWorkload.STEP_INTERVAL_MS
                            + SEGMENT_MS));
            outcome.add("first sentinel at", first.offset());
            awaitCleaned(target, topic, first.offset(), false);
            long horizonPassed = System.currentTimeMillis() + DELETE_RETENTION_MS + 500;
            Awaitility.await("delete.retention.ms after the first complete pass")
                    .atMost(Duration.ofMillis(DELETE_RETENTION_MS + 5_000))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> System.currentTimeMillis() >= horizonPassed);
            Rec second = CompactionWorkload.writeSentinel(target, topic, "sentinel-2", "end", Optional.empty());
            outcome.add("second sentinel at", second.offset());

            List<Rec> read = awaitCleaned(target, topic, second.offset(), true);
            List<Rec> records = new ArrayList<>(written.records());
            records.add(first);
            compareWithModel(
                    target,
                    topic,
                    workload,
                    new CompactionWorkload.Written(records, written.refusals()),
                    read,
                    second.offset(),
                    true,
                    outcome);
        });
    }

    /**
     * A follower that was down while the leader cleaned comes back, catches up from the cleaned
     * log, gets its preferred leadership back, and then serves what Kafka's single broker serves.
     * On the healthy Tributary target (three live brokers), the partition's leader, its preferred
     * replica, is stopped cleanly after the first half of the workload; the second half and the
     * cleaning happen on the replica that took over; the stopped broker is started again, rejoins
     * the ISR and leads (the target's coordinator gives preferred leaderships back after 1 s), and
     * then its own cleaner must have cleaned its uncleaned first half too. On the degraded target
     * the third replica sits on the broker that is down for the whole run (a follower down while
     * the leader cleans that never returns): its broker restart would cost as much again, so the
     * stop and restart happen on the healthy target only; the records are compared on every target.
     * The tombstones' retention is an hour here: a replica down for longer than {@code
     * delete.retention.ms} can miss a tombstone and keep the record it deleted (Kafka's documented
     * limit), which is not what this compares.
     */
    @Test
    void aFollowerThatWasDownWhileTheLeaderCleanedCatchesUpAndServesTheSameRecordsOnceItLeads() {
        Differential.assertSameOutcome((target, outcome) -> {
            outcome.add("seed", SEED);
            String topic = Clients.uniqueTopic("compaction-follower");
            int replicas = Math.min(3, target.registeredBrokerCount());
            try (Admin admin = target.admin()) {
                createCompactedTopic(admin, topic, Optional.of((short) replicas), 3_600_000);
            }
            CompactionWorkload workload = CompactionWorkload.draw(SEED + 1, 40, 15, baseTimestampMs());
            int half = workload.stepCount() / 2;
            List<Rec> records = new ArrayList<>();
            List<String> refusals = new ArrayList<>();
            CompactionWorkload.Written first = workload.write(target, topic, 0, half);
            records.addAll(first.records());
            refusals.addAll(first.refusals());

            Optional<Integer> stopped = Optional.empty();
            try {
                if (target.kind() == KafkaTargets.Kind.TRIBUTARY && target instanceof TributaryTarget tributary) {
                    long start = System.nanoTime();
                    stopped = Optional.of(stopLeader(tributary, topic));
                    log.info(
                            "{}: leader broker {} of {} stopped and replaced in {} ms",
                            target,
                            stopped.get(),
                            topic,
                            (System.nanoTime() - start) / 1_000_000);
                }
                CompactionWorkload.Written second = workload.write(target, topic, half, workload.stepCount());
                records.addAll(second.records());
                refusals.addAll(second.refusals());
                describeWritten(outcome, new CompactionWorkload.Written(records, refusals));
                long sentinel = CompactionWorkload.writeSentinel(target, topic, "sentinel", "end", Optional.empty())
                        .offset();
                outcome.add("sentinel at", sentinel);
                List<Rec> cleanedWhileDown = awaitCleaned(target, topic, sentinel, false);
                outcome.add(
                        "survivors with one replica down equal the model",
                        below(cleanedWhileDown, sentinel).equals(CompactionWorkload.survivors(records, false)));

                if (target instanceof TributaryTarget tributary && stopped.isPresent()) {
                    int returning = stopped.get();
                    long start = System.nanoTime();
                    tributary.startBroker(returning);
                    stopped = Optional.empty();
                    awaitLeaderInFullIsr(tributary, topic, returning);
                    log.info(
                            "{}: broker {} back and leading {} in {} ms",
                            target,
                            returning,
                            topic,
                            (System.nanoTime() - start) / 1_000_000);
                }
                List<Rec> read = awaitCleaned(target, topic, sentinel, false);
                compareWithModel(
                        target,
                        topic,
                        workload,
                        new CompactionWorkload.Written(records, refusals),
                        read,
                        sentinel,
                        false,
                        outcome);
            } finally {
                if (stopped.isPresent() && target instanceof TributaryTarget tributary) {
                    tributary.startBroker(stopped.get()); // leave the shared target whole
                }
            }
        });
    }

    /** An hour ago to the second: the steps' timestamps lie in the past, the last sentinel's is now. */
    private static long baseTimestampMs() {
        return Instant.now()
                .minus(Duration.ofHours(1))
                .truncatedTo(ChronoUnit.SECONDS)
                .toEpochMilli();
    }

    private static void createCompactedTopic(
            Admin admin, String topic, Optional<Short> replicationFactor, long deleteRetentionMs) throws Exception {
        NewTopic newTopic = new NewTopic(topic, Optional.of(1), replicationFactor)
                .configs(Map.of(
                        "cleanup.policy", "compact",
                        "segment.ms", Long.toString(SEGMENT_MS),
                        "min.cleanable.dirty.ratio", "0.01",
                        "min.compaction.lag.ms", "0",
                        "delete.retention.ms", Long.toString(deleteRetentionMs),
                        "min.insync.replicas", "1"));
        admin.createTopics(List.of(newTopic)).all().get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        Clients.awaitLeaders(admin, topic, 1);
    }

    private static void describeWritten(Differential.Outcome outcome, CompactionWorkload.Written written) {
        List<Rec> records = written.records();
        outcome.add(
                "written",
                records.size() + " records, "
                        + records.stream().filter(r -> r.value() == null).count()
                        + " tombstones, "
                        + records.stream().map(Rec::key).distinct().count() + " keys, offsets "
                        + records.getFirst().offset() + " to "
                        + records.getLast().offset());
        written.refusals().forEach(refusal -> outcome.add("refused", refusal));
    }

    /**
     * Reads the partition up to the sentinel until the cleaner has done everything below it: no key
     * twice and, when {@code tombstonesExpire}, no tombstone; fails after {@link Clients#PATIENCE}
     * naming what was left.
     */
    private static List<Rec> awaitCleaned(KafkaTarget target, String topic, long sentinel, boolean tombstonesExpire) {
        List<List<Rec>> last = new ArrayList<>(List.of(List.of()));
        Awaitility.await("the cleaner of " + target + " done below the sentinel at " + sentinel + " of " + topic)
                .atMost(Clients.PATIENCE)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    List<Rec> read = CompactionWorkload.readAll(target, topic, sentinel + 1);
                    last.set(0, read);
                    assertThat(CompactionWorkload.uncleaned(read, sentinel, tombstonesExpire))
                            .as("what is not compacted yet below the sentinel")
                            .isEmpty();
                });
        return last.getFirst();
    }

    private static List<Rec> below(List<Rec> read, long sentinel) {
        return read.stream().filter(r -> r.offset() < sentinel).toList();
    }

    /**
     * Writes down, and checks against the model, what a consumer reads below the sentinel, where a
     * consumer positioned inside a removed range lands, and ListOffsets (earliest, latest, the
     * middle step's timestamp).
     */
    private static void compareWithModel(
            KafkaTarget target,
            String topic,
            CompactionWorkload workload,
            CompactionWorkload.Written written,
            List<Rec> read,
            long sentinel,
            boolean tombstonesExpired,
            Differential.Outcome outcome)
            throws Exception {
        long base = workload.baseTimestampMs();
        List<Rec> survivors = below(read, sentinel);
        outcome.add("survivors", survivors.size());
        survivors.forEach(r -> outcome.add("survivor", r.line(base)));
        List<Rec> expected = CompactionWorkload.survivors(written.records(), tombstonesExpired);
        assertThat(survivors.stream().map(r -> r.line(base)).toList())
                .as(
                        "the survivors below the sentinel (model: each key's latest record at its offset%s)",
                        tombstonesExpired ? ", tombstones gone" : "")
                .isEqualTo(expected.stream().map(r -> r.line(base)).toList());

        List<Long> kept = read.stream().map(Rec::offset).toList();
        Set<Long> keptSet = Set.copyOf(kept);
        List<Long> removed = new ArrayList<>();
        for (long o = 0; o < sentinel; o++) {
            if (!keptSet.contains(o)) {
                removed.add(o);
            }
        }
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(target, Map.of())) {
            consumer.assign(List.of(partition));
            int stride = Math.max(1, removed.size() / REMOVED_OFFSETS_PROBED);
            for (int i = 0; i < removed.size(); i += stride) {
                long from = removed.get(i);
                long landed = CompactionWorkload.firstOffsetFrom(consumer, partition, from);
                long next = kept.stream().filter(o -> o >= from).findFirst().orElseThrow();
                outcome.add("from removed offset " + from, "first record at " + landed);
                assertThat(landed)
                        .as("a consumer positioned at removed offset %d gets the next surviving record", from)
                        .isEqualTo(next);
            }
        }

        long middle = workload.stepTimestampMs(workload.stepCount() / 2);
        try (Admin admin = target.admin()) {
            Map<String, OffsetSpec> specs = Map.of(
                    "earliest", OffsetSpec.earliest(),
                    "latest", OffsetSpec.latest(),
                    "for the middle step's timestamp", OffsetSpec.forTimestamp(middle));
            for (String name : List.of("earliest", "latest", "for the middle step's timestamp")) {
                long offset = admin.listOffsets(Map.of(partition, specs.get(name)))
                        .partitionResult(partition)
                        .get(30, TimeUnit.SECONDS)
                        .offset();
                outcome.add("list offsets " + name, offset);
            }
        }
        long firstAtOrAfterMiddle = read.stream()
                .filter(r -> r.timestampMs() >= middle)
                .mapToLong(Rec::offset)
                .findFirst()
                .orElseThrow();
        outcome.add("first surviving offset at or after the middle step's timestamp", firstAtOrAfterMiddle);
    }

    /**
     * Waits until the partition's ISR holds every live replica, stops its leader cleanly ({@code
     * bin/tributary stop}: the coordinator moves the leadership first) and waits until another
     * replica leads. Returns the stopped broker's id.
     */
    private static int stopLeader(TributaryTarget target, String topic) throws Exception {
        try (Admin admin = target.admin()) {
            TopicPartitionInfo before = awaitPartition(
                    admin,
                    topic,
                    "every live replica in the ISR",
                    p -> p.isr().stream()
                            .map(Node::id)
                            .collect(Collectors.toSet())
                            .containsAll(liveReplicas(target, p)));
            int leader = before.leader().id();
            target.stopBroker(leader);
            awaitPartition(
                    admin,
                    topic,
                    "a leader other than broker " + leader,
                    p -> p.leader() != null
                            && !p.leader().isEmpty()
                            && p.leader().id() != leader);
            return leader;
        }
    }

    /** Waits until {@code broker}, back, is in the ISR with every live replica, and leads (it is preferred). */
    private static void awaitLeaderInFullIsr(TributaryTarget target, String topic, int broker) throws Exception {
        try (Admin admin = target.admin()) {
            awaitPartition(
                    admin,
                    topic,
                    "broker " + broker + " leading, every live replica in the ISR",
                    p -> p.leader() != null
                            && !p.leader().isEmpty()
                            && p.leader().id() == broker
                            && p.isr().stream()
                                    .map(Node::id)
                                    .collect(Collectors.toSet())
                                    .containsAll(liveReplicas(target, p)));
        }
    }

    private static Set<Integer> liveReplicas(KafkaTarget target, TopicPartitionInfo partition) {
        return partition.replicas().stream()
                .map(Node::id)
                .filter(id -> !target.stoppedBrokers().contains(id))
                .collect(Collectors.toSet());
    }

    private static TopicPartitionInfo awaitPartition(
            Admin admin, String topic, String what, Predicate<TopicPartitionInfo> condition) {
        TopicPartitionInfo[] seen = new TopicPartitionInfo[1];
        Awaitility.await(what + " for " + topic + " (last seen: see the cause)")
                .atMost(Clients.PATIENCE)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    TopicDescription description = admin.describeTopics(Set.of(topic))
                            .allTopicNames()
                            .get(10, TimeUnit.SECONDS)
                            .get(topic);
                    seen[0] = description.partitions().getFirst();
                    assertThat(condition.test(seen[0]))
                            .as("%s: %s", what, seen[0])
                            .isTrue();
                });
        return seen[0];
    }
}
