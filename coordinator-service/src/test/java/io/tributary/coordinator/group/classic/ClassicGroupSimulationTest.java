package io.tributary.coordinator.group.classic;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.SimulationCoverage;
import io.tributary.coordinator.group.ClassicJoin;
import io.tributary.coordinator.group.ClassicProtocol;
import io.tributary.coordinator.group.GroupCoordinator.Committer;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.Delete;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.LeavingMember;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.Store;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.StoreTask;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Deterministic simulation of the classic group protocol: one seeded random generator, one
 * simulated clock, one event queue, the coordinator's {@code tick} every 100 ms, and simulated
 * members behaving like kafka-clients classic consumers with the eager protocol: they join
 * (following MEMBER_ID_REQUIRED), the leader assigns the partitions round-robin among the members
 * its JoinGroup answer listed (encoded as bytes), all sync, heartbeat, consume and commit their
 * positions, revoke everything (committing) before joining again, leave, crash (go silent; what
 * they sent still arrives), are slow (join again or sync after the rebalance timeout), restart
 * (static members with the same instance id), join again on their own, and lose answers (the
 * request was applied, the member never sees the answer). The coordinator's writes are drained at
 * random moments and made durable later (sometimes failing, durable or not; now and then the store
 * is slow for seconds); a coordinator failover, at random moments and right after an assignment
 * was drained, drops the old leader's groups ({@code clear}), loses what it drained but had not
 * made durable (or makes part of it durable without telling it: an unacknowledged Raft write), and
 * a new leader (another node, or the same one again) {@code load}s the store after a while without
 * a leader. A request reaching a node that does not lead when it arrives is answered
 * NOT_COORDINATOR, and members send to the leader they know.
 *
 * <p>The judge is the test's own record of the answers ({@link ClassicGroupOracle}: {@code
 * OneGenerationAtATime}, {@code LeadersAssignmentDelivered}, {@code
 * NoPartitionOwnedTwiceInOneGeneration}, {@code LeaderKnowsTheMembers}, {@code
 * DynamicMembersJoinEachGeneration}, {@code StaleCommitsRejected}, {@code
 * CommittedOffsetsNeverGoBack}), checked at every answer and after
 * every event, with the coordinator's {@code checkInvariants()} as an extra check. Then liveness:
 * after a quiet period (no faults, a reliable network, stores made durable at once) the group is
 * Stable and every live member holds its part of one generation, together every partition once.
 * Every fault must have happened over the seeds ({@link #COVERAGE}); a failure prints its seed.
 */
class ClassicGroupSimulationTest {

    static LongStream seeds() {
        return LongStream.range(0, 200);
    }

    private static final String GROUP = "sim";
    private static final int SESSION_MS = 3000;
    private static final int HEARTBEAT_MS = 500;
    private static final int REQUEST_TIMEOUT_MS = 1000;
    /** A JoinGroup or SyncGroup may wait up to the rebalance timeout: its timeout is that plus this. */
    private static final int WAITING_REQUEST_EXTRA_MS = 2500;

    private static final long CHAOS_MS = 180_000;
    private static final long QUIET_MS = 30_000;
    private static final int TICK_MS = 100;
    private static final long T0 = 1_800_000_000_000L;

    static final String FAILOVERS = "coordinator failovers";
    static final String WRITES_LOST = "drained writes lost at a failover";
    static final String ASSIGNMENTS_LOST = "assignments lost at a failover before they were stored";
    static final String WRITES_UNACKNOWLEDGED = "writes durable but unacknowledged at a failover";
    static final String STORE_FAILURES = "store failures";
    static final String CRASHES = "member crashes";
    static final String LEAVES = "leaves";
    static final String RESTARTS = "member restarts";
    static final String STATIC_RESTARTS = "static member restarts";
    static final String STATIC_SAME_GENERATION = "static members back in the same generation";
    static final String REJOINS = "members joining again on their own";
    static final String LOST_ANSWERS = "answers lost";
    static final String TIMED_OUT = "requests timed out";
    static final String MEMBER_ID_REQUIRED = "MEMBER_ID_REQUIRED answers";
    static final String GENERATIONS = "generations handed out";
    static final String SYNCED = "assignments received";
    static final String SLOW_JOINS = "slow joins";
    static final String SLOW_SYNCS = "slow syncs";
    static final String REBALANCE_TIMEOUTS = "slow joiners removed";
    static final String SYNC_TIMEOUTS = "slow syncers removed";
    static final String NOT_COORDINATOR = "NOT_COORDINATOR answers";
    static final String ACCEPTED = "commits accepted";
    static final String REFUSED = "commits refused";

    /** Minimums over the 200 seeds, about half of what they give (printed after the run). */
    static final SimulationCoverage COVERAGE = new SimulationCoverage("ClassicGroupSimulationTest", seeds().count())
            .require(FAILOVERS, 580)
            .require(WRITES_LOST, 95)
            .require(ASSIGNMENTS_LOST, 90)
            .require(WRITES_UNACKNOWLEDGED, 110)
            .require(STORE_FAILURES, 100)
            .require(CRASHES, 750)
            .require(LEAVES, 800)
            .require(RESTARTS, 1_700)
            .require(STATIC_RESTARTS, 800)
            .require(STATIC_SAME_GENERATION, 190)
            .require(REJOINS, 380)
            .require(LOST_ANSWERS, 2_200)
            .require(TIMED_OUT, 2_000)
            .require(MEMBER_ID_REQUIRED, 2_200)
            .require(GENERATIONS, 4_000)
            .require(SYNCED, 5_000)
            .require(SLOW_JOINS, 900)
            .require(SLOW_SYNCS, 550)
            .require(REBALANCE_TIMEOUTS, 500)
            .require(SYNC_TIMEOUTS, 350)
            .require(NOT_COORDINATOR, 2_600)
            .require(ACCEPTED, 37_000)
            .require(REFUSED, 1_000);

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void classicGroupsKeepTheirInvariantsUnderFaults(long seed) {
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

    private enum Phase {
        /** Waiting for a JoinGroup answer (or about to send one). */
        JOINING,
        /** Joined a generation; waiting for its SyncGroup answer (or slow to send it). */
        SYNCING,
        /** Holds its assignment; heartbeats, consumes, commits. */
        STABLE,
        /** Told to join again: revoking (slowly, perhaps) before it does; still heartbeats. */
        REVOKING
    }

    private static final class Client {
        final int slot;
        final Optional<String> instanceId;
        final List<ClassicProtocol> protocols;
        final int rebalanceMs;
        final boolean skipAssignment;

        int incarnation;
        boolean alive;
        Phase phase = Phase.JOINING;
        String memberId = "";
        int generation = -1;
        Optional<String> protocolName = Optional.empty();
        long counter;
        /** The JoinGroup or SyncGroup in flight (-1: none). */
        long request = -1;

        long requestSentAt;
        long heartbeat = -1;
        long heartbeatSentAt;
        /** What it consumes, with the next offset it would commit. */
        final Map<Integer, Long> owned = new TreeMap<>();

        boolean slowNextRevoke;
        boolean slowNextSync;
        /** It was slow in this rebalance: being told it is gone counts as a timeout. */
        boolean wasSlowToJoin;

        boolean wasSlowToSync;
        long lastMessageAt;

        Client(int slot, Optional<String> instanceId, List<ClassicProtocol> protocols, int rebalanceMs, boolean skip) {
            this.slot = slot;
            this.instanceId = instanceId;
            this.protocols = protocols;
            this.rebalanceMs = rebalanceMs;
            this.skipAssignment = skip;
        }
    }

    private final class Simulation {
        final SplittableRandom random;
        final int partitions;
        final ClassicGroupConfig config;
        final InMemoryClassicGroupStore store = new InMemoryClassicGroupStore();
        final ClassicGroupOracle oracle = new ClassicGroupOracle();
        /** Writes drained from the coordinator, not yet made durable and reported. */
        final ArrayDeque<StoreTask> drained = new ArrayDeque<>();

        final PriorityQueue<Event> queue =
                new PriorityQueue<>(Comparator.comparingLong(Event::time).thenComparingLong(Event::sequence));
        final List<Client> clients = new ArrayList<>();
        final SimulationCoverage.Tally tally = COVERAGE.tally();
        ClassicGroupCoordinator coordinator;
        long sequence;
        long now = T0;
        boolean quiet;
        boolean leaderless;
        /** The node leading the coordinators (a new one, or the same one again, after a failover). */
        int leaderNode;

        int nodes;
        /** Whether the request being applied reached the leader (see {@link #send}). */
        boolean leading;

        int handedOutGenerations;
        /** An invariant broken inside a future's callback (which would swallow it). */
        Throwable callbackFailure;

        Simulation(long seed) {
            this.random = new SplittableRandom(seed);
            this.partitions = 4 + random.nextInt(6);
            Duration initialDelay = random.nextBoolean() ? Duration.ZERO : Duration.ofMillis(300);
            this.config = new ClassicGroupConfig(
                    Duration.ofSeconds(1),
                    Duration.ofMinutes(30),
                    initialDelay,
                    Duration.ofMinutes(15),
                    100,
                    100,
                    64 * 1024,
                    1000);
            this.coordinator = newCoordinator();
            int count = 2 + random.nextInt(4);
            for (int i = 0; i < count; i++) {
                Optional<String> instance = random.nextInt(3) == 0 ? Optional.of("static-" + i) : Optional.empty();
                byte[] subscription = "t".getBytes(StandardCharsets.UTF_8);
                List<ClassicProtocol> protocols = random.nextBoolean()
                        ? List.of(
                                new ClassicProtocol("range", subscription),
                                new ClassicProtocol("roundrobin", subscription))
                        : List.of(
                                new ClassicProtocol("roundrobin", subscription),
                                new ClassicProtocol("range", subscription));
                clients.add(new Client(i, instance, protocols, 1500 + 500 * random.nextInt(3), random.nextInt(4) > 0));
            }
        }

        ClassicGroupCoordinator newCoordinator() {
            return new ClassicGroupCoordinator(config, () -> new UUID(random.nextLong(), random.nextLong()));
        }

        void at(long time, Runnable action) {
            queue.add(new Event(time, sequence++, action));
        }

        /** Runs an action of a client's incarnation later, unless it stopped meanwhile. */
        void later(Client client, long delayMs, Runnable action) {
            int incarnation = client.incarnation;
            at(now + delayMs, () -> {
                if (current(client, incarnation)) {
                    action.run();
                }
            });
        }

        boolean current(Client client, int incarnation) {
            return client.alive && client.incarnation == incarnation;
        }

        long delay() {
            return quiet ? 1 + random.nextInt(30) : 1 + random.nextInt(200);
        }

        /**
         * Sends a client's request to the node it knows as the coordinator: applied there in order
         * after its previous one. A node that is not the leader when it arrives (any more, or not
         * yet) answers NOT_COORDINATOR: {@link #leading} is false while {@code atCoordinator} runs.
         */
        void send(Client client, Runnable atCoordinator) {
            long deliverAt = Math.max(client.lastMessageAt, now + delay());
            client.lastMessageAt = deliverAt;
            int node = leaderNode;
            at(deliverAt, () -> {
                leading = !leaderless && node == leaderNode;
                atCoordinator.run();
            });
        }

        /** Delivers an answer to a client later, or loses it. */
        void deliver(Runnable atClient) {
            if (!quiet && random.nextInt(100) < 3) {
                tally.count(LOST_ANSWERS);
                return;
            }
            at(now + delay(), atClient);
        }

        /** Delivers the answer to a JoinGroup or SyncGroup, if the client still waits for it. */
        void deliverAnswer(Client client, int incarnation, long request, Runnable onAnswer) {
            deliver(() -> {
                if (current(client, incarnation) && client.request == request) {
                    client.request = -1;
                    onAnswer.run();
                }
            });
        }

        void countNotCoordinator(Errors error) {
            if (error == Errors.NOT_COORDINATOR) {
                tally.count(NOT_COORDINATOR);
            }
        }

        /** A future's callback: an invariant it breaks is kept and thrown after the event. */
        <T> BiConsumer<T, Throwable> guarded(Consumer<T> action) {
            return (result, error) -> {
                try {
                    if (error != null) {
                        throw new AssertionError("a coordinator future failed", error);
                    }
                    action.accept(result);
                } catch (AssertionError | RuntimeException e) {
                    if (callbackFailure == null) {
                        callbackFailure = e;
                    }
                }
            };
        }

        void run() {
            for (Client client : clients) {
                at(T0 + random.nextInt(2000), () -> start(client));
            }
            for (long t = T0; t < T0 + CHAOS_MS + QUIET_MS; t += TICK_MS) {
                at(t, () -> {
                    if (!leaderless) {
                        coordinator.tick(now);
                    }
                });
            }
            at(T0 + 50, this::storageLoop);
            for (long t = T0 + 1000; t < T0 + CHAOS_MS; t += 1000) {
                at(t, this::chaos);
            }
            at(T0 + CHAOS_MS, this::beginQuiet);
            while (!queue.isEmpty() && queue.peek().time() <= T0 + CHAOS_MS + QUIET_MS) {
                Event event = queue.poll();
                now = event.time();
                event.action().run();
                afterEvent();
            }
            checkLiveness();
        }

        void afterEvent() {
            if (callbackFailure != null) {
                Throwable failure = callbackFailure;
                callbackFailure = null;
                if (failure instanceof AssertionError e) {
                    throw e;
                }
                throw (RuntimeException) failure;
            }
            oracle.endOfEvent();
            coordinator.checkInvariants();
            if (oracle.highestHandedOut() > handedOutGenerations) {
                tally.add(GENERATIONS, oracle.highestHandedOut() - handedOutGenerations);
                handedOutGenerations = oracle.highestHandedOut();
            }
        }

        // ---------------------------------------------------------------- durability and failover

        /** Drains the coordinator's writes now and then, and makes some of the drained durable. */
        void storageLoop() {
            if (!leaderless) {
                List<StoreTask> tasks = coordinator.drainStores();
                drained.addAll(tasks);
                boolean assignment = tasks.stream().anyMatch(t -> t instanceof Store s && s.completesSync());
                boolean failing = assignment && !quiet && random.nextInt(20) == 0;
                if (failing) {
                    at(now + 1 + random.nextInt(20), this::failover); // while an assignment is being stored
                }
                int count = quiet ? drained.size() : failing ? 0 : random.nextInt(drained.size() + 1);
                for (int i = 0; i < count; i++) {
                    StoreTask task = drained.poll();
                    boolean fails = !quiet && random.nextInt(30) == 0;
                    if (!fails || random.nextBoolean()) {
                        write(task); // a failure's outcome may be unknown: durable all the same
                    }
                    if (fails) {
                        tally.count(STORE_FAILURES);
                    }
                    coordinator.stored(
                            task, fails ? Optional.of(Errors.COORDINATOR_NOT_AVAILABLE) : Optional.empty(), now);
                }
            }
            long next =
                    quiet ? TICK_MS : random.nextInt(15) == 0 ? 1000 + random.nextInt(2000) : 20 + random.nextInt(200);
            at(now + next, this::storageLoop); // now and then a slow store
        }

        void write(StoreTask task) {
            try {
                switch (task) {
                    case Store s -> {
                        store.store(s.record());
                        oracle.stored(s.record());
                    }
                    case Delete d -> store.delete(d.groupId());
                }
            } catch (OffsetStoreException e) {
                throw new AssertionError(e);
            }
        }

        void failover() {
            if (leaderless) {
                return;
            }
            leaderless = true;
            tally.count(FAILOVERS);
            coordinator.clear();
            // Raft may have committed a prefix of what the old leader drained without telling it.
            int unacknowledged = random.nextInt(drained.size() + 1);
            for (int i = 0; i < unacknowledged; i++) {
                write(drained.poll());
                tally.count(WRITES_UNACKNOWLEDGED);
            }
            tally.add(WRITES_LOST, drained.size());
            tally.add(
                    ASSIGNMENTS_LOST,
                    drained.stream()
                            .filter(t -> t instanceof Store s && s.completesSync())
                            .count());
            drained.clear();
            at(now + random.nextInt(1000), this::takeOver);
        }

        void takeOver() {
            if (random.nextBoolean()) {
                coordinator = newCoordinator(); // another node; else the same one, leader again
                leaderNode = ++nodes;
            }
            Map<String, ClassicGroupRecord> records = store.load();
            coordinator.load(records.values(), now);
            oracle.tookOver(Optional.ofNullable(records.get(GROUP)));
            leaderless = false;
        }

        // ---------------------------------------------------------------- members

        void start(Client client) {
            client.alive = true;
            client.incarnation++;
            if (client.incarnation > 1) {
                tally.count(RESTARTS);
                if (client.instanceId.isPresent()) {
                    tally.count(STATIC_RESTARTS);
                }
            }
            client.memberId = "";
            client.generation = -1;
            client.owned.clear();
            client.request = -1;
            client.heartbeat = -1;
            client.slowNextRevoke = false;
            client.slowNextSync = false;
            client.wasSlowToJoin = false;
            client.wasSlowToSync = false;
            sendJoin(client);
            later(client, HEARTBEAT_MS, () -> heartbeatLoop(client));
            later(client, 200, () -> consumeLoop(client));
        }

        long newRequest(Client client) {
            client.request = ++client.counter;
            client.requestSentAt = now;
            return client.request;
        }

        void sendJoin(Client client) {
            client.phase = Phase.JOINING;
            long request = newRequest(client);
            int incarnation = client.incarnation;
            ClassicJoin join = new ClassicJoin(
                    GROUP,
                    client.memberId,
                    client.instanceId,
                    "consumer",
                    client.protocols,
                    SESSION_MS,
                    client.rebalanceMs,
                    "client-" + client.slot,
                    "/10.0.0." + client.slot,
                    true,
                    client.skipAssignment);
            send(client, () -> {
                CompletableFuture<ClassicJoinResult> answer;
                int generationBefore = !leading
                        ? -1
                        : coordinator
                                .describe(GROUP)
                                .map(ClassicGroupDescription::generationId)
                                .orElse(-1);
                if (!leading) {
                    answer = CompletableFuture.completedFuture(
                            ClassicJoinResult.failed(Errors.NOT_COORDINATOR, join.memberId()));
                } else {
                    oracle.joinArrived(join.memberId());
                    try {
                        answer = coordinator.join(join, now);
                    } catch (GroupException e) {
                        answer =
                                CompletableFuture.completedFuture(ClassicJoinResult.failed(e.error(), join.memberId()));
                    }
                }
                boolean atOnce = answer.isDone();
                answer.whenComplete(guarded(result -> {
                    oracle.joinAnswered(join, result);
                    countNotCoordinator(result.error());
                    if (atOnce
                            && result.error() == Errors.NONE
                            && join.memberId().isEmpty()
                            && join.instanceId().isPresent()
                            && result.generationId() == generationBefore) {
                        tally.count(STATIC_SAME_GENERATION);
                    }
                    deliverAnswer(client, incarnation, request, () -> onJoin(client, result));
                }));
            });
        }

        void onJoin(Client client, ClassicJoinResult result) {
            switch (result.error()) {
                case NONE -> {
                    client.memberId = result.memberId();
                    client.generation = result.generationId();
                    client.protocolName = result.protocolName();
                    client.phase = Phase.SYNCING;
                    client.wasSlowToJoin = false;
                    boolean assigns = result.leaderId().equals(result.memberId()) && !result.skipAssignment();
                    Map<String, byte[]> assignments = assigns ? roundRobin(result.members()) : Map.of();
                    int generation = client.generation;
                    if (client.slowNextSync) {
                        client.slowNextSync = false;
                        client.wasSlowToSync = true;
                        tally.count(SLOW_SYNCS);
                        later(client, client.rebalanceMs + 500 + random.nextInt(2000), () -> {
                            if (client.phase == Phase.SYNCING && client.generation == generation) {
                                sendSync(client, assignments, result.members());
                            }
                        });
                    } else {
                        sendSync(client, assignments, result.members());
                    }
                }
                case MEMBER_ID_REQUIRED -> {
                    tally.count(MEMBER_ID_REQUIRED);
                    client.memberId = result.memberId();
                    sendJoin(client);
                }
                default -> refused(client, result.error(), "JoinGroup");
            }
        }

        /** The leader's assignment: the partitions round-robin over the listed members, by owner. */
        Map<String, byte[]> roundRobin(List<ClassicJoinResult.JoinedMember> members) {
            List<ClassicJoinResult.JoinedMember> sorted = new ArrayList<>(members);
            sorted.sort(Comparator.comparing(m -> ClassicGroupOracle.owner(m.memberId(), m.instanceId())));
            Map<String, SortedSet<Integer>> parts = new HashMap<>();
            sorted.forEach(m -> parts.put(m.memberId(), new TreeSet<>()));
            for (int p = 0; p < partitions; p++) {
                parts.get(sorted.get(p % sorted.size()).memberId()).add(p);
            }
            Map<String, byte[]> assignments = new HashMap<>();
            parts.forEach((member, owned) -> assignments.put(member, ClassicGroupOracle.encode(owned)));
            return assignments;
        }

        void sendSync(Client client, Map<String, byte[]> assignments, List<ClassicJoinResult.JoinedMember> members) {
            long request = newRequest(client);
            int incarnation = client.incarnation;
            String memberId = client.memberId;
            int generation = client.generation;
            Optional<String> protocolName = client.protocolName;
            send(client, () -> {
                CompletableFuture<ClassicSyncResult> answer;
                if (!leading) {
                    answer = CompletableFuture.completedFuture(ClassicSyncResult.failed(Errors.NOT_COORDINATOR));
                } else {
                    try {
                        answer = coordinator.sync(
                                GROUP,
                                memberId,
                                client.instanceId,
                                generation,
                                Optional.of(new ClassicGroupCoordinator.ProtocolCheck(
                                        Optional.of("consumer"), protocolName)),
                                assignments,
                                now);
                        if (!assignments.isEmpty()) {
                            oracle.assignmentSent(memberId, generation, assignments, members);
                        }
                    } catch (GroupException e) {
                        answer = CompletableFuture.completedFuture(ClassicSyncResult.failed(e.error()));
                    }
                }
                answer.whenComplete(guarded(result -> {
                    oracle.syncAnswered(memberId, client.instanceId, generation, result);
                    countNotCoordinator(result.error());
                    deliverAnswer(client, incarnation, request, () -> onSync(client, result));
                }));
            });
        }

        void onSync(Client client, ClassicSyncResult result) {
            switch (result.error()) {
                case NONE -> {
                    client.phase = Phase.STABLE;
                    client.wasSlowToSync = false;
                    client.owned.clear();
                    for (int partition : ClassicGroupOracle.decode(result.assignment())) {
                        client.owned.put(partition, oracle.committed(partition));
                    }
                    tally.count(SYNCED);
                }
                default -> refused(client, result.error(), "SyncGroup");
            }
        }

        /** A JoinGroup or SyncGroup refused: join again (as a new member when told it is gone). */
        void refused(Client client, Errors error, String request) {
            switch (error) {
                case UNKNOWN_MEMBER_ID -> {
                    gone(client);
                    rejoinSoon(client);
                }
                case FENCED_INSTANCE_ID -> fenced(client);
                case REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE ->
                    rejoinSoon(client);
                default -> throw new AssertionError("unexpected " + request + " answer " + error);
            }
        }

        /** Told it is no longer a member: it joins again as a new one (a static one with its instance id). */
        void gone(Client client) {
            if (client.wasSlowToJoin) {
                tally.count(REBALANCE_TIMEOUTS);
            }
            if (client.wasSlowToSync) {
                tally.count(SYNC_TIMEOUTS);
            }
            client.wasSlowToJoin = false;
            client.wasSlowToSync = false;
            client.memberId = "";
        }

        /** Its partitions are lost (no commit); it joins again after a short backoff. */
        void rejoinSoon(Client client) {
            client.owned.clear();
            client.phase = Phase.JOINING;
            long request = newRequest(client); // nothing in flight until the join below is sent
            later(client, 50 + random.nextInt(100), () -> {
                if (client.request == request) {
                    sendJoin(client);
                }
            });
        }

        /** FENCED_INSTANCE_ID is fatal to a kafka-clients consumer: the process stops. */
        void fenced(Client client) {
            client.alive = false;
        }

        void heartbeatLoop(Client client) {
            if (client.request >= 0
                    && now - client.requestSentAt > client.rebalanceMs + WAITING_REQUEST_EXTRA_MS
                    && (client.phase == Phase.JOINING || client.phase == Phase.SYNCING)) {
                tally.count(TIMED_OUT); // the answer, if any, is ignored: join again
                rejoinSoon(client);
            }
            if (client.heartbeat >= 0 && now - client.heartbeatSentAt > REQUEST_TIMEOUT_MS) {
                client.heartbeat = -1;
                tally.count(TIMED_OUT);
            }
            if (client.heartbeat < 0 && client.phase != Phase.JOINING && !client.memberId.isEmpty()) {
                sendHeartbeat(client);
            }
            later(client, HEARTBEAT_MS, () -> heartbeatLoop(client));
        }

        void sendHeartbeat(Client client) {
            long heartbeat = ++client.counter;
            client.heartbeat = heartbeat;
            client.heartbeatSentAt = now;
            int incarnation = client.incarnation;
            String memberId = client.memberId;
            int generation = client.generation;
            send(client, () -> {
                Errors error = Errors.NONE;
                if (!leading) {
                    error = Errors.NOT_COORDINATOR;
                } else {
                    try {
                        coordinator.heartbeat(GROUP, memberId, client.instanceId, generation, now);
                    } catch (GroupException e) {
                        error = e.error();
                    }
                }
                oracle.refused(memberId, error);
                countNotCoordinator(error);
                Errors result = error;
                deliver(() -> {
                    if (current(client, incarnation) && client.heartbeat == heartbeat) {
                        client.heartbeat = -1;
                        if (client.memberId.equals(memberId) && client.generation == generation) {
                            onHeartbeat(client, result);
                        }
                    }
                });
            });
        }

        void onHeartbeat(Client client, Errors error) {
            switch (error) {
                case NONE, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> {}
                case REBALANCE_IN_PROGRESS -> {
                    if (client.phase == Phase.STABLE) {
                        revokeAndJoin(client);
                    }
                }
                case ILLEGAL_GENERATION -> {
                    if (client.phase != Phase.REVOKING) {
                        rejoinSoon(client);
                    }
                }
                case UNKNOWN_MEMBER_ID -> {
                    gone(client);
                    if (client.phase != Phase.REVOKING) {
                        rejoinSoon(client);
                    }
                }
                case FENCED_INSTANCE_ID -> fenced(client);
                default -> throw new AssertionError("unexpected Heartbeat answer " + error);
            }
        }

        /**
         * The eager protocol: onPartitionsRevoked commits the positions (with the generation it had
         * when the revocation began) and gives up everything, then the member joins again; a slow
         * member takes longer than the rebalance timeout.
         */
        void revokeAndJoin(Client client) {
            client.phase = Phase.REVOKING;
            String memberId = client.memberId;
            int generation = client.generation;
            long revokeMs = 1 + random.nextInt(50);
            if (client.slowNextRevoke) {
                client.slowNextRevoke = false;
                client.wasSlowToJoin = true;
                tally.count(SLOW_JOINS);
                revokeMs = client.rebalanceMs + 500 + random.nextInt(2000);
            }
            later(client, revokeMs, () -> {
                if (client.phase != Phase.REVOKING) {
                    return;
                }
                commit(client, memberId, generation, new TreeMap<>(client.owned));
                client.owned.clear();
                sendJoin(client);
            });
        }

        void consumeLoop(Client client) {
            if (client.phase == Phase.STABLE) {
                client.owned.replaceAll((partition, position) -> position + random.nextInt(5));
                if (random.nextInt(3) == 0 && !client.owned.isEmpty()) {
                    commit(client, client.memberId, client.generation, new TreeMap<>(client.owned));
                }
            }
            later(client, 100 + random.nextInt(300), () -> consumeLoop(client));
        }

        void commit(Client client, String memberId, int generation, Map<Integer, Long> offsets) {
            if (offsets.isEmpty()) {
                return;
            }
            Optional<String> instanceId = client.instanceId;
            send(client, () -> {
                if (!leading) {
                    tally.count(REFUSED);
                    return;
                }
                try {
                    Optional<Committer> committer = coordinator.validateCommit(GROUP, memberId, generation, instanceId);
                    if (committer.isEmpty()) {
                        tally.count(REFUSED); // no such group here (nothing stored before a failover)
                        return;
                    }
                    assertThat(committer.get()).isEqualTo(Committer.MEMBER);
                    oracle.commitAccepted(memberId, generation, offsets);
                    tally.count(ACCEPTED);
                } catch (GroupException e) {
                    assertThat(e.error())
                            .isIn(
                                    Errors.UNKNOWN_MEMBER_ID,
                                    Errors.ILLEGAL_GENERATION,
                                    Errors.REBALANCE_IN_PROGRESS,
                                    Errors.FENCED_INSTANCE_ID);
                    oracle.refused(memberId, e.error());
                    tally.count(REFUSED);
                }
            });
        }

        /** Closes: commits, then leaves (a static member by instance id, or not at all) and stops. */
        void leave(Client client) {
            if (client.phase == Phase.STABLE) {
                commit(client, client.memberId, client.generation, new TreeMap<>(client.owned));
            }
            boolean sendsLeave = client.instanceId.isEmpty() ? !client.memberId.isEmpty() : random.nextBoolean();
            if (sendsLeave) {
                LeavingMember leaving = new LeavingMember(client.memberId, client.instanceId);
                send(client, () -> {
                    if (!leading) {
                        return;
                    }
                    try {
                        List<Errors> errors = coordinator.leave(GROUP, List.of(leaving), now);
                        assertThat(errors)
                                .singleElement()
                                .isIn(Errors.NONE, Errors.UNKNOWN_MEMBER_ID, Errors.FENCED_INSTANCE_ID);
                        if (errors.getFirst() == Errors.NONE
                                && !leaving.memberId().isEmpty()) {
                            oracle.left(leaving.memberId());
                        }
                    } catch (GroupException e) {
                        assertThat(e.error()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
                    }
                });
            }
            client.alive = false;
            tally.count(LEAVES);
        }

        // ---------------------------------------------------------------- faults

        void chaos() {
            Client client = clients.get(random.nextInt(clients.size()));
            switch (random.nextInt(14)) {
                case 0 -> { // crash: no goodbye; what it sent still arrives
                    if (client.alive) {
                        client.alive = false;
                        tally.count(CRASHES);
                    }
                }
                case 1 -> {
                    if (client.alive) {
                        leave(client);
                    }
                }
                case 2, 3, 4 -> {
                    if (!client.alive) {
                        start(client);
                    }
                }
                case 5 -> { // a static member's process restarts at once, with the same instance id
                    if (client.alive && client.instanceId.isPresent()) {
                        client.alive = false;
                        start(client);
                    }
                }
                case 6 -> {
                    if (random.nextInt(3) == 0) {
                        failover();
                    }
                }
                case 7, 8 -> client.slowNextRevoke = true;
                case 9 -> client.slowNextSync = true;
                case 10 -> { // joins again on its own (a subscription change)
                    if (client.alive && client.phase == Phase.STABLE) {
                        tally.count(REJOINS);
                        revokeAndJoin(client);
                    }
                }
                default -> {}
            }
        }

        void beginQuiet() {
            quiet = true;
            for (Client client : clients) {
                client.slowNextRevoke = false;
                client.slowNextSync = false;
            }
            if (clients.stream().noneMatch(c -> c.alive)) {
                start(clients.getFirst());
            }
        }

        // ---------------------------------------------------------------- liveness

        void checkLiveness() {
            assertThat(leaderless).as("a leader after the quiet period").isFalse();
            List<Client> live = clients.stream().filter(c -> c.alive).toList();
            assertThat(live).as("live members after the quiet period").isNotEmpty();
            ClassicGroupDescription group =
                    coordinator.describe(GROUP).orElseThrow(() -> new AssertionError("Liveness: no group"));
            assertThat(group.state()).as("Liveness: the group's state").isEqualTo(ClassicGroupState.STABLE);
            Set<String> liveIds = new HashSet<>();
            Map<Integer, String> owners = new HashMap<>();
            for (Client client : live) {
                assertThat(client.phase)
                        .as("Liveness: client %d's phase", client.slot)
                        .isEqualTo(Phase.STABLE);
                assertThat(client.generation)
                        .as("Liveness: client %d's generation", client.slot)
                        .isEqualTo(group.generationId());
                liveIds.add(client.memberId);
                for (int partition : client.owned.keySet()) {
                    assertThat(owners.put(partition, client.memberId))
                            .as("Liveness: partition %d owned twice", partition)
                            .isNull();
                }
            }
            assertThat(group.members())
                    .extracting(ClassicGroupDescription.Member::memberId)
                    .as("Liveness: the members are the live clients")
                    .containsExactlyInAnyOrderElementsOf(liveIds);
            assertThat(owners.keySet()).as("Liveness: every partition owned").hasSize(partitions);
        }
    }
}
