package io.tributary.coordinator.group.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.SimulationCoverage;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A seeded simulation of one streams group: up to six members in three processes join, heartbeat,
 * apply what they are told late (slow revocation), leave, crash and come back, while the input
 * topic grows and the standby count is 0 to 2. The judge is the test's own model of each client:
 * what it owns is what the coordinator's answers told it, applied when the simulated client gets
 * to it, and nothing once it crashed, left or was fenced. After every event:
 *
 * <ul>
 *   <li>{@code SingleActiveOwner}: no task is active on two live clients at once;
 *   <li>{@code NoStandbyBesideActive}: no process holds a task both active and standby;
 *   <li>the coordinator's own {@code checkInvariants()}.
 * </ul>
 *
 * After the last event every live client heartbeats until the group settles: then every task is
 * active on exactly one live client, and the group is {@code Stable}. A failure names its seed and
 * step.
 */
class StreamsGroupSimulationTest {

    static LongStream seeds() {
        return LongStream.range(0, 150);
    }

    static final SimulationCoverage COVERAGE = new SimulationCoverage("StreamsGroupSimulationTest", seeds().count())
            .require("joins", 3000)
            .require("slow applications", 2000)
            .require("revocations acknowledged", 1200)
            .require("tasks moved between clients", 7000)
            .require("crashes", 1500)
            .require("leaves", 1000)
            .require("fenced or unknown", 200)
            .require("topic grown", 400)
            .require("pauses", 500)
            .require("standby tasks owned", 15000);

    private static final String GROUP = "app";
    private static final String INPUT = "input";
    private static final String REPARTITION = "app-r-repartition";
    private static final String CHANGELOG = "app-s-changelog";
    private static final int STEPS = 400;

    private static final GroupConfig CONFIG = new GroupConfig(
            Duration.ofSeconds(10),
            Duration.ofSeconds(1),
            Duration.ofSeconds(20),
            100,
            100,
            4096,
            1000,
            1000,
            1000,
            "uniform");

    /** A client as the test models it. */
    private static final class Client {
        final String memberId;
        final String process;
        int epoch;
        Tasks owned = Tasks.EMPTY;
        /** An assignment it was told and has not applied yet. */
        Optional<Tasks> pending = Optional.empty();
        /** A paused client (a long GC, a stalled process) sends nothing before this. */
        long pausedUntilMs;

        Client(String memberId, String process) {
            this.memberId = memberId;
            this.process = process;
        }
    }

    private static StreamsTopology topology() {
        return Topologies.counting(0, INPUT, REPARTITION, 6, CHANGELOG);
    }

    private static final class Run {
        final long seed;
        final SplittableRandom random;
        final FakeTopics topics = new FakeTopics();
        final StreamsGroupCoordinator coordinator;
        final Map<String, Client> live = new TreeMap<>();
        /**
         * Clients the coordinator removed (their session or rebalance timeout passed while paused or
         * slow) that do not know yet: they still hold what they had, which the coordinator may give
         * away (Kafka's zombie, whose commits are refused); their next heartbeat is refused.
         */
        final Map<String, Client> zombies = new TreeMap<>();

        final SimulationCoverage.Tally tally = COVERAGE.tally();
        long nowMs = 1_800_000_000_000L;
        int step;
        int nextMember;

        Run(long seed) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
            topics.create(INPUT, 2 + random.nextInt(4));
            topics.create(REPARTITION, 6);
            topics.create(CHANGELOG, 6);
            coordinator = new StreamsGroupCoordinator(
                    CONFIG,
                    new StreamsGroupConfig(
                            random.nextInt(3),
                            Duration.ofSeconds(60),
                            10_000,
                            (short) 1,
                            Duration.ofMillis(random.nextInt(2) * 2000L),
                            1000),
                    topics);
        }

        String where() {
            return "seed " + seed + ", step " + step;
        }

        StreamsHeartbeatRequest request(Client client, int epoch, boolean joining) {
            return new StreamsHeartbeatRequest(
                    GROUP,
                    client.memberId,
                    epoch,
                    0,
                    Optional.empty(),
                    Optional.empty(),
                    joining ? 20_000 : -1,
                    joining ? Optional.of(topology()) : Optional.empty(),
                    Optional.of(joining ? Tasks.EMPTY : client.owned),
                    Optional.of(client.process),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    false,
                    "c",
                    "h");
        }

        void join() {
            Client client = new Client("m" + nextMember++, "p" + random.nextInt(3));
            StreamsHeartbeatResponse response = coordinator.heartbeat(request(client, 0, true), nowMs);
            live.put(client.memberId, client);
            tally.count("joins");
            told(client, response, false);
        }

        void heartbeat(Client client, boolean slowAllowed) {
            if (client.pending.isPresent() && (!slowAllowed || random.nextInt(3) > 0)) {
                apply(client, client.pending.get());
                client.pending = Optional.empty();
            }
            try {
                told(client, coordinator.heartbeat(request(client, client.epoch, false), nowMs), slowAllowed);
            } catch (GroupException e) {
                // Fenced or removed: the client gives up everything and is gone (it may join anew).
                tally.count("fenced or unknown");
                live.remove(client.memberId);
            }
        }

        void told(Client client, StreamsHeartbeatResponse response, boolean slowAllowed) {
            client.epoch = response.memberEpoch();
            if (response.assignment().isEmpty()) {
                return;
            }
            if (slowAllowed && random.nextInt(3) == 0) {
                client.pending = response.assignment();
                tally.count("slow applications");
            } else {
                apply(client, response.assignment().get());
                client.pending = Optional.empty();
            }
        }

