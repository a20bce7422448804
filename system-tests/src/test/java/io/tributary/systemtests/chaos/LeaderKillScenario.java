package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.ProcessCluster;
import io.tributary.systemtests.chaos.HistoryChecker.Report;
import io.tributary.systemtests.chaos.Operation.Type;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault-loop scenarios, "SIGKILL of the partition leader in a loop" first: a {@code
 * bin/tributary} cluster of 3 brokers and 1 coordinator, a topic with replication factor 3 and
 * {@code min.insync.replicas=2}, the {@link Workload} running, and {@code kills} times: wait until
 * partition 0's ISR is whole again (bounded), apply the {@link Fault} (SIGKILL its leader with
 * {@code bin/tributary kill}; or stop it cleanly; or SIGKILL every broker), wait {@code downtime},
 * start the victims again, let the load run {@code between}. Then the final read, the {@link HistoryChecker}, and
 * the figures. A nemesis thread records every (leader, epoch) the coordinator reports for each
 * partition ({@code GET /internal/v1/topics/{topic}}) as {@link Type#LEADER} observations.
 *
 * <p>The history, the report and the processes' logs stay in {@code target/<name>/}.
 */
final class LeaderKillScenario {

    private static final Logger log = LoggerFactory.getLogger(LeaderKillScenario.class);
    private static final String TOPIC = "chaos";
    private static final Pattern PARTITION = Pattern.compile("\\{\"partition\":\\s*(\\d+)[^{}]*}");
    private static final Pattern LEADER = Pattern.compile("\"leader\":\\s*(-?\\d+)");
    private static final Pattern LEADER_EPOCH = Pattern.compile("\"leaderEpoch\":\\s*(-?\\d+)");
    private static final Pattern ISR = Pattern.compile("\"isr\":\\s*\\[([^\\]]*)]");

    /**
     * The scenario's settings.
     *
     * @param name the directory under target/ for logs, history and report
     * @param kills leader kills
     * @param warmup load before the first kill
     * @param downtime how long a killed leader stays down
     * @param between load after a restart (after the ISR is whole again) before the next kill
     * @param isrWait how long to wait for a whole ISR before a kill (then it kills anyway)
     * @param partitions the topic's partitions
     */
    record Settings(
            String name,
            Fault fault,
            int kills,
            Duration warmup,
            Duration downtime,
            Duration between,
            Duration isrWait,
            int partitions,
            Workload.Config workload) {}

    /** What one round of the loop does. */
    enum Fault {
        /** SIGKILL of partition 0's leader ({@code bin/tributary kill}), then start it again. */
        LEADER_KILL("kill", false),
        /** A clean restart of partition 0's leader: SIGTERM ({@code bin/tributary stop}), start. */
        LEADER_RESTART("stop", false),
        /** SIGKILL of every broker at once, then start them all again. */
        ALL_KILL("kill", true);

        final String command;
        final boolean allBrokers;

        Fault(String command, boolean allBrokers) {
            this.command = command;
            this.allBrokers = allBrokers;
        }
    }

    /**
     * Settings from system properties (as {@code bin/chaos -Dchaos.kills=5} passes them): {@code
     * chaos.kills}, {@code chaos.downtime.ms} (5000), {@code chaos.between.ms} (3000), {@code
     * chaos.partitions} (3), {@code chaos.producers} (3), {@code chaos.consumers} (2).
     */
    static Settings fromProperties(String name, Fault fault, int defaultRounds) {
        return new Settings(
                name,
                fault,
                Integer.getInteger("chaos.kills", defaultRounds),
                Duration.ofSeconds(3),
                Duration.ofMillis(Long.getLong("chaos.downtime.ms", 5000)),
                Duration.ofMillis(Long.getLong("chaos.between.ms", 3000)),
                Duration.ofSeconds(60),
                Integer.getInteger("chaos.partitions", 3),
                new Workload.Config(
                        Integer.getInteger("chaos.producers", 3),
                        Integer.getInteger("chaos.consumers", 2),
                        20,
                        Duration.ofMillis(5),
                        Duration.ofSeconds(60)));
    }

    /** One partition as the coordinator reports it. */
    record PartitionView(int partition, int leader, int leaderEpoch, List<Integer> isr) {}

    private final Path work;
    private final Settings settings;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private ProcessCluster cluster;

    LeaderKillScenario(Path work, Settings settings) {
        this.work = work;
        this.settings = settings;
    }

    /** Runs the scenario; the cluster is always brought down. */
    Report run() throws Exception {
        List<Integer> ports = List.of(8080, 8081, 8082, 8083, 9092, 9093, 9094, 8091, 9191, 9291);
        cluster = ProcessCluster.create(work, settings.name(), ports, Map.of("TRIBUTARY_STOP_GRACE", "5"));
        Path historyFile = cluster.logsDir().resolve("history.jsonl");
        try (var history = new HistoryWriter(historyFile)) {
            var up = cluster.run(
                    "up",
                    "--brokers",
                    "3",
                    "--coordinators",
                    "1",
                    "--data",
                    work.resolve("data").toString(),
                    "--logs",
                    cluster.logsDir().toString());
            assertThat(up.exitCode()).as(up.output()).isZero();
            String bootstrap = "127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d"
                    .formatted(9092 + offset(), 9093 + offset(), 9094 + offset());
            createTopic(bootstrap);
            PartitionView initial = awaitWholeIsr(0, Duration.ofSeconds(60))
                    .orElseThrow(() -> new AssertionError("partition 0 never had a whole ISR"));

            var observing = new AtomicBoolean(true);
            Thread observer =
                    Thread.ofPlatform().name("chaos-nemesis-observer").start(() -> observe(history, observing));
            var workload = new Workload(bootstrap, TOPIC, settings.partitions(), settings.workload(), history);
            workload.start();
            long started = System.nanoTime();
            Thread.sleep(settings.warmup());
            for (int kill = 1; kill <= settings.kills(); kill++) {
                Optional<PartitionView> whole = awaitWholeIsr(0, settings.isrWait());
                PartitionView before = whole.or(() ->
                                view().stream().filter(p -> p.partition() == 0).findFirst())
                        .orElseThrow();
                if (whole.isEmpty()) {
                    log.warn(
                            "kill {}: partition 0's ISR is {}, not whole; killing its leader anyway",
                            kill,
                            before.isr());
                }
                List<String> victims = settings.fault().allBrokers
                        ? List.of("broker-0", "broker-1", "broker-2")
                        : List.of("broker-" + before.leader());
                log.info(
                        "round {}/{}: {} {} (partition 0's leader {} in epoch {})",
                        kill,
                        settings.kills(),
                        settings.fault().command,
                        victims,
                        before.leader(),
                        before.leaderEpoch());
                for (String victim : victims) {
                    history.append(Operation.ok(
                            "nemesis",
                            Type.FAULT,
                            0,
                            -1,
                            settings.fault().command + " " + victim,
                            before.leaderEpoch(),
                            history.now()));
                    var faulted = cluster.run(settings.fault().command, victim);
                    assertThat(faulted.exitCode()).as(faulted.output()).isZero();
                }
                Thread.sleep(settings.downtime());
                for (String victim : victims) {
                    var restarted = cluster.run("start", victim);
                    assertThat(restarted.exitCode()).as(restarted.output()).isZero();
                    history.append(Operation.ok("nemesis", Type.FAULT, 0, -1, "start " + victim, -1, history.now()));
                }
                Thread.sleep(settings.between());
            }
            workload.stop();
            long loadSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
            observing.set(false);
            observer.join(5_000);
            workload.finalRead(Duration.ofMinutes(2));

            Report report = HistoryChecker.check(HistoryReader.read(historyFile));
            int lastEpoch = view().stream()
                    .filter(p -> p.partition() == 0)
                    .mapToInt(PartitionView::leaderEpoch)
                    .findFirst()
                    .orElse(-1);
            String figures =
                    "scenario %s: %d rounds of %s, %d ms down each, %d s of load, partition 0 leader epoch %d -> %d%n%s%n"
                            .formatted(
                                    settings.name(),
                                    settings.kills(),
                                    settings.fault(),
                                    settings.downtime().toMillis(),
                                    loadSeconds,
                                    initial.leaderEpoch(),
                                    lastEpoch,
                                    report.summary());
            Files.writeString(cluster.logsDir().resolve("report.txt"), figures);
            System.out.println(figures);
            log.info("{}", figures);
            assertThat(lastEpoch)
                    .as("partition 0's leader epoch after the kills")
                    .isGreaterThan(initial.leaderEpoch());
            return report;
        } finally {
            cluster.downAndKillLeftovers();
        }
    }

    private int offset() {
        return cluster.portOffset();
    }

    private void createTopic(String bootstrap) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                10_000))) {
            while (true) {
                try {
                    admin.createTopics(List.of(new NewTopic(TOPIC, settings.partitions(), (short) 3)
                                    .configs(Map.of("min.insync.replicas", "2"))))
                            .all()
                            .get(30, TimeUnit.SECONDS);
                    return;
                } catch (Exception e) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("could not create the topic", e);
                    }
                    log.info("creating the topic: {}; again", e.toString());
                    Thread.sleep(1000);
                }
            }
        }
    }

    /** Partition {@code partition} once its ISR has all 3 replicas and it has a leader. */
    private Optional<PartitionView> awaitWholeIsr(int partition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        do {
            for (PartitionView view : view()) {
                if (view.partition() == partition
                        && view.leader() >= 0
                        && view.isr().size() == 3) {
                    return Optional.of(view);
                }
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        return Optional.empty();
    }

    /** The coordinator's view of the topic's partitions; empty when it does not answer. */
    List<PartitionView> view() {
        var request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:%d/internal/v1/topics/%s".formatted(8091 + offset(), TOPIC)))
                .timeout(Duration.ofSeconds(5))
                .GET()
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return List.of();
            }
            return parse(response.body());
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    static List<PartitionView> parse(String body) {
        List<PartitionView> views = new ArrayList<>();
        Matcher partition = PARTITION.matcher(body);
        while (partition.find()) {
            String object = partition.group();
            Matcher leader = LEADER.matcher(object);
            Matcher epoch = LEADER_EPOCH.matcher(object);
            Matcher isr = ISR.matcher(object);
            if (leader.find() && epoch.find() && isr.find()) {
                List<Integer> members = isr.group(1).isBlank()
                        ? List.of()
                        : java.util.Arrays.stream(isr.group(1).split(","))
                                .map(String::strip)
                                .map(Integer::valueOf)
                                .collect(Collectors.toList());
                views.add(new PartitionView(
                        Integer.parseInt(partition.group(1)),
                        Integer.parseInt(leader.group(1)),
                        Integer.parseInt(epoch.group(1)),
                        members));
            }
        }
        return views;
    }

    private void observe(HistoryWriter history, AtomicBoolean observing) {
        Map<Integer, String> last = new java.util.HashMap<>();
        while (observing.get()) {
            for (PartitionView view : view()) {
                String seen = view.leader() + "/" + view.leaderEpoch();
                if (!seen.equals(last.put(view.partition(), seen)) && view.leader() >= 0) {
                    history.append(Operation.ok(
                            "nemesis",
                            Type.LEADER,
                            view.partition(),
                            -1,
                            Integer.toString(view.leader()),
                            view.leaderEpoch(),
                            history.now()));
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
