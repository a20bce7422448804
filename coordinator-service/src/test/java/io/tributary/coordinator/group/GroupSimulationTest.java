package io.tributary.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Deterministic simulation of the consumer-group protocol (Kafka's RaftEventSimulationTest style):
 * one seeded random generator, one simulated clock, an event queue, simulated members behaving like
 * kafka-clients 4.x consumers (join, heartbeat, reconcile, consume, commit, leave, crash, slow
 * revocation, static members that restart; subscriptions by names or by regex), a network that
 * delays and drops messages (each member's messages stay in order, as on one connection), a topic
 * that grows, a topic deleted and created again, and coordinator failovers (membership dropped). Invariants are checked after every event:
 *
 * <ul>
 *   <li>{@code SingleOwner}: the coordinator never has a partition owned by two members, and no
 *       two members that the coordinator still knows own one partition on their side;
 *   <li>{@code RevokeBeforeMove}: every partition a member owns on its side is, at the coordinator,
 *       assigned to it or pending its revocation, unless the coordinator removed the member (it is
 *       then a zombie, and {@code ZombieCommitsRejected} applies);
 *   <li>{@code StaleCommitsRejected}: a commit is accepted only from a member the coordinator knows
 *       at exactly the commit's epoch, that owns the committed partition at the coordinator;
 *   <li>{@code MonotonicCommits}: a partition's committed offset never goes back (members commit
 *       only what they consumed, starting from the committed offset);
 *   <li>{@code EventuallyOwned}: after a quiet period with live members, the group is stable and
 *       each subscribed partition is owned by exactly one live member.
 * </ul>
 *
 * A failure prints its seed; pin it in {@link #seeds()} to reproduce.
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
    private static final long T0 = 1_800_000_000_000L;

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
    }

    private record Event(long time, long sequence, Runnable action) {}

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
        final GroupCoordinator coordinator;
        final PriorityQueue<Event> queue = new PriorityQueue<>(
                (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.sequence, b.sequence));
        final List<Client> clients = new ArrayList<>();
        final Map<String, Long> committed = new HashMap<>();
        long sequence;
        long now = T0;
        boolean quiet;
        int accepted;

        Simulation(long seed) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
            topics.create("t", 6);
            topics.create("u", 1 + random.nextInt(4));
            String assignor = random.nextBoolean() ? UniformAssignor.NAME : RangeAssignor.NAME;
            GroupConfig config = new GroupConfig(
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
            return !quiet && random.nextInt(100) < 3;
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
            for (long t = T0; t < T0 + CHAOS_MS + QUIET_MS; t += 100) {
                at(t, () -> coordinator.tick(now));
            }
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
            assertThat(accepted).as("some commits were accepted").isPositive();
        }

        // ---------------------------------------------------------------- clients

        void start(Client client) {
            client.alive = true;
            client.incarnation++;
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
            send(client, () -> {
                Object result;
                try {
                    result = coordinator.heartbeat(heartbeat, now);
                } catch (GroupException e) {
                    result = e.error();
                }
                Object answer = result;
                long deliverAt = now + delay();
                if (!dropped()) {
                    at(deliverAt, () -> onResponse(client, incarnation, request, answer));
                }
            });
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
                        // consumer fails on GROUP_ID_NOT_FOUND, answered only when a failover was
                        // more than a session timeout ago, and is restarted: the same here.)
                        client.owned.clear();
                        client.revoking.clear();
                        client.revokeAt = Long.MAX_VALUE;
                        client.epoch = 0;
                        client.needFull = true;
                    }
                    case UNRELEASED_INSTANCE_ID -> client.needFull = true; // try again later
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
                coordinator.validateCommit(GROUP, memberId, epoch, Optional.empty(), offsets.keySet(), now);
            } catch (GroupException e) {
                assertThat(e.error())
                        .isIn(Errors.UNKNOWN_MEMBER_ID, Errors.STALE_MEMBER_EPOCH, Errors.GROUP_ID_NOT_FOUND);
                return;
            }
            // StaleCommitsRejected
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
            accepted++;
        }

        String key(TopicIdPartition partition) {
            return partition.topicId() + "/" + partition.partition();
        }

        // ---------------------------------------------------------------- faults

        void chaos() {
            Client client = clients.get(random.nextInt(clients.size()));
            switch (random.nextInt(12)) {
                case 0 -> { // crash: no goodbye; its messages on the wire still arrive
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
                        send(client, () -> {
                            try {
                                coordinator.heartbeat(leave, now);
                            } catch (GroupException e) {
                                assertThat(e.error()).isIn(Errors.FENCED_INSTANCE_ID);
                            }
                        });
                        client.alive = false;
                        client.owned.clear();
                    }
                }
                case 2, 3, 4 -> { // (re)start a stopped member
                    if (!client.alive) {
                        start(client);
                    }
                }
                case 5 -> { // the coordinator fails over: membership is gone
                    if (random.nextInt(4) == 0) {
                        coordinator.clear(now);
                    }
                }
                case 6 -> { // a topic grows
                    if (random.nextInt(4) == 0) {
                        TopicView.TopicInfo u = topics.get("u");
                        topics.grow("u", u.partitionCount() + 1);
                    }
                }
                case 7 -> { // topic v is created, or deleted (a new v has a new id)
                    if (random.nextInt(3) == 0) {
                        if (topics.get("v") == null) {
                            topics.create("v", 1 + random.nextInt(3));
                        } else {
                            topics.delete("v");
                        }
                    }
                }
                default -> {}
            }
        }

        void beginQuiet() {
            quiet = true;
            if (clients.stream().noneMatch(c -> c.alive)) {
                start(clients.getFirst());
            }
        }

        // ---------------------------------------------------------------- invariants

        void checkInvariants() {
            coordinator.checkInvariants();
            Optional<GroupDescription> group = coordinator.describe(GROUP);
            Map<String, GroupDescription.Member> members = new HashMap<>();
            group.ifPresent(g -> g.members().forEach(m -> members.put(m.memberId(), m)));
            Map<TopicIdPartition, String> owners = new HashMap<>();
            for (Client client : clients) {
                if (!client.alive) {
                    continue;
                }
                GroupDescription.Member member = members.get(client.memberId);
                if (member == null) {
                    continue; // a zombie (or not joined yet): its commits are refused
                }
                for (TopicIdPartition partition : client.owned.keySet()) {
                    assertThat(member.assigned().contains(partition)
                                    || member.pendingRevocation().contains(partition))
                            .as(
                                    "RevokeBeforeMove: %s owns %s but the coordinator gave it away (%s)",
                                    client.memberId, partition, member)
                            .isTrue();
                    String other = owners.put(partition, client.memberId);
                    assertThat(other)
                            .as("SingleOwner: %s owned by %s and %s", partition, other, client.memberId)
                            .isNull();
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
