package io.tributary.systemtests.bench;

import io.tributary.systemtests.bench.BenchGroup.BenchFailure;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@link GroupBench}'s {@code --phase=failover}: a Tributary cluster of three coordinators ({@code
 * bin/tributary up --coordinators 3}), a classic group of three members ({@code range}, each
 * {@code commitSync}ing what every poll returned) consuming what a producer in this JVM writes at
 * {@code --failover-rate} records per second; once the group is settled and {@code
 * --failover-baseline-s} of steady consumption has passed, the coordinators' Raft leader (the group
 * coordinator, found from each voter's {@code /actuator/health/metadataRaft}) is SIGKILLed. Then,
 * per round (a new group each round; the killed coordinator is started again with {@code
 * bin/tributary start} between rounds): the producer goes on for {@code --failover-observe-s}
 * after the kill and stops, the members catch up; the longest gap between two deliveries of a
 * member whose later one came after the kill ({@code max_gap_ms} over the members, {@code
 * min_gap_ms} the shortest member's), the same before the kill ({@code
 * baseline_gap_ms}), when a surviving voter said it leads ({@code new_leader_ms}), the callbacks
 * (assignments, revocations, losses) and JoinGroups answered after the kill (both 0 when the group
 * survived the failover without a rebalance), the commits that failed after it, and once the
 * producer stopped and the members caught up, the records delivered more than once ({@code
 * redelivered}) and never ({@code skipped}).
 *
 * <p>{@code --coordinators-http} lists the voters' HTTP addresses in id order; {@code --tributary}
 * is the {@code bin/tributary} to call (with the cluster's {@code TRIBUTARY_STATE} and port offset
 * in this JVM's environment), for the coordinators' PIDs ({@code status}) and the restart.
 */
final class CoordinatorFailoverBench {

    private static final Pattern ROLE = Pattern.compile("\"role\":\"(\\w+)\"");
    private static final Pattern LEADER = Pattern.compile("\"leader\":\"c(\\d)\"");
    private static final Duration LEAVE_PATIENCE = Duration.ofSeconds(15);

    private final GroupBench bench;
    private final String bootstrap;
    private final List<String> voters;
    private final String tributary;
    private final int rounds;
    private final int rate;
    private final Duration observe;
    private final Duration baseline;
    private final Path md;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofMillis(500))
            .build();

    CoordinatorFailoverBench(GroupBench bench, Map<String, String> o) {
        this.bench = bench;
        bootstrap = GroupBench.required(o, "bootstrap");
        voters = List.of(GroupBench.required(o, "coordinators-http").split(","));
        tributary = GroupBench.required(o, "tributary");
        rounds = Integer.parseInt(o.getOrDefault("failover-rounds", "3"));
        rate = Integer.parseInt(o.getOrDefault("failover-rate", "500"));
        observe = Duration.ofSeconds(Long.parseLong(o.getOrDefault("failover-observe-s", "15")));
        baseline = Duration.ofSeconds(Long.parseLong(o.getOrDefault("failover-baseline-s", "5")));
        md = Path.of(GroupBench.required(o, "md"));
    }

    void run() throws Exception {
        for (int round = 1; round <= rounds; round++) {
            // A topic per round: what a round counts as produced is all its group can read.
            String topic = "bench-groups-failover-r" + round;
            try (Admin admin = GroupBench.admin(bootstrap)) {
                bench.createTopic(admin, topic);
            }
            round(topic, round);
        }
        writeTable();
    }

    private void round(String topic, int round) throws Exception {
        String groupId = "bench-failover-r%d-%d".formatted(round, System.currentTimeMillis());
        var row = GroupBenchResults.row("failover-range", "tributary", round);
        GroupBench.progress("failover round %d: group %s, %d records/s", round, groupId, rate);
        List<String> names = List.of("m1", "m2", "m3");
        int killedVoter = -1;
        try (BenchGroup group = bench.group(bootstrap, groupId, topic, "range", false, true);
                RateProducer producer = new RateProducer(bootstrap, topic, bench.partitions(), rate)) {
            long started = System.nanoTime();
            for (String name : names) {
                group.start(name);
            }
            group.awaitSettled(names, started, Duration.ofSeconds(90));
            TimeUnit.MILLISECONDS.sleep(baseline.toMillis());

            killedVoter = awaitLeader(Duration.ofSeconds(30));
            ProcessHandle process = coordinatorProcess(killedVoter);
            long killed = System.nanoTime();
            process.destroyForcibly();
            group.timeline.add(GroupTimeline.BENCH, "K " + killed);
            long elected = awaitNewLeader(killedVoter, Duration.ofSeconds(60));
            group.timeline.add(GroupTimeline.BENCH, "N " + elected);
            TimeUnit.NANOSECONDS.sleep(Math.max(0, killed + observe.toNanos() - System.nanoTime()));

            long produced = producer.stop();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (group.timeline.deliveredOnce() < produced && System.nanoTime() < deadline) {
                group.check(names);
                TimeUnit.MILLISECONDS.sleep(50);
            }
            long maxGap = 0;
            long minGap = Long.MAX_VALUE;
            long baselineGap = 0;
            for (String name : names) {
                // Every gap that ended after the kill, however late: the producer stopped, and the
                // member caught up, so a stall longer than the observation still ends in a delivery.
                if (group.timeline.lastDelivery(name).orElse(Long.MIN_VALUE) <= killed) {
                    throw new BenchFailure(name + " delivered nothing after the kill");
                }
                long gap = group.timeline.longestGap(name, killed, Long.MAX_VALUE);
                maxGap = Math.max(maxGap, gap);
                minGap = Math.min(minGap, gap);
                baselineGap =
                        Math.max(baselineGap, group.timeline.longestGap(name, killed - baseline.toNanos(), killed));
            }
            long once = group.timeline.deliveredOnce();
            GroupBenchResults.put(row, "members", names.size());
            GroupBenchResults.put(row, "records", once);
            GroupBenchResults.put(row, "max_gap_ms", maxGap / 1e6, 1);
            GroupBenchResults.put(row, "min_gap_ms", minGap / 1e6, 1);
            GroupBenchResults.put(row, "baseline_gap_ms", baselineGap / 1e6, 1);
            GroupBenchResults.put(row, "new_leader_ms", (elected - killed) / 1e6, 1);
            GroupBenchResults.put(row, "callbacks_after", group.timeline.countAfter(killed, "ARL"));
            GroupBenchResults.put(row, "joins_after", group.timeline.countAfter(killed, "J"));
            GroupBenchResults.put(row, "commit_failures", group.timeline.countAfter(killed, "F"));
            GroupBenchResults.put(row, "redelivered", group.timeline.delivered() - once);
            GroupBenchResults.put(row, "skipped", produced - once);
            bench.results().write(row);
            GroupBench.progress(
                    "  longest gap %s ms (before the kill %s ms), new leader after %s ms, callbacks %s, joins %s,"
                            + " failed commits %s, redelivered %s, skipped %s",
                    row.get("max_gap_ms"),
                    row.get("baseline_gap_ms"),
                    row.get("new_leader_ms"),
                    row.get("callbacks_after"),
                    row.get("joins_after"),
                    row.get("commit_failures"),
                    row.get("redelivered"),
                    row.get("skipped"));
            group.leaveAll(LEAVE_PATIENCE);
        } catch (BenchFailure e) {
            GroupBench.progress("  failed: %s", e.getMessage());
            row.put("error", e.getMessage());
            bench.results().write(row);
        } finally {
            if (killedVoter >= 0 && round < rounds) {
                restart(killedVoter);
            }
        }
    }

    /** The voter every reachable voter names as leader and which says it leads. */
    private int awaitLeader(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<Integer> agreed = Optional.empty();
            boolean disagree = false;
            for (int i = 0; i < voters.size(); i++) {
                Optional<Integer> leader = health(i).flatMap(CoordinatorFailoverBench::leaderOf);
                if (leader.isEmpty() || (agreed.isPresent() && !agreed.equals(leader))) {
                    disagree = true;
                    break;
                }
                agreed = leader;
            }
            if (!disagree && agreed.isPresent()) {
                int leader = agreed.get();
                if (health(leader)
                        .flatMap(CoordinatorFailoverBench::roleOf)
                        .filter("LEADER"::equals)
                        .isPresent()) {
                    return leader;
                }
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new BenchFailure("the coordinators did not agree on a leader within " + timeout);
    }

    /** When a voter other than {@code killed} first said it leads. */
    private long awaitNewLeader(int killed, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < voters.size(); i++) {
                if (i != killed
                        && health(i)
                                .flatMap(CoordinatorFailoverBench::roleOf)
                                .filter("LEADER"::equals)
                                .isPresent()) {
                    return System.nanoTime();
                }
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        throw new BenchFailure("no coordinator led within " + timeout + " of the kill");
    }

    private Optional<String> health(int voter) {
        var request = HttpRequest.newBuilder(
                        URI.create("http://" + voters.get(voter) + "/actuator/health/metadataRaft"))
                .timeout(Duration.ofSeconds(1))
                .build();
        try {
            return Optional.of(
                    http.send(request, HttpResponse.BodyHandlers.ofString()).body());
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static Optional<Integer> leaderOf(String body) {
        Matcher m = LEADER.matcher(body);
        return m.find() ? Optional.of(Integer.valueOf(m.group(1))) : Optional.empty();
    }

    private static Optional<String> roleOf(String body) {
        Matcher m = ROLE.matcher(body);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /**
     * The process of coordinator {@code voter}: its PID from {@code bin/tributary status}, checked
     * against its command line (the coordinator's jar and id) before anything signals it.
     */
    private ProcessHandle coordinatorProcess(int voter) throws IOException, InterruptedException {
        String name = "coordinator-" + voter;
        String status = tributary("status");
        for (String line : status.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 1 && f[0].equals(name) && f[1].matches("\\d+")) {
                ProcessHandle process = ProcessHandle.of(Long.parseLong(f[1]))
                        .orElseThrow(() -> new BenchFailure(name + " (pid " + f[1] + ") is not running"));
                String command = String.join(" ", process.info().arguments().orElse(new String[0]));
                if (!command.contains("tributary-coordinator.jar")
                        || !command.contains("--tributary.coordinator.id=" + voter)) {
                    throw new BenchFailure("pid " + f[1] + " is not " + name + ": " + command);
                }
                return process;
            }
        }
        throw new BenchFailure("bin/tributary status names no " + name + ":\n" + status);
    }

    private void restart(int voter) throws IOException, InterruptedException {
        GroupBench.progress("  starting coordinator-%d again", voter);
        tributary("start", "coordinator-" + voter);
    }

    private String tributary(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(tributary));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        return output;
    }

    private void writeTable() throws IOException {
        GroupBenchResults r = bench.results();
        String c = "failover-range";
        var t = new StringBuilder();
        t.append("### Classic group across a coordinator failover (Tributary, 3 coordinators)\n\n");
        t.append("| figure | median | each round |\n|---|---|---|\n");
        for (String[] f : new String[][] {
            {"max_gap_ms", "longest gap in a member's deliveries after the kill, ms (the member with the longest)"},
            {"min_gap_ms", "the same, the member with the shortest, ms"},
            {"baseline_gap_ms", "longest gap in the " + baseline.toSeconds() + " s before the kill, ms"},
            {"new_leader_ms", "a surviving coordinator leads, ms after the kill"},
            {"callbacks_after", "rebalance callbacks after the kill"},
            {"joins_after", "JoinGroups answered after the kill"},
            {"commit_failures", "commitSync failures after the kill"},
            {"redelivered", "records delivered twice"},
            {"skipped", "records never delivered"}
        }) {
            t.append("| %s | %s | %s |\n"
                    .formatted(f[1], r.medianText(c, "tributary", f[0], 1), r.valuesText(c, "tributary", f[0])));
        }
        t.append("\n%d round(s); %d records/s produced; %d partitions; range assignor, commitSync after every poll.\n\n"
                .formatted(rounds, rate, bench.partitions()));
        Files.writeString(md, t.toString(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        System.out.print(t);
    }

    /**
     * Writes records of 100 bytes at a steady rate (every 10 ms its share), partition = sequence
     * mod partitions, idempotent and acks=all (the producer's defaults), until {@link #stop}.
     */
    private static final class RateProducer implements AutoCloseable {
        private final KafkaProducer<byte[], byte[]> producer;
        private final AtomicLong acknowledged = new AtomicLong();
        private final AtomicLong failed = new AtomicLong();
        private final Thread thread;
        private volatile boolean stopping;

        RateProducer(String bootstrap, String topic, int partitions, int perSecond) {
            producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()));
            byte[] value = new byte[100];
            thread = Thread.ofPlatform().daemon().name("rate-producer").start(() -> {
                long sent = 0;
                long t0 = System.nanoTime();
                while (!stopping) {
                    long due = (System.nanoTime() - t0) * perSecond / 1_000_000_000L;
                    for (; sent < due; sent++) {
                        producer.send(new ProducerRecord<>(topic, (int) (sent % partitions), null, value), (m, e) -> {
                            (e == null ? acknowledged : failed).incrementAndGet();
                        });
                    }
                    try {
                        TimeUnit.MILLISECONDS.sleep(10);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        /** Stops sending, waits for the acknowledgements; returns how many records were written. */
        long stop() throws InterruptedException {
            stopping = true;
            thread.join();
            producer.flush();
            if (failed.get() > 0) {
                throw new BenchFailure(failed.get() + " records could not be written");
            }
            return acknowledged.get();
        }

        @Override
        public void close() {
            stopping = true;
            producer.close(Duration.ofSeconds(10));
        }
    }
}
