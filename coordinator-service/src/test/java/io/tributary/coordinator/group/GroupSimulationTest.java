package io.tributary.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.SimulationCoverage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Deterministic simulation of the consumer-group protocol (Kafka's RaftEventSimulationTest style):
 * one seeded random generator, one simulated clock, an event queue, simulated members behaving like
 * kafka-clients 4.x consumers (join, heartbeat, reconcile, consume, commit, leave, crash, slow
 * revocation, static members that restart; subscriptions by names or by regex), a network that
 * delays and drops messages (each member's messages stay in order, as on one connection), a topic
 * that grows, a topic deleted and created again, a Raft log the coordinator's writes go through
 * ({@link SimulatedGroupStore}: drained and applied at random points, now and then failing), and
 * coordinator failovers: a new coordinator loads what the log applied (writes drained but not
 * applied are lost, like unacknowledged writes) and members carry on.
 *
 * <h2>The oracle is the test's own</h2>
 *
 * The invariants are judged from what the test saw, not from the coordinator's opinion of itself:
 * what each simulated member owns is what the coordinator's answers told it, less what it revoked
 * ({@link SimulatedMember#owned}); and the test keeps its own record of each member id ({@link
 * GroupSimulationJudge.Answered}; the invariants are {@link GroupSimulationJudge}'s): when the
 * coordinator last answered it, the epoch and assignment it was told, since when it has
 * been asked to give partitions up. An answer counts once it is released, which is once the
 * coordinator's writes up to it are applied; it is judged at the time the coordinator computed it.
 * From that record alone the test knows when the protocol allows the coordinator to have removed a
 * member: once its session timeout passed without an answered heartbeat (a failover or a reload
 * starts every stored member's session afresh), or once its rebalance timeout passed since it was
 * asked to revoke.
 * A member that may have been removed is a zombie: it may still believe it owns partitions, but its
 * commits must be refused. Invariants, after every event and at every answer:
 *
 * <ul>
 *   <li>{@code SingleOwner}: no partition is owned on their side by two live members of which
 *       neither may have been removed; and in the coordinator's described state no partition is
 *       assigned or pending revocation at two members (computed here from {@code describe}; the
 *       coordinator's own {@code checkInvariants()} is called too, as an extra check);
 *   <li>{@code RevokeBeforeMove}: when the coordinator's answer gives a member a partition, no other
 *       live member that may not have been removed still owns it on its side (so it revoked it
 *       first); and every partition a member the coordinator still describes owns on its side is,
 *       there, assigned to it or pending its revocation;
 *   <li>{@code ZombieCommitsRejected}: a commit is accepted only from a member answered within its
 *       session timeout (plus one timer tick), counted from its last answer or the last load that
 *       found it stored;
 *   <li>{@code NoRejoinAfterFailover}: right after a failover, every member whose last answer was
 *       released and that may not have been removed (nor left) is known to the new coordinator at
 *       the epoch that answer told it, so it carries on without joining again;
 *   <li>{@code StaleCommitsRejected}: a commit is accepted only for partitions the coordinator's
 *       answers last gave to the committing member (and, as described, owned there at an epoch not
 *       below the commit's);
 *   <li>{@code MonotonicCommits}: a partition's committed offset never goes back (members commit
 *       only what they consumed, starting from the committed offset);
 *   <li>{@code EventuallyOwned}: after a quiet period with live members, the group is stable and
 *       each subscribed partition is owned by exactly one live member.
 * </ul>
 *
 * Every fault must have happened over the seeds ({@link #COVERAGE}: failovers, crashes, static
 * restarts, drops, topic changes, completed rebalances, partitions moved away from zombies...). A
 * failure prints its seed; pin it in {@link #seeds()} to reproduce.
 */
class GroupSimulationTest {

    static LongStream seeds() {
        return LongStream.range(0, 200);
    }

    static final String GROUP = "sim";
    private static final int HEARTBEAT_MS = 500;
    static final int SESSION_MS = 3000;
    static final int REBALANCE_MS = 2000;
    private static final int REQUEST_TIMEOUT_MS = 1000;
    private static final long CHAOS_MS = 60_000;
    private static final long QUIET_MS = 40_000;
    static final int TICK_MS = 100;
    static final long T0 = 1_800_000_000_000L;
    static final long NOT_ASKED = Long.MIN_VALUE;

    static final String FAILOVERS = "coordinator failovers";
    static final String CRASHES = "member crashes";
    static final String LEAVES = "graceful leaves";
    static final String RESTARTS = "member restarts";
    static final String STATIC_RESTARTS = "static member restarts";
    static final String FENCED = "members told to join again";
    static final String CARRIED = "members carried across a failover at their epoch";
    static final String WRITES_APPLIED = "writes applied";
    static final String WRITES_LOST = "writes lost at a failover";
    static final String WRITES_FAILED = "writes failed (groups loaded again)";
    static final String ANSWERS_HELD = "answers held until their write was applied";
    static final String DROPPED = "messages dropped";
    static final String TIMED_OUT = "requests timed out";
    static final String SLOW_REVOCATIONS = "slow revocations";
    static final String TOPICS_GROWN = "topic growths";
    static final String TOPICS_CREATED = "topic creations";
    static final String TOPICS_DELETED = "topic deletions";
    static final String REBALANCES = "rebalances completed";
    static final String MOVES = "partitions moved between members";
    static final String ZOMBIE_MOVES = "partitions moved while a removed member still held them";
    static final String ACCEPTED = "commits accepted";
    static final String REFUSED = "commits refused";

    /** Minimums over the 200 seeds, about half of what they give (printed after the run). */
    static final SimulationCoverage COVERAGE = new SimulationCoverage("GroupSimulationTest", seeds().count())
            .require(FAILOVERS, 600)
            .require(CRASHES, 300)
            .require(LEAVES, 300)
            .require(RESTARTS, 500)
            .require(STATIC_RESTARTS, 150)
            .require(FENCED, 120)
            .require(DROPPED, 2000)
            .require(TIMED_OUT, 1500)
            .require(SLOW_REVOCATIONS, 200)
            .require(TOPICS_GROWN, 100)
            .require(TOPICS_CREATED, 100)
            .require(TOPICS_DELETED, 50)
            .require(REBALANCES, 1200)
            .require(MOVES, 5000)
            .require(ZOMBIE_MOVES, 130)
            .require(ACCEPTED, 25_000)
            .require(REFUSED, 120)
            .require(CARRIED, 1700)
            .require(WRITES_APPLIED, 6000)
            .require(WRITES_LOST, 700)
            .require(WRITES_FAILED, 130)
            .require(ANSWERS_HELD, 7000);

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theGroupProtocolKeepsItsInvariantsUnderFaults(long seed) {
        Simulation simulation = new Simulation(seed);
        try {
            simulation.run();
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(
                    "seed " + seed + " failed at t=" + (simulation.now - T0) + "ms: " + e.getMessage(), e);
        }
        COVERAGE.completed(simulation.tally);
    }

    @AfterAll
    static void theFaultsHappened() {
        COVERAGE.check();
    }

    private record Event(long time, long sequence, Runnable action) {}

    private final class Simulation {
        final long seed;
        final SplittableRandom random;
        final FakeTopics topics = new FakeTopics();
        final GroupConfig config;
        final SimulatedGroupStore store = new SimulatedGroupStore();
        GroupCoordinator coordinator;
        final PriorityQueue<Event> queue = new PriorityQueue<>(
                (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.sequence, b.sequence));
        final List<SimulatedMember> clients = new ArrayList<>();
        final SimulationCoverage.Tally tally = COVERAGE.tally();
        /** The test's own record of the coordinator's answers, and the invariants judged from it. */
        final GroupSimulationJudge judge;

        long sequence;
        long now = T0;
        boolean quiet;
        int failovers;

        Simulation(long seed) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
            this.judge = new GroupSimulationJudge(clients, tally);
            topics.create("t", 6);
            topics.create("u", 1 + random.nextInt(4));
            String assignor = random.nextBoolean() ? UniformAssignor.NAME : RangeAssignor.NAME;
            config = new GroupConfig(
                    Duration.ofMillis(SESSION_MS),
                    Duration.ofMillis(HEARTBEAT_MS),
                    Duration.ofMinutes(1),
                    100,
                    100,
                    4096,
                    100,
                    100,
                    100,
                    assignor);
            coordinator = new GroupCoordinator(config, topics);
            int count = 2 + random.nextInt(4);
            for (int i = 0; i < count; i++) {
                Optional<String> instance = random.nextInt(3) == 0 ? Optional.of("static-" + i) : Optional.empty();
                int kind = random.nextInt(4);
                List<String> subscription = switch (kind) {
                    case 0 -> List.of("t");
                    case 1 -> List.of("t", "u");
                    case 2 -> List.of("u", "t", "v");
                    default -> List.of();
                };
                Optional<String> regex = kind == 3 ? Optional.of("t|v") : Optional.empty();
                clients.add(new SimulatedMember(i, instance, subscription, regex));
            }
        }

        void at(long time, Runnable action) {
            queue.add(new Event(time, sequence++, action));
        }

        long delay() {
            return quiet ? 1 + random.nextInt(50) : 1 + random.nextInt(300);
        }

        boolean dropped() {
            boolean dropped = !quiet && random.nextInt(100) < 3;
            if (dropped) {
                tally.count(DROPPED);
            }
            return dropped;
        }

        /** Sends a client's message: delivered in order after the previous one, or dropped. */
        void send(SimulatedMember client, Runnable atCoordinator) {
            long deliverAt = Math.max(client.lastMessageAt, now + delay());
            client.lastMessageAt = deliverAt;
            if (!dropped()) {
                at(deliverAt, atCoordinator);
            }
        }

        void run() {
            for (SimulatedMember client : clients) {
                at(T0 + random.nextInt(2000), () -> start(client));
            }
            for (long t = T0; t < T0 + CHAOS_MS + QUIET_MS; t += TICK_MS) {
                at(t, () -> coordinator.tick(now));
            }
            at(T0 + 1, this::storeStep);
            for (long t = T0 + 1000; t < T0 + CHAOS_MS; t += 1000) {
                at(t, this::chaos);
            }
            at(T0 + CHAOS_MS, this::beginQuiet);
            while (!queue.isEmpty() && queue.peek().time() <= T0 + CHAOS_MS + QUIET_MS) {
                Event event = queue.poll();
                now = event.time();
                event.action().run();
                judge.checkInvariants(coordinator, now);
            }
            judge.checkEventuallyOwned(coordinator, topics);
            assertThat(tally.get(ACCEPTED)).as("some commits were accepted").isPositive();
        }

        // ---------------------------------------------------------------- clients

        void start(SimulatedMember client) {
            client.alive = true;
            client.incarnation++;
            if (client.incarnation > 1) {
                tally.count(RESTARTS);
                if (client.instanceId.isPresent()) {
                    tally.count(STATIC_RESTARTS);
                }
            }
            client.memberId = "c" + client.slot + "-" + client.incarnation;
            client.epoch = 0;
            client.needFull = true;
            client.inFlightRequest = -1;
            client.owned.clear();
            client.revoking.clear();
            client.revokeAt = Long.MAX_VALUE;
            int incarnation = client.incarnation;
            at(now + 1, () -> heartbeatLoop(client, incarnation));
            at(now + 200, () -> consumeLoop(client, incarnation));
        }

        boolean current(SimulatedMember client, int incarnation) {
            return client.alive && client.incarnation == incarnation;
        }

        void heartbeatLoop(SimulatedMember client, int incarnation) {
            if (!current(client, incarnation)) {
                return;
            }
            if (client.inFlightRequest >= 0 && now - client.inFlightSentAt > REQUEST_TIMEOUT_MS) {
                client.inFlightRequest = -1; // timed out: its response, if any, is ignored
                client.needFull = true;
                tally.count(TIMED_OUT);
            }
            if (now >= client.revokeAt) {
                revokeNow(client);
            }
            if (client.inFlightRequest < 0) {
                sendHeartbeat(client);
            }
            at(now + (client.epoch == 0 ? 100 : HEARTBEAT_MS / 2), () -> heartbeatLoop(client, incarnation));
        }

        void sendHeartbeat(SimulatedMember client) {
            long request = ++client.requestCounter;
            client.inFlightRequest = request;
            client.inFlightSentAt = now;
            boolean full = client.needFull || client.epoch == 0;
            SortedSet<TopicIdPartition> owned = new TreeSet<>(client.owned.keySet());
            Optional<SortedSet<TopicIdPartition>> ownedField =
                    full || random.nextInt(10) > 0 ? Optional.of(owned) : Optional.empty();
            HeartbeatRequest heartbeat = new HeartbeatRequest(
                    GROUP,
                    client.memberId,
                    client.epoch,
                    full ? client.instanceId : Optional.empty(),
                    Optional.empty(),
                    full ? REBALANCE_MS : -1,
                    full && client.regex.isEmpty() ? Optional.of(client.topics) : Optional.empty(),
                    full ? client.regex : Optional.empty(),
                    Optional.empty(),
                    client.epoch == 0 ? Optional.of(new TreeSet<>()) : ownedField,
                    "client",
                    "host");
            int incarnation = client.incarnation;
            send(client, () -> serve(heartbeat, answer -> onResponse(client, incarnation, request, answer)));
        }

        /**
         * The coordinator serves a heartbeat; its answer (a response or an error) goes back once the
         * writes up to it are applied, or with the error of a failed write or a failover.
         */
        void serve(HeartbeatRequest heartbeat, java.util.function.Consumer<Object> onAnswer) {
            long computedAt = now;
            GroupCoordinator.Pending pending;
            try {
                pending = coordinator.heartbeatDurably(heartbeat, now);
            } catch (GroupException e) {
                deliver(e.error(), onAnswer);
                return;
            }
            if (heartbeat.memberEpoch() >= 0) {
                // Its session runs from now in the coordinator's memory, whether or not the answer
                // is ever released (a failed write or a failover loads it with a fresh session).
                judge.served(heartbeat.memberId(), computedAt);
            }
            if (!pending.written().isDone()) {
                tally.count(ANSWERS_HELD);
            }
            pending.written().thenAccept(failure -> {
                if (failure.isPresent()) {
                    deliver(failure.get(), onAnswer);
                } else {
                    judge.observe(heartbeat, pending.response(), computedAt, now);
                    deliver(pending.response(), onAnswer);
                }
            });
        }

        void deliver(Object answer, java.util.function.Consumer<Object> onAnswer) {
            long deliverAt = now + delay();
            if (!dropped()) {
                at(deliverAt, () -> onAnswer.accept(answer));
            }
        }

        void onResponse(SimulatedMember client, int incarnation, long request, Object answer) {
            if (!current(client, incarnation) || client.inFlightRequest != request) {
                return;
            }
            client.inFlightRequest = -1;
            if (answer instanceof Errors error) {
                switch (error) {
                    case UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, GROUP_ID_NOT_FOUND -> {
                        // Fenced: partitions are lost (no commit), join again with epoch 0. (A real
                        // consumer fails on GROUP_ID_NOT_FOUND, answered when every member was
                        // removed and the empty group forgotten or never stored, and is restarted:
                        // the same here.)
                        client.owned.clear();
                        client.revoking.clear();
                        client.revokeAt = Long.MAX_VALUE;
                        client.epoch = 0;
                        client.needFull = true;
                        tally.count(FENCED);
                    }
                    case UNRELEASED_INSTANCE_ID -> client.needFull = true; // try again later
                    case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE ->
                        // The change was not stored (a failover, a failed write): find the
                        // coordinator and send the heartbeat again, at the same epoch.
                        client.needFull = true;
                    default -> throw new AssertionError("unexpected heartbeat error " + error);
                }
                return;
            }
            HeartbeatResponse response = (HeartbeatResponse) answer;
            client.needFull = false;
            client.epoch = response.memberEpoch();
            if (response.assignment().isEmpty()) {
                return;
            }
            SortedSet<TopicIdPartition> assignment = response.assignment().get();
            for (TopicIdPartition partition : assignment) {
                if (!client.owned.containsKey(partition)) {
                    Long offset = judge.committed(partition);
                    client.owned.put(partition, offset == null ? 0 : offset);
                    client.revoking.remove(partition);
                }
            }
            SortedSet<TopicIdPartition> toRevoke = new TreeSet<>(client.owned.keySet());
            toRevoke.removeAll(assignment);
            client.revoking.clear();
            client.revoking.addAll(toRevoke);
            if (toRevoke.isEmpty()) {
                client.revokeAt = Long.MAX_VALUE;
            } else if (client.revokeAt == Long.MAX_VALUE) {
                boolean slow = !quiet && random.nextInt(5) == 0;
                if (slow) {
                    tally.count(SLOW_REVOCATIONS);
                }
                client.revokeAt = now + (slow ? random.nextInt(3 * REBALANCE_MS) : 0);
                if (client.revokeAt <= now) {
                    revokeNow(client);
                }
            }
        }

        /** onPartitionsRevoked: commit what was consumed, then stop owning them. */
        void revokeNow(SimulatedMember client) {
            client.revokeAt = Long.MAX_VALUE;
            if (client.revoking.isEmpty()) {
                return;
            }
            commit(client, client.revoking);
            client.revoking.forEach(client.owned::remove);
            client.revoking.clear();
            client.needFull = true; // the next heartbeat lists what it owns now
        }

        void consumeLoop(SimulatedMember client, int incarnation) {
            if (!current(client, incarnation)) {
                return;
            }
            client.owned.replaceAll((partition, position) -> position + random.nextInt(5));
            if (random.nextInt(3) == 0 && client.epoch > 0 && !client.owned.isEmpty()) {
                commit(client, client.owned.keySet());
            }
            at(now + 100 + random.nextInt(300), () -> consumeLoop(client, incarnation));
        }

        void commit(SimulatedMember client, Set<TopicIdPartition> partitions) {
            Map<TopicIdPartition, Long> offsets = new TreeMap<>();
            partitions.forEach(p -> offsets.put(p, client.owned.get(p)));
            String memberId = client.memberId;
            int epoch = client.epoch;
            send(client, () -> applyCommit(memberId, epoch, offsets));
        }

        void applyCommit(String memberId, int epoch, Map<TopicIdPartition, Long> offsets) {
            Optional<GroupDescription.Member> member = coordinator
                    .describe(GROUP)
                    .flatMap(g -> g.members().stream()
                            .filter(m -> m.memberId().equals(memberId))
                            .findFirst());
            try {
                coordinator.validateCommit(GROUP, memberId, epoch, Optional.empty(), offsets.keySet());
            } catch (GroupException e) {
                assertThat(e.error())
                        .isIn(Errors.UNKNOWN_MEMBER_ID, Errors.STALE_MEMBER_EPOCH, Errors.GROUP_ID_NOT_FOUND);
                tally.count(REFUSED);
                return;
            }
            judge.checkAccepted(memberId, epoch, offsets, member, now);
        }

        // ---------------------------------------------------------------- faults

        void chaos() {
            SimulatedMember client = clients.get(random.nextInt(clients.size()));
            switch (random.nextInt(12)) {
                case 0 -> { // crash: no goodbye; its messages on the wire still arrive
                    if (client.alive) {
                        tally.count(CRASHES);
                    }
                    client.alive = false;
                }
                case 1 -> { // graceful leave: commit, then leave (-2 for static members)
                    if (client.alive && client.epoch > 0) {
                        commit(client, client.owned.keySet());
                        int leaveEpoch = client.instanceId.isPresent() ? -2 : -1;
                        HeartbeatRequest leave = new HeartbeatRequest(
                                GROUP,
                                client.memberId,
                                leaveEpoch,
                                client.instanceId,
                                Optional.empty(),
                                -1,
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                "client",
                                "host");
                        send(
                                client,
                                () -> serve(leave, answer -> {
                                    if (answer instanceof Errors error) {
                                        assertThat(error)
                                                .isIn(
                                                        Errors.FENCED_INSTANCE_ID,
                                                        Errors.NOT_COORDINATOR,
                                                        Errors.COORDINATOR_NOT_AVAILABLE);
                                    }
                                }));
                        client.alive = false;
                        client.owned.clear();
                        tally.count(LEAVES);
                    }
                }
                case 2, 3, 4 -> { // (re)start a stopped member
                    if (!client.alive) {
                        start(client);
                    }
                }
                case 5 -> { // the coordinator fails over: a new one loads what the log applied
                    if (random.nextInt(4) == 0) {
                        failover();
                    }
                }
                case 6 -> { // a topic grows
                    if (random.nextInt(4) == 0) {
                        TopicView.TopicInfo u = topics.get("u");
                        topics.grow("u", u.partitionCount() + 1);
                        tally.count(TOPICS_GROWN);
                    }
                }
                case 7 -> { // topic v is created, or deleted (a new v has a new id)
                    if (random.nextInt(3) == 0) {
                        if (topics.get("v") == null) {
                            topics.create("v", 1 + random.nextInt(3));
                            tally.count(TOPICS_CREATED);
                        } else {
                            topics.delete("v");
                            tally.count(TOPICS_DELETED);
                        }
                    }
                }
                default -> {}
            }
        }

        /**
         * The coordinator dies: writes drained but not applied are lost, answers waiting for them
         * get NOT_COORDINATOR, and a new coordinator loads what the log applied.
         */
        void failover() {
            if (random.nextBoolean()) {
                store.drain(coordinator); // sent to the log, never committed
            }
            tally.add(WRITES_LOST, store.loseInFlight());
            coordinator.clear();
            coordinator = new GroupCoordinator(config, topics);
            Collection<StoredConsumerGroup> stored = store.groups();
            coordinator.load(stored, now);
            failovers++;
            tally.count(FAILOVERS);
            judge.checkNoRejoinAfterFailover(coordinator, now);
            judge.restartSessions(stored, now);
        }

        /** The coordinator loads the groups again (after a failed write). */
        void load() {
            Collection<StoredConsumerGroup> stored = store.groups();
            coordinator.load(stored, now);
            judge.restartSessions(stored, now);
        }

        /**
         * The Raft log at work, at random points: drains the coordinator's writes, applies some of
         * those drained (in order; their answers go out), and now and then fails one (the
         * coordinator drops its groups and loads them again, as the service does before the next
         * request); in the quiet period it keeps up.
         */
        void storeStep() {
            if (quiet || random.nextInt(3) > 0) {
                store.drain(coordinator);
            }
            if (!quiet && store.inFlight() > 0 && random.nextInt(40) == 0) {
                failover(); // with writes sent and not committed
            } else if (!quiet && random.nextInt(150) == 0) {
                Errors error = random.nextBoolean() ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.NOT_COORDINATOR;
                boolean committedAnyway = random.nextBoolean();
                store.failFirst(coordinator, error, committedAnyway).ifPresent(write -> {
                    tally.count(WRITES_FAILED);
                    if (committedAnyway && write instanceof PendingWrites.Append append) {
                        // Stored, though its answer was an error: the member may be a step ahead.
                        judge.storedAheadOfItsAnswers(append.records());
                    }
                    load();
                });
            } else if (store.inFlight() > 0 && (quiet || random.nextInt(4) == 0)) {
                int count = quiet ? store.inFlight() : 1 + random.nextInt(store.inFlight());
                tally.add(WRITES_APPLIED, store.apply(coordinator, count));
            }
            at(now + (quiet ? 20 : 10 + random.nextInt(60)), this::storeStep);
        }

        void beginQuiet() {
            quiet = true;
            if (clients.stream().noneMatch(c -> c.alive)) {
                start(clients.getFirst());
            }
        }
    }
}
