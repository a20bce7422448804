package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.BackgroundFailures;
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
     * @param environment extra variables for every {@code bin/tributary} command and so every
     *     process (e.g. {@code TRIBUTARY_JAVA_OPTS} with a longer session timeout)
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
            Workload.Config workload,
            Map<String, String> environment) {

        Settings {
            environment = Map.copyOf(environment);
        }

        Settings(
                String name,
                Fault fault,
                int kills,
                Duration warmup,
                Duration downtime,
                Duration between,
                Duration isrWait,
                int partitions,
                Workload.Config workload) {
            this(name, fault, kills, warmup, downtime, between, isrWait, partitions, workload, Map.of());
        }
    }

    /** What one round of the loop does. */
    enum Fault {
        /** SIGKILL of partition 0's leader ({@code bin/tributary kill}), then start it again. */
        LEADER_KILL(2),
        /**
         * A clean restart of partition 0's leader: SIGTERM ({@code bin/tributary stop}, so the
         * broker's controlled shutdown), then start. Counts the rounds in which the coordinator had
         * moved the leadership by the time the process had exited.
         */
        LEADER_RESTART(2),
        /** SIGKILL of every broker at once, then start them all again. */
        ALL_KILL(6),
        /**
         * SIGSTOP of partition 0's leader for {@code downtime} (longer than the session timeout) and
         * until the coordinator has elected another leader in a higher epoch, then SIGCONT: the
         * zombie comes back believing it leads and must acknowledge nothing.
         */
        LEADER_PAUSE(2),
        /**
         * SIGKILL of one of partition 0's followers, {@code downtime} of load without it, start it
         * (it comes back behind and catches up, truncating where it diverged), wait until it is
         * back in the ISR (bounded by {@code isrWait}), then SIGKILL the leader, {@code downtime},
         * start it.
         */
        FOLLOWER_THEN_LEADER_KILL(4),
        /**
         * Partition 0's leader cut off from the coordinator and the other brokers ({@link
         * NetworkLab#cut}) for {@code downtime} (longer than the session timeout) and until the
         * coordinator has elected another leader in a higher epoch (bounded by {@code isrWait}),
         * while the test's clients still reach it; then healed, and the round waits (bounded)
         * until it is back in the ISR. A zombie leader that acknowledged alone would be caught.
         * Needs the scenario's {@link NetworkLab}.
         */
        LEADER_CUT(2),
        /**
         * One of partition 0's followers cut off the same way until the coordinator's ISR no longer
         * has it (it must leave through AlterPartition or its fence; bounded by {@code isrWait}),
         * then healed; the round waits (bounded) until it has caught up and is back in the ISR.
         */
        FOLLOWER_CUT(2);

        /** FAULT operations one round records. */
        final int faultsPerRound;

        Fault(int faultsPerRound) {
            this.faultsPerRound = faultsPerRound;
        }
    }

    /**
     * Settings from system properties (as {@code bin/chaos -Dchaos.kills=5} passes them): {@code
     * chaos.kills}, {@code chaos.downtime.ms} (5000), {@code chaos.between.ms} (3000), {@code
     * chaos.partitions} (3), {@code chaos.producers} (3), {@code chaos.consumers} (2).
     */
    static Settings fromProperties(String name, Fault fault, int defaultRounds) {
        return fromProperties(name, fault, defaultRounds, Duration.ofSeconds(5));
    }

    /** {@link #fromProperties(String, Fault, int)} with another default for {@code chaos.downtime.ms}. */
    static Settings fromProperties(String name, Fault fault, int defaultRounds, Duration defaultDowntime) {
        return new Settings(
                name,
                fault,
                Integer.getInteger("chaos.kills", defaultRounds),
                Duration.ofSeconds(3),
                Duration.ofMillis(Long.getLong("chaos.downtime.ms", defaultDowntime.toMillis())),
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
    private HistoryWriter history;
    /** Rounds in which partition 0 had another leader, in a higher epoch, before the victim came back. */
    private int leaderMovedRounds;
    /** FOLLOWER_THEN_LEADER_KILL rounds in which the follower was back in the ISR before the leader's kill. */
    private int followerCaughtUpRounds;
    /** LEADER_CUT and FOLLOWER_CUT rounds in which the cut-off broker was out of the ISR before the heal. */
    private int leftIsrRounds;
    /** LEADER_CUT and FOLLOWER_CUT rounds in which the cut-off broker was back in the ISR after the heal. */
    private int rejoinedRounds;
    /** Where the processes run; null: all on 127.0.0.1 in this network namespace. */
    private final NetworkLab lab;

    LeaderKillScenario(Path work, Settings settings) {
        this(work, settings, null);
    }

    /** A scenario whose coordinator and brokers run in {@code lab}'s namespaces, on its addresses. */
    LeaderKillScenario(Path work, Settings settings, NetworkLab lab) {
        this.work = work;
        this.settings = settings;
        this.lab = lab;
        if ((settings.fault() == Fault.LEADER_CUT || settings.fault() == Fault.FOLLOWER_CUT) && lab == null) {
            throw new IllegalArgumentException(settings.fault() + " needs a NetworkLab");
        }
    }

    /** Runs the scenario; the cluster is always brought down. */
    Report run() throws Exception {
        List<Integer> ports = List.of(8080, 8081, 8082, 8083, 9092, 9093, 9094, 8091, 9191, 9291);
        // A busy 2-core machine can take over 2 minutes to start five JVMs (bin/tributary waits 120 s by
        // default; ScriptedCluster gives one command 4 minutes).
        var environment = new java.util.HashMap<String, String>(
                Map.of("TRIBUTARY_STOP_GRACE", "5", "TRIBUTARY_READY_TIMEOUT", "200"));
        environment.putAll(settings.environment());
        if (lab != null) {
            environment.putAll(lab.environment());
        }
        cluster = ProcessCluster.create(work, settings.name(), ports, environment);
        Path historyFile = cluster.logsDir().resolve("history.jsonl");
        try (var history = new HistoryWriter(historyFile)) {
            this.history = history;
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
            String bootstrap = "%s:%d,%s:%d,%s:%d"
                    .formatted(
                            host("broker-0"),
                            9092 + offset(),
                            host("broker-1"),
                            9093 + offset(),
                            host("broker-2"),
                            9094 + offset());
            createTopic(bootstrap);
            PartitionView initial = awaitWholeIsr(0, Duration.ofSeconds(60))
                    .orElseThrow(() -> new AssertionError("partition 0 never had a whole ISR"));

            // The workload's producers and consumers and the observer report their failures here;
            // checked after every round (the run stops at the first) and after the workload stopped.
            var background = new BackgroundFailures();
            BackgroundFailures.Task observer =
                    background.startUntilStopped("chaos-nemesis-observer", task -> observe(history, task));
            var workload =
                    new Workload(bootstrap, TOPIC, settings.partitions(), settings.workload(), history, background);
            long started = System.nanoTime();
            long loadSeconds;
            try {
                workload.start();
                Thread.sleep(settings.warmup());
                for (int kill = 1; kill <= settings.kills(); kill++) {
                    background.check();
                    Optional<PartitionView> whole = awaitWholeIsr(0, settings.isrWait());
                    PartitionView before = whole.or(() -> view().stream()
                                    .filter(p -> p.partition() == 0)
                                    .findFirst())
                            .orElseThrow();
                    if (whole.isEmpty()) {
                        log.warn(
                                "kill {}: partition 0's ISR is {}, not whole; killing its leader anyway",
                                kill,
                                before.isr());
                    }
                    log.info(
                            "round {}/{}: {} (partition 0's leader {} in epoch {}, ISR {})",
                            kill,
                            settings.kills(),
                            settings.fault(),
                            before.leader(),
                            before.leaderEpoch(),
                            before.isr());
                    round(before);
                    Thread.sleep(settings.between());
                }
                workload.stop();
                loadSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
            } finally {
                workload.stop(); // at once when a round failed, before the cluster goes down
                observer.stopNow(Duration.ofSeconds(5));
            }
            background.check();
            workload.finalRead(Duration.ofMinutes(2));

            Report report = HistoryChecker.check(HistoryReader.read(historyFile));
            int lastEpoch = view().stream()
                    .filter(p -> p.partition() == 0)
                    .mapToInt(PartitionView::leaderEpoch)
                    .findFirst()
                    .orElse(-1);
            String figures = ("scenario %s: %d rounds of %s, %d ms down each, %d s of load, partition 0 leader"
                            + " epoch %d -> %d; leadership moved before the victim was back in %d rounds;"
                            + " follower back in the ISR before the leader's kill in %d rounds;"
                            + " follower truncations logged by the brokers: %d%s%n%s%n")
                    .formatted(
                            settings.name(),
                            settings.kills(),
                            settings.fault(),
                            settings.downtime().toMillis(),
                            loadSeconds,
                            initial.leaderEpoch(),
                            lastEpoch,
                            leaderMovedRounds,
                            followerCaughtUpRounds,
                            truncations(),
                            lab == null
                                    ? ""
                                    : "; the cut-off broker out of the ISR before the heal in %d rounds, back in it after in %d"
                                            .formatted(leftIsrRounds, rejoinedRounds),
                            report.summary());
            Files.writeString(cluster.logsDir().resolve("report.txt"), figures);
            System.out.println(figures);
            log.info("{}", figures);
            for (int i = 0; i < settings.workload().producers(); i++) {
                assertThat(report.acknowledgedBy().getOrDefault("p" + i, 0))
                        .as("writes acknowledged to producer p%d (%s)", i, report.summary())
                        .isPositive();
            }
            for (int i = 0; i < settings.workload().consumers(); i++) {
                assertThat(report.readBy().getOrDefault("c" + i, 0))
                        .as("records consumer c%d read during the run (%s)", i, report.summary())
                        .isPositive();
            }
            if (settings.fault() != Fault.FOLLOWER_CUT) {
                // A follower's fault moves the partition epoch (the ISR), not the leader epoch.
                assertThat(lastEpoch)
                        .as("partition 0's leader epoch after the kills")
                        .isGreaterThan(initial.leaderEpoch());
            }
            return report;
        } finally {
            cluster.downAndKillLeftovers();
        }
    }

    /** Rounds in which partition 0 had another leader in a higher epoch before the victim came back. */
    int leaderMovedRounds() {
        return leaderMovedRounds;
    }

    /** FOLLOWER_THEN_LEADER_KILL rounds whose follower was back in the ISR before the leader's kill. */
    int followerCaughtUpRounds() {
        return followerCaughtUpRounds;
    }

    /** LEADER_CUT and FOLLOWER_CUT rounds whose cut-off broker was out of the ISR before the heal. */
    int leftIsrRounds() {
        return leftIsrRounds;
    }

    /** LEADER_CUT and FOLLOWER_CUT rounds whose cut-off broker was back in the ISR after the heal. */
    int rejoinedRounds() {
        return rejoinedRounds;
    }

    /** One round of the fault; {@code before} is partition 0 just before it. */
    private void round(PartitionView before) throws InterruptedException {
        String leader = "broker-" + before.leader();
        switch (settings.fault()) {
            case LEADER_KILL -> {
                act("kill", leader, before.leaderEpoch());
                Thread.sleep(settings.downtime());
                noteLeaderMoved(before);
                act("start", leader, -1);
            }
            case LEADER_RESTART -> {
                act("stop", leader, before.leaderEpoch());
                // Read once, as soon as the process has exited: with the controlled shutdown the
                // coordinator has moved the leadership already (before the session timeout).
                noteLeaderMoved(before);
                Thread.sleep(settings.downtime());
                act("start", leader, -1);
            }
            case ALL_KILL -> {
                List<String> all = List.of("broker-0", "broker-1", "broker-2");
                for (String victim : all) {
                    act("kill", victim, before.leaderEpoch());
                }
                Thread.sleep(settings.downtime());
                for (String victim : all) {
                    act("start", victim, -1);
                }
            }
            case LEADER_PAUSE -> {
                act("pause", leader, before.leaderEpoch());
                try {
                    Thread.sleep(settings.downtime());
                    // The zombie stays paused until the coordinator has fenced it and elected
                    // another leader (bounded), so that every round tests a deposed leader.
                    awaitView(settings.isrWait(), () -> moved(before));
                    noteLeaderMoved(before);
                } finally {
                    act("resume", leader, -1);
                }
            }
            case LEADER_CUT -> {
                act("cut", leader, before.leaderEpoch());
                try {
                    Thread.sleep(settings.downtime());
                    // Cut off until the coordinator has fenced it and elected another leader
                    // (bounded), so that every round tests a deposed leader its clients still reach.
                    awaitView(settings.isrWait(), () -> moved(before));
                    noteLeaderMoved(before);
                    noteLeftIsr(before.leader());
                } finally {
                    act("heal", leader, -1);
                }
                noteRejoined(before.leader());
            }
            case FOLLOWER_CUT -> {
                int followerId = follower(before);
                String follower = "broker-" + followerId;
                act("cut", follower, before.leaderEpoch());
                try {
                    Thread.sleep(settings.downtime());
                    awaitView(settings.isrWait(), () -> outOfIsr(followerId));
                    noteLeftIsr(followerId);
                } finally {
                    act("heal", follower, -1);
                }
                noteRejoined(followerId);
            }
            case FOLLOWER_THEN_LEADER_KILL -> {
                String follower = "broker-" + follower(before);
                act("kill", follower, before.leaderEpoch());
                Thread.sleep(settings.downtime());
                act("start", follower, -1);
                Optional<PartitionView> whole = awaitWholeIsr(0, settings.isrWait());
                if (whole.isPresent()) {
                    followerCaughtUpRounds++;
                } else {
                    log.warn("{} is not back in partition 0's ISR; killing the leader anyway", follower);
                }
                PartitionView now = whole.or(() ->
                                view().stream().filter(p -> p.partition() == 0).findFirst())
                        .orElseThrow();
                String currentLeader = "broker-" + now.leader();
                act("kill", currentLeader, now.leaderEpoch());
                Thread.sleep(settings.downtime());
                noteLeaderMoved(now);
                act("start", currentLeader, -1);
            }
        }
    }

    /** The last ISR member of partition 0 other than its leader. */
    private static int follower(PartitionView before) {
        return before.isr().stream()
                .filter(r -> r != before.leader())
                .reduce((first, second) -> second)
                .orElse((before.leader() + 1) % 3);
    }

    /** Polls the coordinator's view until {@code condition} holds or {@code timeout} passes. */
    private static void awaitView(Duration timeout, java.util.function.BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
    }

    private boolean outOfIsr(int broker) {
        return view().stream().anyMatch(p -> p.partition() == 0 && !p.isr().contains(broker));
    }

    private void noteLeftIsr(int broker) {
        if (outOfIsr(broker)) {
            leftIsrRounds++;
        } else {
            log.warn("broker {} is still in partition 0's ISR at the heal", broker);
        }
    }

    /** After a heal: waits (bounded) for a whole ISR again and counts the round if it came. */
    private void noteRejoined(int broker) throws InterruptedException {
        if (awaitWholeIsr(0, settings.isrWait()).isPresent()) {
            rejoinedRounds++;
        } else {
            log.warn("broker {} is not back in partition 0's ISR {} after the heal", broker, settings.isrWait());
        }
    }

    /**
     * One fault action, recorded as a {@code FAULT} operation first: a {@code bin/tributary}
     * command ({@code kill}, {@code stop}, {@code start}), {@code pause} / {@code resume}
     * (SIGSTOP / SIGCONT by PID), or {@code cut} / {@code heal} ({@link NetworkLab}).
     */
    private void act(String action, String victim, int epoch) {
        history.append(Operation.ok("nemesis", Type.FAULT, 0, -1, action + " " + victim, epoch, history.now()));
        switch (action) {
            case "pause" -> cluster.signal(victim, "STOP");
            case "resume" -> cluster.signal(victim, "CONT");
            case "cut" -> lab.cut(victim);
            case "heal" -> lab.heal();
            default -> {
                var result = cluster.run(action, victim);
                assertThat(result.exitCode()).as(result.output()).isZero();
            }
        }
    }

    private boolean moved(PartitionView before) {
        return view().stream()
                .anyMatch(p -> p.partition() == 0
                        && p.leader() >= 0
                        && p.leader() != before.leader()
                        && p.leaderEpoch() > before.leaderEpoch());
    }

    private void noteLeaderMoved(PartitionView before) {
        if (moved(before)) {
            leaderMovedRounds++;
        } else {
            log.info("partition 0's leadership has not moved from broker {} yet", before.leader());
        }
    }

    /** Lines in which a broker logged a follower's truncation. */
    private long truncations() {
        long count = 0;
        for (int b = 0; b < 3; b++) {
            for (String suffix : List.of(".log", ".log.1")) {
                Path file = cluster.logsDir().resolve("broker-" + b + suffix);
                if (Files.isRegularFile(file)) {
                    try (var lines = Files.lines(file, java.nio.charset.StandardCharsets.ISO_8859_1)) {
                        count += lines.filter(l -> l.contains(": truncating to "))
                                .count();
                    } catch (IOException | java.io.UncheckedIOException e) {
                        log.warn("could not read {}", file, e);
                    }
                }
            }
        }
        return count;
    }

    private int offset() {
        return cluster.portOffset();
    }

    /** The address {@code process} listens on. */
    private String host(String process) {
        return lab == null ? "127.0.0.1" : lab.address(process);
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
        var request = HttpRequest.newBuilder(URI.create(
                        "http://%s:%d/internal/v1/topics/%s".formatted(host("coordinator-0"), 8091 + offset(), TOPIC)))
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

    private void observe(HistoryWriter history, BackgroundFailures.Task task) {
        Map<Integer, String> last = new java.util.HashMap<>();
        while (!task.stopRequested()) {
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
