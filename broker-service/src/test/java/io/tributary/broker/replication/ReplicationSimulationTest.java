package io.tributary.broker.replication;

import io.tributary.broker.api.DataPathMetrics;
import io.tributary.broker.api.FetchHandler;
import io.tributary.broker.api.OffsetForLeaderEpochHandler;
import io.tributary.broker.api.ProduceHandler;
import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.MetadataDelta;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.LogCrashes;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.ReadResult;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.testing.SimulationCoverage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A seeded, deterministic simulation of one partition's life across leader changes: 3 or 5 brokers,
 * each with its real replica logic (its own {@link IndexStore}, {@link ReplicaManager}, {@link
 * Partition}s and {@link PartitionLog}s on a temporary directory; the real Produce, Fetch and
 * OffsetForLeaderEpoch handlers; {@link Replication} with its {@link IsrManager} and {@link
 * ReplicaFetcher}s, whose rounds the simulation runs), a model of the coordinators' leadership and
 * ISR rules ({@link SimulatedCoordinator}), one manual clock, and a simulated network.
 *
 * <h2>The network</h2>
 *
 * Control-plane messages (registration, heartbeats and their answers, metadata images, AlterPartition
 * requests) are queued with a random delay and delivered when the clock passes it, due ones in a
 * seeded order; some are dropped; a broker cut off from the coordinators loses all of them. A lost
 * AlterPartition request fails at the broker as a timed-out call would; a lost answer is committed
 * at the coordinators and fails at the broker. Broker-to-broker requests (a fetcher's Fetch and
 * OffsetForLeaderEpoch) go through kafka-clients' codec both ways, synchronously within a step; a cut
 * link or a broker that is down refuses them, and some are lost before or after the leader handled
 * them (the fetcher sees an I/O error and reconnects).
 *
 * <h2>Steps</h2>
 *
 * Each step is one random event: a produce with acks=1 or acks=all (sent to a broker that believes
 * it leads, sometimes to any), a fetcher round on one broker, a consumer read (bounded by the high
 * watermark), a clock tick (which delivers due messages and runs heartbeats, the coordinators'
 * liveness, ISR checks and high-watermark checkpoints), a broker crash or clean stop, a restart, a
 * broker cut off from (or reconnected to) the coordinators (so that it gets fenced, and unfenced
 * when back), or a link between two brokers cut or mended. Leaders change when the coordinators fence
 * a leader and when a preferred leader returns; the ISR shrinks and expands through AlterPartition.
 *
 * <h2>A crash</h2>
 *
 * A crash is a process crash: the broker's memory is gone (no high-watermark checkpoint at close, no
 * producer snapshot, no clean-shutdown marker; waiting requests are never answered), and, sometimes,
 * the write in progress is torn (random bytes after the last batch of the active segment). The page
 * cache survives, as it does when a process dies: with the default flush policy ({@code flush.ms}
 * and {@code flush.messages} unset) nothing is fsynced, and Kafka's design (which Tributary follows)
 * makes replication, not fsync, the durability mechanism: losing every unflushed byte on a power
 * loss of the last ISR member can lose acknowledged data in Kafka too (KIP-966), so power loss is not
 * simulated. The broker's index store (RocksDB) stays open across its crashes, as if it had kept
 * everything: its partition-state writes go through RocksDB's WAL, which survives a process crash;
 * its index entries skip the WAL, and what a real crash loses of them recovery rebuilds from the log
 * ({@code RecoveryTest}, and {@code CrashTest}, which kills a child JVM, cover that). Opening RocksDB
 * again at every restart would cost most of this test's time.
 *
 * <h2>Invariants, after every step</h2>
 *
 * <ul>
 *   <li><b>One leader per epoch</b>: no two brokers ever believe they lead in the same leader epoch
 *       (nor a broker other than the one the coordinators elected).
 *   <li><b>No fenced zombie acknowledges</b>: an acks=all write is never acknowledged by a broker
 *       that the coordinators fenced once they committed a newer leader epoch. (A leader deposed by
 *       a preferred election, not fenced, may still acknowledge until it hears, as in Kafka: what it
 *       acknowledges is then on the new leader, which the next invariant checks.)
 *   <li><b>Committed is never lost</b>: every record below a high watermark any broker ever had,
 *       and every acknowledged acks=all record, is in the log of every leader of the same or a later
 *       epoch, at the same offset with the same content; a broker's log below its high watermark
 *       never disagrees with it.
 *   <li><b>The high watermark never goes back</b> on any replica while it is open.
 *   <li><b>Consumers never see data that later disappears</b>: what a consumer read is committed
 *       in the sense above.
 * </ul>
 *
 * Every fault generator must have acted over the seeds ({@link #COVERAGE}: crashes, torn writes,
 * clean stops, restarts, lost control-plane messages and AlterPartition calls, lost fetches, cut
 * links, leader changes, fencings). The seed and the last events are in every failure message; pin
 * the seed in {@link #cases} to reproduce.
 */
class ReplicationSimulationTest {

    static final String TOPIC = "sim";
    static final Uuid TOPIC_ID = new Uuid(0x5137, 0x5137);
    static final int STEPS = 1500;
    static final int HEAL_STEPS = 300;
    /** Steps a healed cluster gets to have every replica in the ISR with the leader's log. */
    static final int CONVERGE_STEPS = 3000;

    static final int MIN_INSYNC_REPLICAS = 2;

    static final long HEARTBEAT_INTERVAL_MS = 500;
    static final long SESSION_TIMEOUT_MS = 3_000;
    static final long PREFERRED_LEADER_DELAY_MS = 5_000;
    static final long CHECKPOINT_INTERVAL_MS = 2_000;
    static final long MAX_MESSAGE_DELAY_MS = 250;
    static final int MESSAGE_DROP_PERCENT = 4;
    static final int REQUEST_LOSS_PERCENT = 3;
    static final int MAX_WAITING_PRODUCES = 4;
    /** Real time a step may take for waiting produce handlers to settle before the run is declared stuck. */
    static final Duration SETTLE_LIMIT = Duration.ofSeconds(30);

    /** Small fetches (a few batches each, the last often cut); no waiting (min bytes 0). */
    static final ReplicationConfig CONFIG = new ReplicationConfig(
            ReplicationConfig.DEFAULT_LISTENER,
            1024,
            4096,
            Duration.ofMillis(500),
            0,
            Duration.ofMillis(100),
            Duration.ofSeconds(5),
            Duration.ofSeconds(30),
            Duration.ofMillis(1500),
            Duration.ofMillis(500),
            Duration.ofMillis(200),
            Duration.ofSeconds(5));

    @TempDir
    Path dir;

    /**
     * Seeds run with 3 brokers; a third as many run with 5. A longer soak: {@code
     * -Dreplication.simulation.seeds=200}.
     */
    static final int SEEDS = Integer.getInteger("replication.simulation.seeds", 12);

    /** The runs of the default seeds, for which {@link #COVERAGE}'s minimums are stated. */
    static final int DEFAULT_RUNS = 12 + 12 / 3;

    static final String CRASHES = "crashes";
    static final String TORN_WRITES = "torn writes";
    static final String CLEAN_STOPS = "clean stops";
    static final String RESTARTS = "restarts";
    static final String LOST_MESSAGES = "control-plane messages lost";
    static final String LOST_ALTER_REQUESTS = "AlterPartition requests lost";
    static final String LOST_ALTER_ANSWERS = "AlterPartition answers lost";
    static final String LOST_FETCHES = "fetcher requests or answers lost";
    static final String CUT_FROM_COORDINATORS = "brokers cut off from the coordinators";
    static final String CUT_LINKS = "links cut";
    static final String LEADER_CHANGES = "new leader epochs";
    static final String FENCINGS = "fencings";

    /**
     * Minimums over the default 16 seeds, about half of what they give (printed after the run); with
     * another {@code replication.simulation.seeds} they are not checked. An AlterPartition answer is
     * lost only when the call was committed, which few are: the 16 seeds lose 3 (minimum 1).
     */
    static final SimulationCoverage COVERAGE = new SimulationCoverage("ReplicationSimulationTest", DEFAULT_RUNS)
            .require(CRASHES, 80)
            .require(TORN_WRITES, 30)
            .require(CLEAN_STOPS, 25)
            .require(RESTARTS, 110)
            .require(LOST_MESSAGES, 220)
            .require(LOST_ALTER_REQUESTS, 17)
            .require(LOST_ALTER_ANSWERS, 1)
            .require(LOST_FETCHES, 100)
            .require(CUT_FROM_COORDINATORS, 135)
            .require(CUT_LINKS, 95)
            .require(LEADER_CHANGES, 50)
            .require(FENCINGS, 120);

    @AfterAll
    static void checkCoverage() {
        COVERAGE.check();
    }

    static Stream<Arguments> cases() {
        Stream<Arguments> three =
                Stream.iterate(0, i -> i + 1).limit(SEEDS).map(i -> Arguments.of(0x51a0_0000L + 7919L * i, 3));
        Stream<Arguments> five = Stream.iterate(0, i -> i + 1)
                .limit(Math.max(1, SEEDS / 3))
                .map(i -> Arguments.of(0x51a5_0000L + 7919L * i, 5));
        return Stream.concat(three, five);
    }

    @ParameterizedTest(name = "seed {0}, {1} brokers")
    @MethodSource("cases")
    void invariantsHoldAfterEveryStep(long seed, int brokers) throws Exception {
        try (Simulation sim = new Simulation(seed, brokers, dir.resolve("seed-" + seed))) {
            sim.run(STEPS);
            sim.heal(HEAL_STEPS);
            sim.converge(CONVERGE_STEPS);
            sim.assertItDidSomething();
            COVERAGE.completed(sim.tally);
        }
    }

    // ----------------------------------------------------------------------------------------------

    /** One run. Not thread-safe: one simulation thread, plus the threads of waiting acks=all produces. */
    static final class Simulation implements AutoCloseable {

        private static final ConnectionInfo CONNECTION =
                new ConnectionInfo("sim", new InetSocketAddress("127.0.0.1", 40000), "kafka");

        final long seed;
        final Random random;
        final ManualClock clock = new ManualClock(1_000_000);
        final SimulatedCoordinator coordinator;
        final TreeMap<Integer, SimBroker> brokers = new TreeMap<>();
        final PriorityQueue<Message> network = new PriorityQueue<>(
                Comparator.comparingLong(Message::deliverAtMs).thenComparingLong(Message::seq));
        final boolean[] cutFromCoordinator;
        final boolean[][] linkCut;
        final Deque<String> history = new ArrayDeque<>();
        final List<WaitingProduce> waiting = new ArrayList<>();
        long messageSeq;
        int step;
        long nextCoordinatorTickMs;
        int nextValue;
        int correlationId;
        /** The alter mode of the AlterPartition being delivered. */
        AlterOutcome alterOutcome = AlterOutcome.ANSWERED;

        // Invariant state.
        final Map<Integer, Integer> leaderOfEpoch = new HashMap<>();
        final IdentityHashMap<Partition, Long> lastHighWatermark = new IdentityHashMap<>();
        final IdentityHashMap<Partition, Long> verifiedBelowHighWatermark = new IdentityHashMap<>();
        final IdentityHashMap<Partition, Map.Entry<Integer, Long>> verifiedAsLeader = new IdentityHashMap<>();
        /** The committed records: the value at each offset from 0, dense. */
        final List<String> committed = new ArrayList<>();
        /** The leader epoch known to the broker that first showed each committed record below its high watermark. */
        final List<Integer> committedEpoch = new ArrayList<>();

        final List<Map.Entry<Long, List<String>>> toVerify = new ArrayList<>();

        // What happened (the run must have done something; the faults are summed in COVERAGE).
        final SimulationCoverage.Tally tally = COVERAGE.tally();
        int acksAllAcknowledged;
        final Map<String, Integer> acksAllFailed = new TreeMap<>();
        int acksOneAcknowledged;
        int acksAllAfterNewerEpoch;
        int crashes;
        int consumerRecords;
        int fetchFailures;

        enum AlterOutcome {
            ANSWERED,
            REQUEST_LOST,
            ANSWER_LOST
        }

        record Message(long deliverAtMs, long seq, String what, Runnable action) {}

        Simulation(long seed, int brokerCount, Path root) {
            this.seed = seed;
            this.random = new Random(seed);
            this.cutFromCoordinator = new boolean[brokerCount];
            this.linkCut = new boolean[brokerCount][brokerCount];
            Map<Integer, Uuid> incarnations = new TreeMap<>();
            for (int id = 0; id < brokerCount; id++) {
                SimBroker broker = new SimBroker(this, id, root.resolve("broker-" + id));
                brokers.put(id, broker);
                broker.incarnation = newIncarnation();
                incarnations.put(id, broker.incarnation);
            }
            coordinator = new SimulatedCoordinator(
                    TOPIC,
                    TOPIC_ID,
                    Map.of("min.insync.replicas", Integer.toString(MIN_INSYNC_REPLICAS)),
                    incarnations,
                    SESSION_TIMEOUT_MS,
                    PREFERRED_LEADER_DELAY_MS);
            for (SimBroker broker : brokers.values()) {
                broker.start();
                // Registered at the start: the first heartbeats come with the first ticks.
                broker.view.registered = true;
                broker.view.lastHeartbeatSentMs = clock.millis();
                broker.applyImage(coordinator.image());
            }
        }

        Uuid newIncarnation() {
            return new Uuid(random.nextLong(), random.nextLong());
        }

        void note(String event) {
            history.addLast("step " + step + " @" + clock.millis() + ": " + event);
            if (history.size() > 60) {
                history.removeFirst();
            }
        }

        AssertionError failure(String message) {
            return new AssertionError("seed " + seed + " (" + brokers.size() + " brokers), step " + step + ": "
                    + message + "\ncoordinator: " + coordinator.partition() + "\nleadership changes: "
                    + coordinator.changes() + "\nlast events:\n  " + String.join("\n  ", history));
        }

        // ---- the run

        void run(int steps) throws Exception {
            for (int i = 0; i < steps; i++, step++) {
                randomEvent();
                checkInvariants();
            }
        }

        /** Mends every link and restarts every broker, then lets replication and the coordinators settle. */
        void heal(int steps) throws Exception {
            note("heal");
            for (int i = 0; i < cutFromCoordinator.length; i++) {
                cutFromCoordinator[i] = false;
                for (int j = 0; j < cutFromCoordinator.length; j++) {
                    linkCut[i][j] = false;
                }
            }
            for (SimBroker broker : brokers.values()) {
                if (!broker.up) {
                    restart(broker);
                }
            }
            for (int i = 0; i < steps; i++, step++) {
                int what = random.nextInt(10);
                if (what < 3) {
                    tick(1 + random.nextInt(150));
                } else if (what < 8) {
                    fetchRound(randomUpBroker());
                } else if (what < 9) {
                    produce(random.nextBoolean() ? (short) -1 : (short) 1);
                } else {
                    consume();
                }
                checkInvariants();
            }
        }

        /**
         * With nothing failing any more, the cluster must end whole: the coordinators' ISR is every
         * replica, every broker has the leader's log and high watermark, and an acks=all produce is
         * acknowledged. Ticks and fetcher rounds only, until then or {@code steps}.
         */
        void converge(int steps) throws Exception {
            note("converge");
            for (int i = 0; i < steps && !converged(); i++, step++) {
                quietStep();
            }
            if (!converged()) {
                throw failure("the healed cluster did not converge: " + describe());
            }
            SimBroker leader = brokers.get(coordinator.partition().leader());
            List<String> expected = values(leader.partition().log(), 0, Long.MAX_VALUE);
            for (SimBroker broker : brokers.values()) {
                List<String> actual = values(broker.partition().log(), 0, Long.MAX_VALUE);
                if (!actual.equals(expected)) {
                    throw failure("broker " + broker.id + "'s log differs from leader " + leader.id + "'s");
                }
            }
            int acknowledged = acksAllAcknowledged;
            produceTo(leader, (short) -1);
            for (int i = 0; i < steps && !waiting.isEmpty(); i++, step++) {
                quietStep();
            }
            if (acksAllAcknowledged != acknowledged + 1) {
                throw failure("the healed cluster did not acknowledge an acks=all produce: " + describe());
            }
        }

        /** A tick (backoffs run out, messages arrive) or a round of every broker's fetchers. */
        void quietStep() {
            if (random.nextInt(4) == 0) {
                tick(1 + random.nextInt(100));
            } else {
                for (SimBroker broker : brokers.values()) {
                    fetchRound(broker);
                }
            }
            checkInvariants();
        }

        boolean converged() {
            var p = coordinator.partition();
            if (!p.hasLeader() || p.isr().size() != brokers.size()) {
                return false;
            }
            SimBroker leader = brokers.get(p.leader());
            Partition led = leader.partition();
            if (!leader.up || led == null || !led.isLeader() || led.leaderEpoch() != p.leaderEpoch()) {
                return false;
            }
            for (SimBroker broker : brokers.values()) {
                Partition replica = broker.partition();
                if (!broker.up
                        || replica == null
                        || !broker.view.isActive()
                        || replica.info().partitionEpoch() != p.partitionEpoch()
                        || replica.log().logEndOffset() != led.log().logEndOffset()
                        || replica.highWatermark() != led.log().logEndOffset()) {
                    return false;
                }
            }
            return true;
        }

        String describe() {
            StringBuilder out = new StringBuilder("coordinators " + coordinator.partition());
            for (SimBroker broker : brokers.values()) {
                Partition replica = broker.up ? broker.partition() : null;
                out.append("; broker ").append(broker.id).append(": ");
                out.append(
                        replica == null
                                ? (broker.up ? "no replica" : "down")
                                : replica.info() + " log end " + replica.log().logEndOffset() + " high watermark "
                                        + replica.highWatermark() + (broker.view.isActive() ? "" : " inactive"));
            }
            return out.toString();
        }

        void randomEvent() throws Exception {
            int roll = random.nextInt(100);
            if (roll < 18) {
                produce((short) 1);
            } else if (roll < 32) {
                produce((short) -1);
            } else if (roll < 60) {
                SimBroker broker = randomUpBroker();
                if (broker != null) {
                    fetchRound(broker);
                }
            } else if (roll < 66) {
                consume();
            } else if (roll < 90) {
                tick(1 + random.nextInt(300));
            } else if (roll < 91) {
                SimBroker broker = randomUpBroker();
                if (broker != null && upCount() > 1) {
                    crash(broker, random.nextInt(4) == 0);
                }
            } else if (roll < 96) {
                List<SimBroker> down =
                        brokers.values().stream().filter(b -> !b.up).toList();
                if (!down.isEmpty()) {
                    restart(down.get(random.nextInt(down.size())));
                }
            } else if (roll < 98) {
                int id = random.nextInt(brokers.size());
                cutFromCoordinator[id] = !cutFromCoordinator[id];
                if (cutFromCoordinator[id]) {
                    tally.count(CUT_FROM_COORDINATORS);
                }
                note("broker " + id + (cutFromCoordinator[id] ? " cut off from" : " reconnected to")
                        + " the coordinators");
            } else {
                int a = random.nextInt(brokers.size());
                int b = random.nextInt(brokers.size());
                if (a != b) {
                    linkCut[a][b] = !linkCut[a][b];
                    linkCut[b][a] = linkCut[a][b];
                    if (linkCut[a][b]) {
                        tally.count(CUT_LINKS);
                    }
                    note("link " + a + "-" + b + (linkCut[a][b] ? " cut" : " mended"));
                }
            }
        }

        int upCount() {
            return (int) brokers.values().stream().filter(b -> b.up).count();
        }

        SimBroker randomUpBroker() {
            List<SimBroker> up = brokers.values().stream().filter(b -> b.up).toList();
            return up.isEmpty() ? null : up.get(random.nextInt(up.size()));
        }

        // ---- time and the network

        void tick(long ms) {
            clock.advance(Duration.ofMillis(ms));
            long now = clock.millis();
            List<Message> due = new ArrayList<>();
            while (!network.isEmpty() && network.peek().deliverAtMs() <= now) {
                due.add(network.poll());
            }
            java.util.Collections.shuffle(due, random);
            for (Message message : due) {
                message.action().run();
            }
            if (now >= nextCoordinatorTickMs) {
                nextCoordinatorTickMs = now + HEARTBEAT_INTERVAL_MS;
                long before = coordinator.version();
                coordinator.tick(now);
                if (coordinator.version() != before) {
                    note("coordinators: " + coordinator.partition());
                    publish();
                }
            }
            for (SimBroker broker : brokers.values()) {
                if (broker.up) {
                    broker.timers(now);
                }
            }
        }

        /** A message that may be lost. */
        void send(String what, Runnable action) {
            if (random.nextInt(100) < MESSAGE_DROP_PERCENT) {
                tally.count(LOST_MESSAGES);
                note("lost: " + what);
                return;
            }
            enqueue(what, action);
        }

        /** A message delivered after a random delay. */
        void enqueue(String what, Runnable action) {
            network.add(new Message(
                    clock.millis() + 1 + random.nextInt((int) MAX_MESSAGE_DELAY_MS), messageSeq++, what, action));
        }

        /** A message from broker {@code from} to the coordinators. */
        void toCoordinator(int from, String what, Runnable action) {
            send(what, () -> {
                if (cutFromCoordinator[from]) {
                    note("cut off: " + what);
                } else {
                    action.run();
                }
            });
        }

        /** A message from the coordinators to broker {@code to}'s incarnation {@code incarnation}. */
        void toBroker(int to, Uuid incarnation, String what, Runnable action) {
            send(what, () -> {
                SimBroker broker = brokers.get(to);
                if (cutFromCoordinator[to] || !broker.up || !broker.incarnation.equals(incarnation)) {
                    return;
                }
                action.run();
            });
        }

        /** The coordinators' newest image to every broker (the metadata long poll). */
        void publish() {
            ClusterImage image = coordinator.image();
            for (SimBroker broker : brokers.values()) {
                if (broker.up) {
                    Uuid incarnation = broker.incarnation;
                    toBroker(
                            broker.id,
                            incarnation,
                            "image v" + image.version() + " to " + broker.id,
                            () -> brokers.get(broker.id).applyImage(image));
                }
            }
        }

        // ---- events

        void produce(short acks) throws Exception {
            produceTo(produceTarget(), acks);
        }

        void produceTo(SimBroker target, short acks) throws Exception {
            if (target == null) {
                return;
            }
            if (acks == -1 && waiting.size() >= MAX_WAITING_PRODUCES) {
                acks = 1;
            }
            int count = 1 + random.nextInt(3);
            List<String> values = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                values.add("v" + nextValue++);
            }
            ProduceRequest request = produceRequest(acks, values);
            if (acks == 1) {
                ProduceResponseData.PartitionProduceResponse answer =
                        firstPartition((ProduceResponse) roundTrip(target.produce, request));
                Errors error = Errors.forCode(answer.errorCode());
                note("produce acks=1 " + values + " to " + target.id + ": " + error
                        + (error == Errors.NONE ? " at " + answer.baseOffset() : ""));
                if (error == Errors.NONE) {
                    acksOneAcknowledged++;
                }
                return;
            }
            Partition partition = target.replicas.partition(TOPIC, 0).orElse(null);
            WaitingProduce produce = new WaitingProduce(target, target.incarnation, partition, values, step);
            note("produce acks=all " + values + " to " + target.id);
            produce.thread = Thread.ofPlatform()
                    .name("sim-produce-" + values.getFirst())
                    .daemon(true)
                    .start(() -> {
                        try {
                            produce.answer = firstPartition((ProduceResponse) roundTrip(target.produce, request));
                        } catch (Throwable e) {
                            produce.failure = e;
                        }
                    });
            waiting.add(produce);
        }

        /** Mostly a broker that believes it leads (a stale one too), sometimes any. */
        SimBroker produceTarget() {
            List<SimBroker> leaders = brokers.values().stream()
                    .filter(b -> b.up
                            && b.replicas
                                    .partition(TOPIC, 0)
                                    .map(Partition::isLeader)
                                    .orElse(false))
                    .toList();
            if (!leaders.isEmpty() && random.nextInt(10) > 0) {
                return leaders.get(random.nextInt(leaders.size()));
            }
            return randomUpBroker();
        }

        void fetchRound(SimBroker broker) {
            if (broker == null) {
                return;
            }
            TreeMap<Integer, ReplicaFetcher> fetchers = new TreeMap<>(broker.fetchers.fetchers());
            if (fetchers.isEmpty()) {
                return;
            }
            List<ReplicaFetcher> all = List.copyOf(fetchers.values());
            ReplicaFetcher fetcher = all.get(random.nextInt(all.size()));
            try {
                fetcher.runOnce();
            } catch (IOException | RuntimeException e) {
                fetchFailures++;
                note("fetch " + broker.id + " <- " + fetcher.sourceBrokerId() + " failed: " + e.getMessage());
                fetcher.closeChannel();
            }
        }

        void consume() throws Exception {
            SimBroker broker = randomUpBroker();
            if (broker == null) {
                return;
            }
            long offset = committed.isEmpty() ? 0 : random.nextInt(committed.size() + 1);
            Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
            data.put(
                    new TopicPartition(TOPIC, 0),
                    new FetchRequest.PartitionData(TOPIC_ID, offset, -1L, 2048, Optional.empty(), Optional.empty()));
            FetchRequest request =
                    FetchRequest.Builder.forConsumer((short) 17, 0, 0, data).build((short) 17);
            FetchResponse response = (FetchResponse) roundTrip(broker.fetch, request);
            FetchResponseData.PartitionData answer =
                    response.data().responses().getFirst().partitions().getFirst();
            if (answer.errorCode() != Errors.NONE.code()) {
                return;
            }
            MemoryRecords records = ReplicaFetcher.wholeBatches(FetchResponse.recordsOrFail(answer));
            List<String> values = new ArrayList<>();
            long first = -1;
            for (RecordBatch batch : records.batches()) {
                for (Record record : batch) {
                    if (record.offset() < offset) {
                        continue;
                    }
                    if (first < 0) {
                        first = record.offset();
                    } else if (record.offset() != first + values.size()) {
                        throw failure("a consumer read a gap at " + record.offset() + " from broker " + broker.id);
                    }
                    values.add(value(record));
                }
            }
            if (!values.isEmpty()) {
                consumerRecords += values.size();
                note("consumer read " + values.size() + " records at " + first + " from " + broker.id
                        + " (high watermark " + answer.highWatermark() + ")");
                toVerify.add(new AbstractMap.SimpleEntry<>(first, values));
            }
        }

        void crash(SimBroker broker, boolean clean) throws IOException {
            crashes++;
            tally.count(clean ? CLEAN_STOPS : CRASHES);
            abandonWaiting(broker);
            // A write can be in progress (and torn) only in a log this incarnation opened.
            boolean writing = !broker.replicas.partitions().isEmpty();
            if (clean) {
                note("broker " + broker.id + " stops cleanly");
                broker.replicas.close();
            } else {
                for (Partition partition : broker.replicas.partitions()) {
                    LogCrashes.crash(partition.log());
                }
                note("broker " + broker.id + " crashes");
            }
            broker.up = false;
            if (!clean && writing && random.nextBoolean()) {
                tearTail(broker);
            }
        }

        /** A write in progress at the crash: random bytes after the active segment's last batch. */
        void tearTail(SimBroker broker) throws IOException {
            Path partitionDir = broker.dir.resolve("data").resolve(TOPIC + "-0");
            if (!Files.isDirectory(partitionDir)) {
                return;
            }
            Optional<Path> active;
            try (Stream<Path> files = Files.list(partitionDir)) {
                active = files.filter(p -> p.getFileName().toString().endsWith(".log"))
                        .max(Comparator.comparing(p -> p.getFileName().toString()));
            }
            if (active.isPresent()) {
                byte[] torn = new byte[1 + random.nextInt(90)];
                random.nextBytes(torn);
                Files.write(active.get(), torn, StandardOpenOption.APPEND);
                tally.count(TORN_WRITES);
                note("broker " + broker.id + ": " + torn.length + " torn bytes after the last batch");
            }
        }

        void restart(SimBroker broker) {
            broker.incarnation = newIncarnation();
            broker.start();
            tally.count(RESTARTS);
            note("broker " + broker.id + " restarts as " + broker.incarnation);
            broker.register();
        }

        /** The requests waiting in a broker that stops are never answered: their threads are ended. */
        void abandonWaiting(SimBroker broker) {
            for (WaitingProduce produce : List.copyOf(waiting)) {
                if (produce.broker == broker) {
                    produce.thread.interrupt();
                    joinOrFail(produce.thread);
                    waiting.remove(produce);
                    note("produce acks=all " + produce.values + " to " + broker.id + ": never answered");
                }
            }
        }

        void joinOrFail(Thread thread) {
            try {
                if (!thread.join(SETTLE_LIMIT)) {
                    throw failure(thread.getName() + " did not stop");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw failure("interrupted");
            }
        }

        // ---- AlterPartition through the network

        ControlPlane.PartitionWrite alterPartitionAtCoordinators(
                int from, int leaderId, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
            if (alterOutcome == AlterOutcome.REQUEST_LOST) {
                tally.count(LOST_ALTER_REQUESTS);
                note("AlterPartition " + isr + " from " + from + ": request lost");
                throw new ControlPlaneException(ControlPlaneException.Kind.UNAVAILABLE, "request timed out");
            }
            ControlPlane.PartitionWrite write;
            try {
                write = coordinator.alterPartition(leaderId, leaderEpoch, partitionEpoch, isr);
            } catch (ControlPlaneException e) {
                note("AlterPartition " + isr + " from " + from + ": " + e.kind());
                throw e;
            }
            note("AlterPartition " + isr + " from " + from + ": committed " + write.partition()
                    + (alterOutcome == AlterOutcome.ANSWER_LOST ? " (answer lost)" : ""));
            publish();
            if (alterOutcome == AlterOutcome.ANSWER_LOST) {
                tally.count(LOST_ALTER_ANSWERS);
                throw new ControlPlaneException(ControlPlaneException.Kind.UNAVAILABLE, "answer lost");
            }
            return write;
        }

        void deliverAlterPartition(int from, Runnable task) {
            // Never dropped here: a lost call fails at the broker as a timed-out one (REQUEST_LOST).
            enqueue("AlterPartition from " + from, () -> {
                int roll = random.nextInt(100);
                alterOutcome = cutFromCoordinator[from] || roll < 5
                        ? AlterOutcome.REQUEST_LOST
                        : roll < 10 ? AlterOutcome.ANSWER_LOST : AlterOutcome.ANSWERED;
                try {
                    task.run();
                } finally {
                    alterOutcome = AlterOutcome.ANSWERED;
                }
            });
        }

        // ---- the codec, both ways

        AbstractResponse roundTrip(RequestHandler handler, AbstractRequest built) {
            short version = built.version();
            ApiKeys api = built.apiKey();
            AbstractRequest parsed = AbstractRequest.parseRequest(api, version, built.serialize()).request;
            RequestHeader header;
            synchronized (this) {
                header = new RequestHeader(api, version, "sim", ++correlationId);
            }
            AbstractResponse response = handler.handle(new KafkaRequest(header, parsed, CONNECTION));
            if (response instanceof FetchResponse fetch) {
                for (FetchResponseData.FetchableTopicResponse topic :
                        fetch.data().responses()) {
                    for (FetchResponseData.PartitionData partition : topic.partitions()) {
                        partition.setRecords(toMemory((Records) partition.records()));
                    }
                }
            }
            ByteBuffer bytes =
                    MessageUtil.toByteBufferAccessor(response.data(), version).buffer();
            return AbstractResponse.parseResponse(api, new ByteBufferAccessor(bytes), version);
        }

        static MemoryRecords toMemory(Records records) {
            return ReplicationTestRecords.toMemory(records);
        }

        static ProduceRequest produceRequest(short acks, List<String> values) {
            SimpleRecord[] records = values.stream()
                    .map(v -> new SimpleRecord(v.getBytes(StandardCharsets.US_ASCII)))
                    .toArray(SimpleRecord[]::new);
            return ReplicationTestRecords.produceRequest(TOPIC, acks, 600_000, records);
        }

        static ProduceResponseData.PartitionProduceResponse firstPartition(ProduceResponse response) {
            return response.data()
                    .responses()
                    .iterator()
                    .next()
                    .partitionResponses()
                    .getFirst();
        }

        static String value(Record record) {
            ByteBuffer value = record.value();
            byte[] bytes = new byte[value.remaining()];
            value.get(bytes);
            return new String(bytes, StandardCharsets.US_ASCII);
        }

        /** The values of {@code log} at offsets {@code [from, to)}, bounded by its end (offsets are dense). */
        static List<String> values(PartitionLog log, long from, long to) {
            List<String> result = new ArrayList<>();
            long offset = from;
            long end = Math.min(to, log.logEndOffset());
            while (offset < end) {
                ReadResult read = log.read(offset, 1 << 20, Long.MAX_VALUE);
                MemoryRecords memory = toMemory(read.records());
                long before = offset;
                for (RecordBatch batch : memory.batches()) {
                    for (Record record : batch) {
                        if (record.offset() < offset || record.offset() >= end) {
                            continue;
                        }
                        if (record.offset() != offset) {
                            throw new IllegalStateException("a gap in the log at " + offset);
                        }
                        result.add(value(record));
                        offset++;
                    }
                }
                if (offset == before) {
                    break;
                }
            }
            return result;
        }

        // ---- waiting produces: settle them after every step

        /**
         * Waits until every waiting acks=all produce has finished or is parked on its partition's
         * current change signal (so nothing it would do depends on when its thread runs), then
         * handles the answers of the finished ones.
         */
        void settle() {
            long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
            while (true) {
                boolean quiet = true;
                Map<Partition, Integer> parked = new IdentityHashMap<>();
                for (WaitingProduce produce : waiting) {
                    Thread.State state = produce.thread.getState();
                    if (state == Thread.State.TERMINATED) {
                        continue;
                    }
                    if (produce.partition == null
                            || (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING)) {
                        quiet = false;
                        break;
                    }
                    parked.merge(produce.partition, 1, Integer::sum);
                }
                if (quiet) {
                    for (Map.Entry<Partition, Integer> entry : parked.entrySet()) {
                        if (entry.getKey().changeSignal().getNumberOfDependents() != entry.getValue()) {
                            quiet = false;
                            break;
                        }
                    }
                }
                if (quiet) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw failure("waiting produces did not settle: " + waiting);
                }
                Thread.onSpinWait();
                Thread.yield();
            }
            for (WaitingProduce produce : List.copyOf(waiting)) {
                if (produce.thread.getState() == Thread.State.TERMINATED) {
                    waiting.remove(produce);
                    answered(produce);
                }
            }
        }

        void answered(WaitingProduce produce) {
            if (produce.failure != null) {
                throw failure("produce " + produce.values + " failed in the handler: " + produce.failure);
            }
            Errors error = Errors.forCode(produce.answer.errorCode());
            SimBroker broker = produce.broker;
            note("produce acks=all " + produce.values + " to " + broker.id + ": " + error
                    + (error == Errors.NONE ? " at " + produce.answer.baseOffset() : ""));
            if (error != Errors.NONE) {
                acksAllFailed.merge(error.name(), 1, Integer::sum);
                return;
            }
            acksAllAcknowledged++;
            int epoch = produce.partition.leaderEpoch();
            if (!produce.partition.isLeader() || !broker.view.isActive()) {
                throw failure("broker " + broker.id + " acknowledged acks=all " + produce.values
                        + " while not an active leader");
            }
            if (coordinator.partition().leaderEpoch() > epoch) {
                if (coordinator.isFenced(broker.id, produce.incarnation)) {
                    throw failure("broker " + broker.id + ", fenced, acknowledged acks=all " + produce.values
                            + " in leader epoch " + epoch + " after the coordinators committed leader epoch "
                            + coordinator.partition().leaderEpoch());
                }
                acksAllAfterNewerEpoch++;
            }
            toVerify.add(new AbstractMap.SimpleEntry<>(produce.answer.baseOffset(), produce.values));
        }

        // ---- invariants

        void checkInvariants() {
            try {
                checkInvariantsNow();
            } catch (org.apache.kafka.common.KafkaException e) {
                // Kafka's API exceptions carry no stack trace: name where it happened.
                AssertionError error = failure("reading a log failed: " + e);
                error.initCause(e);
                throw error;
            }
        }

        void checkInvariantsNow() {
            settle();
            if (coordinator.partition().hasLeader()) {
                claimEpoch(
                        coordinator.partition().leaderEpoch(),
                        coordinator.partition().leader(),
                        "the coordinators");
            }
            for (SimBroker broker : brokers.values()) {
                if (!broker.up) {
                    continue;
                }
                Partition partition = broker.replicas.partition(TOPIC, 0).orElse(null);
                if (partition == null) {
                    continue;
                }
                long hw = partition.highWatermark();
                Long last = lastHighWatermark.put(partition, hw);
                if (last != null && hw < last) {
                    throw failure("broker " + broker.id + "'s high watermark went back from " + last + " to " + hw);
                }
                if (partition.isLeader()) {
                    claimEpoch(partition.leaderEpoch(), broker.id, "broker " + broker.id);
                }
                commitBelowHighWatermark(broker, partition, hw);
            }
            for (Map.Entry<Long, List<String>> entry : toVerify) {
                long base = entry.getKey();
                List<String> values = entry.getValue();
                for (int i = 0; i < values.size(); i++) {
                    long offset = base + i;
                    if (offset >= committed.size()
                            || !committed.get((int) offset).equals(values.get(i))) {
                        throw failure("acknowledged or consumed " + values.get(i) + " at " + offset
                                + " is not committed there (committed: "
                                + (offset < committed.size() ? committed.get((int) offset) : "nothing yet") + ")");
                    }
                }
            }
            toVerify.clear();
            for (SimBroker broker : brokers.values()) {
                if (!broker.up) {
                    continue;
                }
                Partition partition = broker.replicas.partition(TOPIC, 0).orElse(null);
                if (partition != null && partition.isLeader()) {
                    checkLeaderHasCommitted(broker, partition);
                }
            }
        }

        void claimEpoch(int epoch, int broker, String who) {
            Integer previous = leaderOfEpoch.putIfAbsent(epoch, broker);
            if (previous != null && previous != broker) {
                throw failure(who + " has broker " + broker + " lead in leader epoch " + epoch + ", which broker "
                        + previous + " led");
            }
        }

        /** Everything below a high watermark is committed: new records join, older ones must agree. */
        void commitBelowHighWatermark(SimBroker broker, Partition partition, long hw) {
            long from = verifiedBelowHighWatermark.getOrDefault(
                    partition, partition.log().logStartOffset());
            if (hw <= from) {
                return;
            }
            List<String> values = values(partition.log(), from, hw);
            if (values.size() != hw - from) {
                throw failure("broker " + broker.id + "'s log ends at "
                        + partition.log().logEndOffset() + ", below its high watermark " + hw);
            }
            for (int i = 0; i < values.size(); i++) {
                long offset = from + i;
                if (offset < committed.size()) {
                    if (!committed.get((int) offset).equals(values.get(i))) {
                        throw failure("broker " + broker.id + " has " + values.get(i) + " at " + offset
                                + ", below its high watermark " + hw + ", where " + committed.get((int) offset)
                                + " was committed");
                    }
                } else if (offset == committed.size()) {
                    committed.add(values.get(i));
                    committedEpoch.add(partition.leaderEpoch());
                } else {
                    throw failure("committed offsets are not dense at " + offset);
                }
            }
            verifiedBelowHighWatermark.put(partition, hw);
        }

        /** A leader in epoch E has every record committed in epoch E or before, unchanged. */
        void checkLeaderHasCommitted(SimBroker broker, Partition partition) {
            int epoch = partition.leaderEpoch();
            long end = partition.log().logEndOffset();
            Map.Entry<Integer, Long> verified = verifiedAsLeader.get(partition);
            long from = verified != null && verified.getKey() == epoch
                    ? verified.getValue()
                    : partition.log().logStartOffset();
            long upTo = Math.min(end, committed.size());
            if (upTo > from) {
                List<String> values = values(partition.log(), from, upTo);
                for (int i = 0; i < values.size(); i++) {
                    int offset = (int) (from + i);
                    if (committedEpoch.get(offset) <= epoch
                            && !committed.get(offset).equals(values.get(i))) {
                        throw failure("leader " + broker.id + " (epoch " + epoch + ") has " + values.get(i) + " at "
                                + offset + " where " + committed.get(offset) + " was committed in epoch "
                                + committedEpoch.get(offset));
                    }
                }
                verifiedAsLeader.put(partition, new AbstractMap.SimpleEntry<>(epoch, upTo));
            }
            for (long offset = end; offset < committed.size(); offset++) {
                if (committedEpoch.get((int) offset) <= epoch) {
                    throw failure("leader " + broker.id + " (epoch " + epoch + ", log end " + end + ") lacks "
                            + committed.get((int) offset) + " at " + offset + ", committed in epoch "
                            + committedEpoch.get((int) offset));
                }
            }
        }

        void assertItDidSomething() {
            String stats = "acks=all acknowledged " + acksAllAcknowledged + ", failed " + acksAllFailed
                    + ", acknowledged after a newer epoch " + acksAllAfterNewerEpoch + "; acks=1 acknowledged "
                    + acksOneAcknowledged + "; committed " + committed.size() + "; consumed " + consumerRecords
                    + "; crashes " + crashes + "; fetch failures " + fetchFailures + "; leader epochs "
                    + leaderOfEpoch.size() + "; ISR/leader changes "
                    + coordinator.changes().size();
            tally.add(LEADER_CHANGES, Math.max(0, leaderOfEpoch.size() - 1));
            tally.add(FENCINGS, coordinator.fencings());
            System.out.println("seed " + seed + " (" + brokers.size() + " brokers): " + stats + "; faults " + tally);
            if (acksAllAcknowledged == 0 || committed.isEmpty() || leaderOfEpoch.size() < 2) {
                throw failure("the run proved little: " + stats);
            }
        }

        @Override
        public void close() {
            for (WaitingProduce produce : List.copyOf(waiting)) {
                produce.thread.interrupt();
                try {
                    produce.thread.join(SETTLE_LIMIT);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            waiting.clear();
            for (SimBroker broker : brokers.values()) {
                if (broker.up) {
                    broker.replicas.close();
                    broker.up = false;
                }
                if (broker.store != null) {
                    broker.store.close();
                }
            }
        }
    }

    /** An acks=all produce whose handler runs (and waits) on its own thread. */
    static final class WaitingProduce {
        final SimBroker broker;
        final Uuid incarnation;
        final Partition partition;
        final List<String> values;
        final int step;
        Thread thread;
        volatile ProduceResponseData.PartitionProduceResponse answer;
        volatile Throwable failure;

        WaitingProduce(SimBroker broker, Uuid incarnation, Partition partition, List<String> values, int step) {
            this.broker = broker;
            this.incarnation = incarnation;
            this.partition = partition;
            this.values = values;
            this.step = step;
        }

        @Override
        public String toString() {
            return values + " to " + broker.id + " (step " + step + ", " + thread.getState() + ")";
        }
    }

    /** The broker's own view: the image it applied, and whether it is active (as {@code MetadataFollower}). */
    static final class SimView implements MetadataView {
        private final int id;
        private final Uuid incarnation;
        private final ManualClock clock;
        volatile ClusterImage image = ClusterImage.EMPTY;
        volatile boolean registered;
        volatile long lastHeartbeatSentMs = Long.MIN_VALUE / 2;

        SimView(int id, Uuid incarnation, ManualClock clock) {
            this.id = id;
            this.incarnation = incarnation;
            this.clock = clock;
        }

        @Override
        public ClusterImage image() {
            return image;
        }

        @Override
        public boolean awaitVersion(long version, Duration timeout) {
            return image.version() >= version;
        }

        @Override
        public int brokerId() {
            return id;
        }

        /** {@code MetadataFollower.isActive}: registered, unfenced in its image, heartbeats not lapsed. */
        @Override
        public boolean isActive() {
            if (!registered) {
                return false;
            }
            BrokerInfo self = image.brokers().get(id);
            if (self == null || !self.incarnationId().equals(incarnation) || self.fenced()) {
                return false;
            }
            return clock.millis() - lastHeartbeatSentMs < SESSION_TIMEOUT_MS;
        }
    }

    /** One broker: its real replica logic, rebuilt at every start over the same directory. */
    static final class SimBroker {
        final Simulation sim;
        final int id;
        final Path dir;
        boolean up;
        Uuid incarnation;
        IndexStore store;
        ReplicaManager replicas;
        SimView view;
        ReplicaFetcherManager fetchers;
        Replication replication;
        ProduceHandler produce;
        FetchHandler fetch;
        OffsetForLeaderEpochHandler epochs;
        long nextHeartbeatMs;
        long nextIsrCheckMs;
        long nextCheckpointMs;

        SimBroker(Simulation sim, int id, Path dir) {
            this.sim = sim;
            this.id = id;
            this.dir = dir;
        }

        void start() {
            if (store == null) {
                store = IndexStore.open(dir.resolve("index"));
            }
            replicas = new ReplicaManager(
                    new ReplicaManagerConfig(
                            id, dir.resolve("data"), LogConfig.defaults(), 1, ProducerStateConfig.defaults()),
                    store,
                    sim.clock,
                    Runnable::run);
            view = new SimView(id, incarnation, sim.clock);
            fetchers = new ReplicaFetcherManager(
                    id, CONFIG, this::connect, sim.clock, ReplicationMetrics.NONE, ReplicaFetcher::startWithoutThread);
            replication = new Replication(
                    replicas,
                    new SimControlPlane(sim, id),
                    view::isActive,
                    CONFIG,
                    fetchers,
                    new SimSender(sim, id),
                    ReplicationMetrics.NONE);
            replicas.setReplicationListener(replication);
            Duration maxWait = Duration.ofMinutes(10);
            produce = new ProduceHandler(replicas, view, maxWait, DataPathMetrics.NONE);
            fetch = new FetchHandler(replicas, view, maxWait, DataPathMetrics.NONE);
            epochs = new OffsetForLeaderEpochHandler(replicas, view);
            long now = sim.clock.millis();
            nextHeartbeatMs = now;
            nextIsrCheckMs = now + CONFIG.isrCheckInterval().toMillis();
            nextCheckpointMs = now + CHECKPOINT_INTERVAL_MS;
            up = true;
        }

        void applyImage(ClusterImage next) {
            ClusterImage previous = view.image;
            if (!up || next.version() <= previous.version()) {
                return;
            }
            view.image = next;
            replicas.onImage(previous, next);
        }

        void register() {
            Uuid me = incarnation;
            sim.toCoordinator(id, "register " + id, () -> {
                if (sim.coordinator.register(id, me)) {
                    sim.note("coordinators: broker " + id + " registered (fenced): " + sim.coordinator.partition());
                    sim.publish();
                }
                sim.toBroker(id, me, "registered " + id, () -> view.registered = true);
            });
        }

        /** Heartbeats (or registration retries), ISR checks and high-watermark checkpoints when due. */
        void timers(long now) {
            if (now >= nextHeartbeatMs) {
                nextHeartbeatMs = now + HEARTBEAT_INTERVAL_MS;
                if (!view.registered) {
                    register();
                } else {
                    Uuid me = incarnation;
                    long sentAt = now;
                    sim.toCoordinator(id, "heartbeat " + id, () -> {
                        long before = sim.coordinator.version();
                        if (!sim.coordinator.heartbeat(id, me, sim.clock.millis())) {
                            return;
                        }
                        if (sim.coordinator.version() != before) {
                            sim.note("coordinators: broker " + id + " unfenced: " + sim.coordinator.partition());
                            sim.publish();
                        }
                        ClusterImage image = sim.coordinator.image();
                        sim.toBroker(id, me, "heartbeat answer " + id, () -> {
                            view.lastHeartbeatSentMs = Math.max(view.lastHeartbeatSentMs, sentAt);
                            applyImage(image);
                        });
                    });
                }
            }
            if (now >= nextIsrCheckMs) {
                nextIsrCheckMs = now + CONFIG.isrCheckInterval().toMillis();
                replication.isrManager().checkIsr();
            }
            if (now >= nextCheckpointMs) {
                nextCheckpointMs = now + CHECKPOINT_INTERVAL_MS;
                replicas.checkpointHighWatermarks();
            }
        }

        /** A fetcher's connection to the leader at {@code endpoint}. */
        LeaderChannel connect(BrokerEndpoint endpoint) throws IOException {
            int target = endpoint.port() - SimulatedCoordinator.PORT_BASE;
            SimBroker leader = sim.brokers.get(target);
            if (leader == null || !leader.up || sim.linkCut[id][target]) {
                throw new IOException("broker " + id + " cannot connect to broker " + target);
            }
            return new SimChannel(sim, this, leader, leader.incarnation);
        }

        Partition partition() {
            return replicas.partition(TOPIC, 0).orElse(null);
        }

        RequestHandler handler(ApiKeys api) {
            return switch (api) {
                case FETCH -> fetch;
                case OFFSET_FOR_LEADER_EPOCH -> epochs;
                case PRODUCE -> produce;
                default -> throw new IllegalArgumentException("not served in the simulation: " + api);
            };
        }
    }

    /** A fetcher's connection: refused when the leader is gone or the link is cut; requests get lost. */
    static final class SimChannel implements LeaderChannel {
        private final Simulation sim;
        private final SimBroker from;
        private final SimBroker to;
        private final Uuid incarnation;
        private boolean closed;

        SimChannel(Simulation sim, SimBroker from, SimBroker to, Uuid incarnation) {
            this.sim = sim;
            this.from = from;
            this.to = to;
            this.incarnation = incarnation;
        }

        @Override
        public AbstractResponse send(AbstractRequest request, int maxResponseBytes) throws IOException {
            if (closed || !to.up || !to.incarnation.equals(incarnation) || sim.linkCut[from.id][to.id]) {
                closed = true;
                throw new IOException("connection " + from.id + " -> " + to.id + " lost");
            }
            if (sim.random.nextInt(100) < REQUEST_LOSS_PERCENT) {
                closed = true;
                sim.tally.count(LOST_FETCHES);
                throw new IOException(request.apiKey() + " " + from.id + " -> " + to.id + " lost on the way");
            }
            AbstractResponse response = sim.roundTrip(to.handler(request.apiKey()), request);
            if (sim.random.nextInt(100) < REQUEST_LOSS_PERCENT) {
                closed = true;
                sim.tally.count(LOST_FETCHES);
                throw new IOException(request.apiKey() + " answer " + to.id + " -> " + from.id + " lost");
            }
            return response;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** The AlterPartition sender: each call travels the simulated network to the coordinators. */
    static final class SimSender extends AbstractExecutorService {
        private final Simulation sim;
        private final int id;
        private boolean shutdown;

        SimSender(Simulation sim, int id) {
            this.sim = sim;
            this.id = id;
        }

        @Override
        public void execute(Runnable command) {
            sim.deliverAlterPartition(id, command);
        }

        @Override
        public void shutdown() {
            shutdown = true;
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown = true;
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }

    /** The control plane as the ISR manager calls it: AlterPartition only. */
    static final class SimControlPlane implements ControlPlane {
        private final Simulation sim;
        private final int id;

        SimControlPlane(Simulation sim, int id) {
            this.sim = sim;
            this.id = id;
        }

        @Override
        public PartitionWrite alterPartition(
                String topic, int partition, int leaderId, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
            return sim.alterPartitionAtCoordinators(id, leaderId, leaderEpoch, partitionEpoch, isr);
        }

        @Override
        public long register(int brokerId, Uuid incarnationId, String rack, List<BrokerEndpoint> endpoints) {
            throw new UnsupportedOperationException("the simulation registers brokers itself");
        }

        @Override
        public long heartbeat(int brokerId, Uuid incarnationId) {
            throw new UnsupportedOperationException("the simulation sends heartbeats itself");
        }

        @Override
        public long shutdown(int brokerId, Uuid incarnationId, Duration timeout) {
            throw new UnsupportedOperationException("not simulated");
        }

        @Override
        public MetadataDelta fetchMetadata(OptionalLong after, Duration maxWait) {
            throw new UnsupportedOperationException("the simulation delivers images itself");
        }

        @Override
        public TopicWrite createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
            throw new UnsupportedOperationException("not simulated");
        }

        @Override
        public long deleteTopic(String name) {
            throw new UnsupportedOperationException("not simulated");
        }

        @Override
        public TopicWrite alterConfigs(String topic, Map<String, String> set, Collection<String> remove) {
            throw new UnsupportedOperationException("not simulated");
        }

        @Override
        public TopicWrite createPartitions(String topic, int totalCount) {
            throw new UnsupportedOperationException("not simulated");
        }

        @Override
        public ProducerIdBlock allocateProducerIds(int brokerId, int count) {
            throw new UnsupportedOperationException("not simulated");
        }
    }
}