        void apply(Client client, Tasks assignment) {
            SortedSet<TaskId> lost = new TreeSet<>(client.owned.active());
            lost.removeAll(assignment.active());
            if (!lost.isEmpty()) {
                tally.count("revocations acknowledged");
            }
            SortedSet<TaskId> gained = new TreeSet<>(assignment.active());
            gained.removeAll(client.owned.active());
            tally.add("tasks moved between clients", gained.size());
            tally.add("standby tasks owned", assignment.standby().size());
            client.owned = assignment;
        }

        void checkInvariants() {
            Map<TaskId, String> active = new HashMap<>();
            Map<String, SortedSet<TaskId>> activeByProcess = new HashMap<>();
            for (Client client : live.values()) {
                for (TaskId task : client.owned.active()) {
                    String other = active.put(task, client.memberId);
                    assertThat(other)
                            .as("SingleActiveOwner: %s active on %s and %s, %s", task, other, client.memberId, where())
                            .isNull();
                    activeByProcess
                            .computeIfAbsent(client.process, k -> new TreeSet<>())
                            .add(task);
                }
            }
            for (Client client : live.values()) {
                for (TaskId task : client.owned.standby()) {
                    assertThat(activeByProcess.getOrDefault(client.process, new TreeSet<>()))
                            .as(
                                    "NoStandbyBesideActive: %s standby on %s in %s where it is active, %s",
                                    task, client.memberId, client.process, where())
                            .doesNotContain(task);
                }
            }
            coordinator.checkInvariants();
        }

        void step() {
            int roll = random.nextInt(100);
            List<Client> clients = new ArrayList<>(live.values());
            if (roll < 12 && live.size() < 6) {
                join();
            } else if (roll < 16 && !clients.isEmpty()) {
                Client client = clients.get(random.nextInt(clients.size()));
                live.remove(client.memberId);
                tally.count("crashes");
            } else if (roll < 20 && !clients.isEmpty()) {
                Client client = clients.get(random.nextInt(clients.size()));
                coordinator.heartbeat(request(client, StreamsHeartbeatRequest.LEAVE_EPOCH, false), nowMs);
                live.remove(client.memberId);
                tally.count("leaves");
            } else if (roll < 21) {
                topics.grow(INPUT, Math.min(6, topics.get(INPUT).partitionCount() + 1));
                tally.count("topic grown");
            } else if (roll < 23 && !clients.isEmpty()) {
                clients.get(random.nextInt(clients.size())).pausedUntilMs =
                        nowMs + CONFIG.sessionTimeout().toMillis() + random.nextInt(5000);
                tally.count("pauses");
            } else if (roll < 26 && !zombies.isEmpty()) {
                Client zombie = zombies.values().iterator().next();
                zombies.remove(zombie.memberId);
                live.put(zombie.memberId, zombie);
                heartbeat(zombie, false);
            } else if (!clients.isEmpty()) {
                Client client = clients.get(random.nextInt(clients.size()));
                if (nowMs >= client.pausedUntilMs) {
                    heartbeat(client, true);
                }
            }
            nowMs += 100 + random.nextInt(400);
            coordinator.tick(nowMs);
            // A client the coordinator removed (session or rebalance timeout) learns it on its next
            // heartbeat; until then it is a zombie: it may still hold tasks the coordinator gave
            // away, which Kafka's protocol allows (its commits are refused), so it is left out of
            // the ownership invariants until that heartbeat is refused.
            for (Client client : List.copyOf(live.values())) {
                boolean member = coordinator
                        .describe(GROUP)
                        .map(g ->
                                g.members().stream().anyMatch(m -> m.memberId().equals(client.memberId)))
                        .orElse(false);
                if (!member) {
                    live.remove(client.memberId);
                    zombies.put(client.memberId, client);
                }
            }
        }

        void settle() {
            zombies.values().forEach(zombie -> {
                live.put(zombie.memberId, zombie);
                heartbeat(zombie, false);
            });
            zombies.clear();
            live.values().forEach(client -> client.pausedUntilMs = 0);
            for (int round = 0; round < 50; round++) {
                for (Client client : List.copyOf(live.values())) {
                    heartbeat(client, false);
                    checkInvariants();
                }
                nowMs += 200;
                coordinator.tick(nowMs);
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void noTaskHasTwoActiveOwnersAndTheGroupSettles(long seed) {
        Run run = new Run(seed);
        run.join();
        for (run.step = 0; run.step < STEPS; run.step++) {
            run.step();
            run.checkInvariants();
        }
        if (run.live.isEmpty()) {
            run.join();
        }
        run.settle();
        StreamsGroupDescription group = run.coordinator.describe(GROUP).orElseThrow();
        Map<TaskId, String> owners = new HashMap<>();
        for (Client client : run.live.values()) {
            client.owned.active().forEach(task -> owners.put(task, client.memberId));
        }
        SortedSet<TaskId> all = new TreeSet<>();
        int inputPartitions = run.topics.get(INPUT).partitionCount();
        for (int p = 0; p < inputPartitions; p++) {
            all.add(new TaskId("0", p));
        }
        for (int p = 0; p < 6; p++) {
            all.add(new TaskId("1", p));
        }
        assertThat(new TreeSet<>(owners.keySet()))
                .as("seed %d: every task active on a live client after settling", seed)
                .isEqualTo(all);
        assertThat(group.state())
                .as("seed %d: group state after settling", seed)
                .isEqualTo(StreamsGroup.STABLE);
        COVERAGE.completed(run.tally);
    }

    @AfterAll
    static void coverage() {
        COVERAGE.check();
    }
}
