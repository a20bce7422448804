package io.tributary.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.tributary.common.testing.SimulationCoverage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
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
 * ({@link Client#owned}); and the test keeps its own record of each member id ({@link Answered}):
 * when the coordinator last answered it, the epoch and assignment it was told, since when it has
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

    private static final String GROUP = "sim";
    private static final int HEARTBEAT_MS = 500;
    private static final int SESSION_MS = 3000;
    private static final int REBALANCE_MS = 2000;
    private static final int REQUEST_TIMEOUT_MS = 1000;
    private static final long CHAOS_MS = 60_000;
    private static final long QUIET_MS = 40_000;
    private static final int TICK_MS = 100;
    private static final long T0 = 1_800_000_000_000L;
    private static final long NOT_ASKED = Long.MIN_VALUE;

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

    /**
     * What the coordinator's answers told the test about one member id: the test's own record,
     * kept from the answers as they were given (whether or not they reached the member), never read
     * from the coordinator's state.
     */
    private static final class Answered {
        /** When the coordinator computed its last answer released without an error. */
        long lastHeardAt;
        /** Since when its session runs: that answer, or a later load that found it stored. */
        long sessionFrom;
        /**
         * When the coordinator last served one of its heartbeats, answered or not: its session runs
         * from then in the coordinator's memory (a failed write or a failover loads it with a fresh
         * session), so its commits are accepted until a session after it.
         */
        long servedAt;
        /** Whether its last answered heartbeat was a leave. */
        boolean left;
        /**
         * Whether a write about it failed but was committed all the same (an unknown outcome), so
         * what is stored of it may be a step ahead of its last answer (until the next one).
         */
        boolean aheadOfItsAnswer;
        /** The epoch it was last told. */
        int epoch;
        /** The assignment it was last told. */
        SortedSet<TopicIdPartition> told = new TreeSet<>();
        /** Since when it has been asked to give up partitions it has not said it gave up. */
        long revokeAskedAt = NOT_ASKED;
    }

    private static final class Client {
        final int slot;
        final Optional<String> instanceId;
        /** Topic names it subscribes to; empty when it subscribes by {@link #regex}. */
        final List<String> topics;
        /** A regular expression it subscribes with instead (RE2 syntax, full match). */
        final Optional<String> regex;

        String memberId;
        int incarnation;
        boolean alive;
        int epoch;
        boolean needFull = true;
        long inFlightRequest = -1;
        long inFlightSentAt;
        long requestCounter;
        /** What this member consumes now, and the next offset it would commit. */
        final Map<TopicIdPartition, Long> owned = new TreeMap<>();
        /** Partitions it was told to revoke and has not yet (a slow member). */
        final SortedSet<TopicIdPartition> revoking = new TreeSet<>();

        long revokeAt = Long.MAX_VALUE;
        long lastMessageAt;

        Client(int slot, Optional<String> instanceId, List<String> topics, Optional<String> regex) {
            this.regex = regex;
            this.slot = slot;
            this.instanceId = instanceId;
            this.topics = topics;
        }
    }

    private final class Simulation {
        final long seed;
        final SplittableRandom random;
        final FakeTopics topics = new FakeTopics();
        final GroupConfig config;
        final SimulatedGroupStore store = new SimulatedGroupStore();
        GroupCoordinator coordinator;
        final PriorityQueue<Event> queue = new PriorityQueue<>(
                (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.sequence, b.sequence));
        final List<Client> clients = new ArrayList<>();
        final Map<String, Long> committed = new HashMap<>();
        final SimulationCoverage.Tally tally = COVERAGE.tally();
        /** The test's record of every member id the coordinator answered. */
        final Map<String, Answered> answered = new HashMap<>();
        /** The member id the coordinator's answers last gave each partition to. */
        final Map<TopicIdPartition, String> givenTo = new HashMap<>();

        long sequence;
        long now = T0;
        boolean quiet;
        int failovers;
        int lastStableEpoch = -1;

        Simulation(long seed) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
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
                clients.add(new Client(i, instance, subscription, regex));
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
        void send(Client client, Runnable atCoordinator) {
            long deliverAt = Math.max(client.lastMessageAt, now + delay());
            client.lastMessageAt = deliverAt;
            if (!dropped()) {
                at(deliverAt, atCoordinator);
            }
        }

        void run() {
            for (Client client : clients) {
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
                checkInvariants();
            }
            checkEventuallyOwned();
            assertThat(tally.get(ACCEPTED)).as("some commits were accepted").isPositive();
        }

        // ---------------------------------------------------------------- clients

        void start(Client client) {
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

        boolean current(Client client, int incarnation) {
            return client.alive && client.incarnation == incarnation;
        }

        void heartbeatLoop(Client client, int incarnation) {
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

        void sendHeartbeat(Client client) {
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
                Optional.ofNullable(answered.get(heartbeat.memberId())).ifPresent(seen -> seen.servedAt = computedAt);
            }
            if (!pending.written().isDone()) {
                tally.count(ANSWERS_HELD);
            }
            pending.written().thenAccept(failure -> {
                if (failure.isPresent()) {
                    deliver(failure.get(), onAnswer);
                } else {
                    observe(heartbeat, pending.response(), computedAt);
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

        void onResponse(Client client, int incarnation, long request, Object answer) {
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
                    Long offset = committed.get(key(partition));
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
        void revokeNow(Client client) {
            client.revokeAt = Long.MAX_VALUE;
            if (client.revoking.isEmpty()) {
                return;
            }
            commit(client, client.revoking);
            client.revoking.forEach(client.owned::remove);
            client.revoking.clear();
            client.needFull = true; // the next heartbeat lists what it owns now
        }

        void consumeLoop(Client client, int incarnation) {
            if (!current(client, incarnation)) {
                return;
            }
            client.owned.replaceAll((partition, position) -> position + random.nextInt(5));
            if (random.nextInt(3) == 0 && client.epoch > 0 && !client.owned.isEmpty()) {
                commit(client, client.owned.keySet());
            }
            at(now + 100 + random.nextInt(300), () -> consumeLoop(client, incarnation));
        }

        void commit(Client client, Set<TopicIdPartition> partitions) {
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
            // ZombieCommitsRejected, from the test's record: removed after a failover or a session
            // timeout (at the next timer tick), the member's commits are refused.
            Answered seen = answered.get(memberId);
            assertThat(seen)
                    .as("ZombieCommitsRejected: %s was accepted, never answered as a member", memberId)
                    .isNotNull();
            assertThat(now - Math.max(seen.sessionFrom, seen.servedAt))
                    .as("ZombieCommitsRejected: %s was accepted, silent for longer than its session", memberId)
                    .isLessThanOrEqualTo(SESSION_MS + TICK_MS);
            offsets.forEach((partition, offset) -> assertThat(givenTo.get(partition))
                    .as("StaleCommitsRejected: %s committed %s, last given to another member", memberId, partition)
                    .isEqualTo(memberId));
            // The same, as the coordinator describes itself (an extra check).
            assertThat(member)
                    .as("ZombieCommitsRejected: %s was accepted without being a member", memberId)
                    .isPresent();
            // KIP-1251: an older epoch commits only partitions owned since then (checked below: still owned).
            assertThat(member.get().memberEpoch()).as("StaleCommitsRejected").isGreaterThanOrEqualTo(epoch);
            Set<TopicIdPartition> ownedThere = new TreeSet<>(member.get().assigned());
            ownedThere.addAll(member.get().pendingRevocation());
            offsets.forEach((partition, offset) -> {
                assertThat(ownedThere)
                        .as("StaleCommitsRejected: %s committed %s it does not own", memberId, partition)
                        .contains(partition);
                Long previous = committed.get(key(partition));
                assertThat(offset)
                        .as("MonotonicCommits: %s by %s", partition, memberId)
                        .isGreaterThanOrEqualTo(previous == null ? 0 : previous);
                committed.put(key(partition), offset);
            });
            tally.count(ACCEPTED);
        }

        // ---------------------------------------------------------------- the test's record

        /**
         * Records a heartbeat the coordinator answered, and checks {@code RevokeBeforeMove} on it:
         * each partition the answer gives is owned by no other live member that the coordinator
         * may not have removed.
         */
        void observe(HeartbeatRequest request, HeartbeatResponse response, long computedAt) {
            if (request.memberEpoch() < 0) {
                // A leave: the member stopped before it was sent.
                Optional.ofNullable(answered.get(request.memberId())).ifPresent(seen -> seen.left = true);
                return;
            }
            String memberId = request.memberId();
            Answered seen = answered.computeIfAbsent(memberId, id -> new Answered());
            boolean join = request.memberEpoch() == HeartbeatRequest.JOIN_EPOCH;
            if (join) {
                seen.told = new TreeSet<>(); // it joins owning nothing
            }
            // Revocation acknowledged: at its current epoch (or joining), it lists only what it was told.
            boolean ackAllowed = join || request.memberEpoch() == seen.epoch;
            if (ackAllowed
                    && request.ownedPartitions().filter(seen.told::containsAll).isPresent()) {
                seen.revokeAskedAt = NOT_ASKED;
            }
            seen.lastHeardAt = computedAt;
            seen.sessionFrom = Math.max(seen.sessionFrom, computedAt);
            seen.left = false;
            seen.aheadOfItsAnswer = false;
            seen.epoch = response.memberEpoch();
            if (response.assignment().isEmpty()) {
                return;
            }
            SortedSet<TopicIdPartition> assignment = response.assignment().get();
            if (!assignment.containsAll(seen.told) && seen.revokeAskedAt == NOT_ASKED) {
                seen.revokeAskedAt = computedAt;
            }
            for (TopicIdPartition partition : assignment) {
                String previous = givenTo.put(partition, memberId);
                boolean moved = previous != null && !previous.equals(memberId);
                if (moved) {
                    tally.count(MOVES);
                }
                for (Client other : clients) {
                    if (other.alive && !other.memberId.equals(memberId) && other.owned.containsKey(partition)) {
                        assertThat(mayBeRemoved(other.memberId))
                                .as(
                                        "RevokeBeforeMove: %s given to %s while %s, still a member, owns it",
                                        partition, memberId, other.memberId)
                                .isTrue();
                        if (moved) {
                            tally.count(ZOMBIE_MOVES);
                        }
                    }
                }
            }
            seen.told = new TreeSet<>(assignment);
        }

        /**
         * Whether the protocol allows the coordinator to have removed this member by now, judged
         * from the test's record only: a failover since its last answer, its session timeout passed
         * since then, or its rebalance timeout passed since it was asked to revoke.
         */
        boolean mayBeRemoved(String memberId) {
            Answered seen = answered.get(memberId);
            return seen == null
                    || now > seen.sessionFrom + SESSION_MS
                    || (seen.revokeAskedAt != NOT_ASKED && now > seen.revokeAskedAt + REBALANCE_MS);
        }

        String key(TopicIdPartition partition) {
            return partition.topicId() + "/" + partition.partition();
        }

        // ---------------------------------------------------------------- faults

        void chaos() {
            Client client = clients.get(random.nextInt(clients.size()));
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
            checkNoRejoinAfterFailover();
            restartSessions(stored);
        }

        /** The coordinator loads the groups again (after a failed write). */
        void load() {
            Collection<StoredConsumerGroup> stored = store.groups();
            coordinator.load(stored, now);
            restartSessions(stored);
        }

        /** A load starts the session of every stored member afresh. */
        void restartSessions(Collection<StoredConsumerGroup> stored) {
            for (StoredConsumerGroup group : stored) {
                for (String memberId : group.members().keySet()) {
                    Optional.ofNullable(answered.get(memberId)).ifPresent(seen -> seen.sessionFrom = now);
                }
            }
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
                        append.records()
                                .forEach(r -> r.memberId()
                                        .map(answered::get)
                                        .ifPresent(seen -> seen.aheadOfItsAnswer = true));
                    }
                    load();
                });
            } else if (store.inFlight() > 0 && (quiet || random.nextInt(4) == 0)) {
                int count = quiet ? store.inFlight() : 1 + random.nextInt(store.inFlight());
                tally.add(WRITES_APPLIED, store.apply(coordinator, count));
            }
            at(now + (quiet ? 20 : 10 + random.nextInt(60)), this::storeStep);
        }

        /**
         * NoRejoinAfterFailover: every member whose last answer was released, that may not have been
         * removed and did not leave, is known to the new coordinator at the epoch it was told.
         */
        void checkNoRejoinAfterFailover() {
            Map<String, Integer> epochs = new HashMap<>();
            coordinator
                    .describe(GROUP)
                    .ifPresent(g -> g.members().forEach(m -> epochs.put(m.memberId(), m.memberEpoch())));
            answered.forEach((memberId, seen) -> {
                if (seen.left
                        || seen.aheadOfItsAnswer
                        || now > seen.sessionFrom + SESSION_MS
                        || (seen.revokeAskedAt != NOT_ASKED && now > seen.revokeAskedAt + REBALANCE_MS)) {
                    return;
                }
                assertThat(epochs.get(memberId))
                        .as("NoRejoinAfterFailover: %s was told epoch %d before the failover", memberId, seen.epoch)
                        .isEqualTo(seen.epoch);
                tally.count(CARRIED);
            });
        }

        void beginQuiet() {
            quiet = true;
            if (clients.stream().noneMatch(c -> c.alive)) {
                start(clients.getFirst());
            }
        }

        // ---------------------------------------------------------------- invariants

        void checkInvariants() {
            // SingleOwner on the members' side: what each was told, less what it revoked.
            Map<TopicIdPartition, String> owners = new HashMap<>();
            for (Client client : clients) {
                if (!client.alive || mayBeRemoved(client.memberId)) {
                    continue; // a zombie's commits are refused (ZombieCommitsRejected)
                }
                for (TopicIdPartition partition : client.owned.keySet()) {
                    String other = owners.put(partition, client.memberId);
                    if (other != null) {
                        fail("SingleOwner: %s owned by %s and %s", partition, other, client.memberId);
                    }
                }
            }
            Optional<GroupDescription> group = coordinator.describe(GROUP);
            Map<String, GroupDescription.Member> members = new HashMap<>();
            if (group.isPresent()) {
                GroupDescription g = group.get();
                if (g.state().equals(GroupDescription.STABLE) && g.assignmentEpoch() != lastStableEpoch) {
                    lastStableEpoch = g.assignmentEpoch();
                    tally.count(REBALANCES);
                }
                // SingleOwner in the coordinator's described state, computed here.
                Map<TopicIdPartition, String> ownersThere = new HashMap<>();
                for (GroupDescription.Member m : g.members()) {
                    members.put(m.memberId(), m);
                    for (Set<TopicIdPartition> owned : List.of(m.assigned(), m.pendingRevocation())) {
                        for (TopicIdPartition partition : owned) {
                            String other = ownersThere.put(partition, m.memberId());
                            if (other != null) {
                                fail(
                                        "SingleOwner: the coordinator has %s at %s and %s",
                                        partition, other, m.memberId());
                            }
                        }
                    }
                }
            }
            coordinator.checkInvariants(); // its own view of the same, as an extra check
            for (Client client : clients) {
                GroupDescription.Member member = client.alive ? members.get(client.memberId) : null;
                if (member == null) {
                    continue; // a zombie (or not joined yet): its commits are refused
                }
                for (TopicIdPartition partition : client.owned.keySet()) {
                    if (!member.assigned().contains(partition)
                            && !member.pendingRevocation().contains(partition)) {
                        fail(
                                "RevokeBeforeMove: %s owns %s but the coordinator gave it away (%s)",
                                client.memberId, partition, member);
                    }
                }
            }
        }

        void checkEventuallyOwned() {
            GroupDescription group = coordinator.describe(GROUP).orElseThrow(() -> new AssertionError("no group"));
            assertThat(group.state()).as("EventuallyOwned: group state").isEqualTo(GroupDescription.STABLE);
            Map<TopicIdPartition, String> owners = new HashMap<>();
            for (Client client : clients) {
                if (!client.alive) {
                    continue;
                }
                for (TopicIdPartition partition : client.owned.keySet()) {
                    assertThat(owners.put(partition, client.memberId))
                            .as("owned twice: %s", partition)
                            .isNull();
                }
            }
            for (String name : List.of("t", "u", "v")) {
                TopicView.TopicInfo topic = topics.get(name);
                if (topic == null) {
                    continue;
                }
                boolean subscribed = clients.stream()
                        .anyMatch(c -> c.alive
                                && (c.topics.contains(name)
                                        || c.regex.filter(name::matches).isPresent()));
                for (int p = 0; p < topic.partitionCount() && subscribed; p++) {
                    assertThat(owners)
                            .as("EventuallyOwned: %s-%d", name, p)
                            .containsKey(new TopicIdPartition(topic.id(), p));
                }
            }
        }
    }
}
