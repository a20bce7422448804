package io.tributary.systemtests.bench;

import io.tributary.systemtests.bench.BenchGroup.BenchFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code bin/bench-groups}' load generator: Kafka's classic consumer group protocol against Apache
 * Kafka and Tributary in the same run ({@code --phase=compare}), and a Tributary coordinator
 * failover under a consuming, committing group ({@code --phase=failover}, {@link
 * CoordinatorFailoverBench}). Every member is a {@link GroupBenchMember} in a JVM of its own.
 *
 * <p>The compare phase, per round (the targets' order alternating between rounds) and target:
 *
 * <ol>
 *   <li>for each assignor ({@code range}: eager; {@code cooperative-sticky}), a group of three
 *       members on an empty topic of {@code --partitions}, settled, then:
 *       <ul>
 *         <li>{@code join-ASSIGNOR}: a fourth member starts and, once its consumer is built,
 *             subscribes at a set phase of the group's heartbeats (round r of R: (r - 1/2) / R of
 *             a heartbeat interval after one of m1's heartbeats was answered, the same on both
 *             targets; {@link #subscribeAtPhase}); from its {@code S} (right before its
 *             {@code subscribe} and first {@code poll}) to the last callback that moved a
 *             partition, once the four own every partition, each at least one, none twice, and
 *             no callback came for {@code --quiet-ms} ({@code rebalance_ms}); to its last callback
 *             of any kind ({@code callbacks_ms}); the generations the assignments were in; split
 *             where the first of the three learnt of the rebalance from a heartbeat's answer
 *             ({@code noticed_ms}, then {@code after_noticed_ms});
 *         <li>the fourth leaves (closes), and the three settle again (not measured);
 *         <li>{@code kill-ASSIGNOR}: the third member is SIGKILLed; from the kill to the last
 *             callback that moved a partition once the two survivors own every partition ({@code
 *             rebalance_ms}); the part after its session expired, taking the expiry as its last
 *             answered heartbeat plus the session timeout ({@code after_expiry_ms}); how long
 *             before the kill that heartbeat was ({@code heartbeat_age_ms}); the same split as
 *             above, where the first survivor learnt of the rebalance;
 *       </ul>
 *   <li>{@code consume-range}: three members on the pre-filled topic pause every partition as it is
 *       assigned; once the three are settled they are told to resume; records per second from the
 *       first {@code poll} after a resume to the last record's delivery ({@code records_per_s},
 *       {@code mb_per_s} of record values); the group's formation before ({@code formation_ms}).
 * </ol>
 *
 * Before round 1, one consumer in this JVM reads the filled topic on each target, unmeasured
 * ({@link #warmUp}). Arguments are {@code --name=value};
 * results are appended to {@code --csv} ({@link GroupBenchResults}) and a table to {@code --md}.
 */
public final class GroupBench {

    private static final Duration LEAVE_PATIENCE = Duration.ofSeconds(15);

    private final Map<String, String> o;
    private final int partitions;
    private final Duration quiet;
    private final int sessionTimeoutMs;
    private final int heartbeatIntervalMs;
    private final int rounds;
    private final Path logDir;
    private final Path log4j;
    private final GroupBenchResults results;
    private final Path md;

    GroupBench(Map<String, String> o) throws IOException {
        this.o = o;
        partitions = Integer.parseInt(o.getOrDefault("partitions", "12"));
        quiet = Duration.ofMillis(Long.parseLong(o.getOrDefault("quiet-ms", "2000")));
        sessionTimeoutMs = Integer.parseInt(o.getOrDefault("session-timeout-ms", "10000"));
        heartbeatIntervalMs = Integer.parseInt(o.getOrDefault("heartbeat-interval-ms", "1000"));
        rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
        logDir = Path.of(required(o, "log-dir"));
        log4j = Path.of(required(o, "log4j"));
        Files.createDirectories(logDir);
        results = new GroupBenchResults(Path.of(required(o, "csv")));
        md = Path.of(required(o, "md"));
    }

    /** {@code --name=value} arguments as a map, in order. */
    static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("arguments are --name=value, got " + arg);
            }
            options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        return options;
    }

    static String required(Map<String, String> o, String name) {
        String value = o.get(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = options(args);
        var bench = new GroupBench(o);
        switch (o.getOrDefault("phase", "compare")) {
            case "compare" -> bench.compare();
            case "failover" -> new CoordinatorFailoverBench(bench, o).run();
            default -> throw new IllegalArgumentException("--phase is compare or failover");
        }
        System.exit(0);
    }

    GroupBenchResults results() {
        return results;
    }

    int partitions() {
        return partitions;
    }

    /** A group of this run: members with these settings (the members' arguments but for their name). */
    BenchGroup group(String bootstrap, String groupId, String topic, String assignor, boolean paused, boolean commit) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("bootstrap", bootstrap);
        m.put("group", groupId);
        m.put("topic", topic);
        m.put("assignor", assignor);
        m.put("session-timeout-ms", Integer.toString(sessionTimeoutMs));
        m.put("heartbeat-interval-ms", o.getOrDefault("heartbeat-interval-ms", "1000"));
        m.put("paused", Boolean.toString(paused));
        m.put("commit", Boolean.toString(commit));
        return new BenchGroup(m, partitions, quiet, logDir, log4j);
    }

    // ---- compare ------------------------------------------------------------------------------

    private void compare() throws Exception {
        Map<String, String> targets = new LinkedHashMap<>();
        for (String entry : required(o, "targets").split(",")) {
            String[] kv = entry.split("=", 2);
            targets.put(kv[0], kv[1]);
        }
        List<String> assignors =
                List.of(o.getOrDefault("assignors", "range,cooperative-sticky").split(","));
        long records = Long.parseLong(o.getOrDefault("records", "2000000"));
        int recordSize = Integer.parseInt(o.getOrDefault("record-size", "256"));
        String rebalanceTopic = "bench-groups-rebalance";
        String consumeTopic = "bench-groups-consume";
        for (var target : targets.entrySet()) {
            try (Admin admin = admin(target.getValue())) {
                createTopic(admin, rebalanceTopic);
                createTopic(admin, consumeTopic);
                fill(admin, target.getValue(), consumeTopic, records, recordSize);
            }
        }
        List<String> order = new ArrayList<>(targets.keySet());
        for (String target : order) {
            warmUp(target, targets.get(target), consumeTopic, records);
        }
        for (int round = 1; round <= rounds; round++) {
            List<String> roundOrder = new ArrayList<>(order);
            if (round % 2 == 0) {
                roundOrder = roundOrder.reversed();
            }
            progress("round %d: %s", round, roundOrder);
            for (String target : roundOrder) {
                for (String assignor : assignors) {
                    rebalanceCases(target, targets.get(target), rebalanceTopic, assignor, round);
                }
                consumeCase(target, targets.get(target), consumeTopic, round, records, recordSize);
            }
        }
        writeCompareTable(assignors, rounds, records, recordSize);
    }

    private void rebalanceCases(String target, String bootstrap, String topic, String assignor, int round)
            throws Exception {
        String groupId = "bench-%s-%s-r%d-%d".formatted(assignor, target, round, System.currentTimeMillis());
        var join = GroupBenchResults.row("join-" + assignor, target, round);
        var kill = GroupBenchResults.row("kill-" + assignor, target, round);
        progress("  %s %s round %d: group %s", target, assignor, round, groupId);
        try (BenchGroup group = group(bootstrap, groupId, topic, assignor, false, false)) {
            long started = System.nanoTime();
            for (String name : List.of("m1", "m2", "m3")) {
                group.start(name);
            }
            group.awaitSettled(List.of("m1", "m2", "m3"), started, Duration.ofSeconds(90));

            group.start("m4", Map.of("hold", "true"));
            group.awaitEvent("m4", 'W', Duration.ofSeconds(60));
            long subscribed = subscribeAtPhase(group, "m4", "m1", round);
            long settled = group.awaitSettled(List.of("m1", "m2", "m3", "m4"), subscribed, Duration.ofSeconds(60));
            rebalanceFigures(join, group, List.of("m1", "m2", "m3"), subscribed, settled);
            results.write(join);
            progress("    join: %s ms", join.get("rebalance_ms"));

            long leaving = System.nanoTime();
            group.member("m4").leave(LEAVE_PATIENCE);
            group.awaitSettled(List.of("m1", "m2", "m3"), leaving, Duration.ofSeconds(60));

            // Right after one of m3's heartbeats is answered: the coordinator's session deadline is
            // then that heartbeat's arrival plus the session timeout. (Killed at any moment, a
            // heartbeat in flight may reach the coordinator unseen by m3, and the expiry taken from
            // m3's last answered one is a heartbeat interval early.)
            long lastHeartbeat = group.awaitEvent("m3", 'H', System.nanoTime(), Duration.ofMillis(sessionTimeoutMs));
            long killed = group.member("m3").kill();
            group.timeline.add(GroupTimeline.BENCH, "K " + killed);
            settled = group.awaitSettled(
                    List.of("m1", "m2"),
                    killed,
                    Duration.ofMillis(sessionTimeoutMs).plusSeconds(60));
            rebalanceFigures(kill, group, List.of("m1", "m2"), killed, settled);
            long expired = lastHeartbeat + TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMs);
            GroupBenchResults.put(kill, "after_expiry_ms", (settled - expired) / 1e6, 1);
            GroupBenchResults.put(kill, "heartbeat_age_ms", (killed - lastHeartbeat) / 1e6, 1);
            results.write(kill);
            progress(
                    "    kill: %s ms (%s ms after the session expired)",
                    kill.get("rebalance_ms"), kill.get("after_expiry_ms"));
            group.leaveAll(LEAVE_PATIENCE);
        } catch (BenchFailure e) {
            progress("    failed: %s", e.getMessage());
            for (var row : List.of(join, kill)) {
                if (!row.containsKey("rebalance_ms")) {
                    row.put("error", e.getMessage());
                    results.write(row);
                }
            }
        }
    }

    /**
     * Tells the held member {@code joining} to subscribe {@link #joinPhase} of a heartbeat interval
     * after one of {@code member}'s heartbeats was answered, and returns the time of its {@code S}.
     * The group's members notice a join at their next heartbeat, so where in the heartbeat interval
     * the join lands decides most of {@code noticed_ms}; left to chance (when the JVM of the new
     * member happens to be ready), three rounds may give one target mostly late phases and the
     * other early ones. Both targets get the same phases, spread over the interval.
     */
    private long subscribeAtPhase(BenchGroup group, String joining, String member, int round)
            throws IOException, InterruptedException {
        long heartbeat = group.awaitEvent(member, 'H', System.nanoTime(), Duration.ofMillis(sessionTimeoutMs));
        long at = heartbeat + (long) (joinPhase(round, rounds) * TimeUnit.MILLISECONDS.toNanos(heartbeatIntervalMs));
        long wait = at - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
        group.member(joining).send("subscribe");
        return group.awaitEvent(joining, 'S', Duration.ofSeconds(60));
    }

    /** Round {@code round} of {@code rounds}' phase: the middles of {@code rounds} equal slices of [0, 1). */
    static double joinPhase(int round, int rounds) {
        return (round - 0.5) / rounds;
    }

    /**
     * The figures of a rebalance from {@code from} (the fourth's subscribe, the kill) to {@code
     * settled}, split where the first of the members that were already in the group ({@code
     * earlier}) learnt of it from a heartbeat's answer ({@link GroupTimeline#noticedAfter}).
     */
    private static void rebalanceFigures(
            Map<String, String> row, BenchGroup group, List<String> earlier, long from, long settled) {
        GroupBenchResults.put(row, "members", earlier.size() + (row.get("case").startsWith("join") ? 1 : 0));
        GroupBenchResults.put(row, "rebalance_ms", (settled - from) / 1e6, 1);
        group.timeline.noticedAfter(earlier, from).ifPresent(noticed -> {
            GroupBenchResults.put(row, "noticed_ms", (noticed - from) / 1e6, 1);
            GroupBenchResults.put(row, "after_noticed_ms", (settled - noticed) / 1e6, 1);
        });
        long lastCallback = group.timeline.lastAfter(from, "ARL").orElse(settled);
        GroupBenchResults.put(row, "callbacks_ms", (lastCallback - from) / 1e6, 1);
        GroupBenchResults.put(
                row, "generations", group.timeline.generationsAfter(from).size());
    }

    private void consumeCase(String target, String bootstrap, String topic, int round, long records, int recordSize)
            throws Exception {
        String groupId = "bench-consume-%s-r%d-%d".formatted(target, round, System.currentTimeMillis());
        var row = GroupBenchResults.row("consume-range", target, round);
        progress("  %s consume round %d: group %s", target, round, groupId);
        List<String> names = List.of("m1", "m2", "m3");
        try (BenchGroup group = group(bootstrap, groupId, topic, "range", true, false)) {
            long started = System.nanoTime();
            for (String name : names) {
                group.start(name);
            }
            long formed = group.awaitSettled(names, started, Duration.ofSeconds(90));
            long firstSubscribe = Long.MAX_VALUE;
            for (String name : names) {
                firstSubscribe = Math.min(firstSubscribe, group.awaitEvent(name, 'S', Duration.ofSeconds(1)));
            }
            for (String name : names) {
                group.member(name).send("resume");
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (group.timeline.delivered() < records) {
                group.check(names);
                if (System.nanoTime() > deadline) {
                    throw new BenchFailure("only " + group.timeline.delivered() + " of " + records
                            + " records delivered in 5 minutes");
                }
                TimeUnit.MILLISECONDS.sleep(20);
            }
            long start = Long.MAX_VALUE;
            long end = Long.MIN_VALUE;
            for (String name : names) {
                start = Math.min(start, group.awaitEvent(name, 'E', Duration.ofSeconds(1)));
                end = Math.max(end, group.timeline.lastDelivery(name).orElse(Long.MIN_VALUE));
            }
            double seconds = (end - start) / 1e9;
            long once = group.timeline.deliveredOnce();
            GroupBenchResults.put(row, "members", names.size());
            GroupBenchResults.put(row, "records", once);
            GroupBenchResults.put(row, "seconds", seconds, 3);
            GroupBenchResults.put(row, "records_per_s", once / seconds, 0);
            GroupBenchResults.put(row, "mb_per_s", once * (double) recordSize / (1 << 20) / seconds, 1);
            GroupBenchResults.put(row, "formation_ms", (formed - firstSubscribe) / 1e6, 1);
            GroupBenchResults.put(row, "redelivered", group.timeline.delivered() - once);
            results.write(row);
            progress("    %s records/s (%s s)", row.get("records_per_s"), row.get("seconds"));
            group.leaveAll(LEAVE_PATIENCE);
        } catch (BenchFailure e) {
            progress("    failed: %s", e.getMessage());
            row.put("error", e.getMessage());
            results.write(row);
        }
    }

    /**
     * Before anything is measured, one classic consumer in this JVM reads the whole filled topic in
     * a group of its own and commits: the targets' fetch and group paths are compiled, the topic is
     * in the page cache, and Kafka has created {@code __consumer_offsets} (which its first group
     * otherwise waits for).
     */
    private void warmUp(String target, String bootstrap, String topic, long records) {
        long t0 = System.nanoTime();
        Map<String, String> m = new LinkedHashMap<>();
        m.put("bootstrap", bootstrap);
        m.put("name", "warm-up");
        m.put("group", "bench-warm-up-" + target + "-" + System.currentTimeMillis());
        m.put("assignor", "range");
        m.put("commit", "true");
        long read = 0;
        try (var consumer = new KafkaConsumer<byte[], byte[]>(GroupBenchMember.properties(m))) {
            consumer.subscribe(List.of(topic));
            long deadline = t0 + TimeUnit.MINUTES.toNanos(5);
            while (read < records && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(200)).count();
            }
            consumer.commitSync();
        }
        progress(
                "warm-up on %s: %d of %d records read by one consumer in %.1f s",
                target, read, records, (System.nanoTime() - t0) / 1e9);
    }

    private void writeCompareTable(List<String> assignors, int rounds, long records, int recordSize)
            throws IOException {
        var t = new StringBuilder();
        t.append("### Classic groups: Apache Kafka and Tributary\n\n");
        t.append("| case | Kafka | Tributary | ratio | Kafka, each round | Tributary, each round |\n");
        t.append("|---|---|---|---|---|---|\n");
        for (String assignor : assignors) {
            tableRow(t, "join-" + assignor, "rebalance_ms", "4th joins, " + assignor + ": ms to the new assignment", 0);
            tableRow(t, "join-" + assignor, "noticed_ms", "  until the first of the 3 noticed (heartbeat), ms", 0);
            tableRow(t, "join-" + assignor, "after_noticed_ms", "  after that, ms", 0);
            tableRow(t, "kill-" + assignor, "rebalance_ms", "1 of 3 killed, " + assignor + ": ms to the survivors'", 0);
            tableRow(t, "kill-" + assignor, "after_expiry_ms", "  of which after the session expired, ms", 0);
            tableRow(t, "kill-" + assignor, "after_noticed_ms", "  of which after a survivor noticed, ms", 0);
        }
        tableRow(t, "consume-range", "records_per_s", "3 members consume, records/s", 0);
        tableRow(t, "consume-range", "mb_per_s", "3 members consume, MB/s", 1);
        t.append("\nMedians of %d round(s); %d partitions; %d records of %d bytes pre-filled; session timeout %d ms."
                .formatted(rounds, partitions, records, recordSize, sessionTimeoutMs));
        t.append(" Ratios are Tributary/Kafka (rebalance time: lower is better; throughput: higher).\n\n");
        Files.writeString(md, t.toString(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        System.out.print(t);
    }

    private void tableRow(StringBuilder t, String caseName, String column, String label, int decimals) {
        t.append("| %s | %s | %s | %s | %s | %s |\n"
                .formatted(
                        label,
                        results.medianText(caseName, "kafka", column, decimals),
                        results.medianText(caseName, "tributary", column, decimals),
                        results.ratioText(caseName, column),
                        results.valuesText(caseName, "kafka", column),
                        results.valuesText(caseName, "tributary", column)));
    }

    // ---- topics -------------------------------------------------------------------------------

    static Admin admin(String bootstrap) {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                60_000));
    }

    void createTopic(Admin admin, String topic) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                .all()
                .get(60, TimeUnit.SECONDS);
    }

    /**
     * Writes {@code records} records of {@code recordSize} bytes (no key, partition = sequence mod
     * partitions) and checks the log end offsets add up to them.
     */
    private void fill(Admin admin, String bootstrap, String topic, long records, int recordSize) throws Exception {
        long t0 = System.nanoTime();
        byte[] value = new byte[recordSize];
        new Random(42).nextBytes(value);
        AtomicLong failed = new AtomicLong();
        AtomicReference<Exception> firstFailure = new AtomicReference<>();
        try (var producer = new KafkaProducer<byte[], byte[]>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.ACKS_CONFIG,
                "1",
                ProducerConfig.LINGER_MS_CONFIG,
                20,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024,
                ProducerConfig.BUFFER_MEMORY_CONFIG,
                64L << 20,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class.getName()))) {
            for (long i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, (int) (i % partitions), null, value), (m, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                        firstFailure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " records failed to fill " + topic, firstFailure.get());
        }
        Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        long total = admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).values().stream()
                .mapToLong(info -> info.offset())
                .sum();
        if (total != records) {
            throw new IllegalStateException(topic + " holds " + total + " records, not " + records);
        }
        progress(
                "filled %s on %s: %d records of %d bytes in %.1f s",
                topic, bootstrap, records, recordSize, (System.nanoTime() - t0) / 1e9);
    }

    static void progress(String format, Object... args) {
        System.err.printf("[%tT] %s%n", System.currentTimeMillis(), format.formatted(args));
    }
}
