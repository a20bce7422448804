package io.tributary.coordinator.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.SimulationCoverage;
import io.tributary.coordinator.metadata.TopicPartition;
import io.tributary.coordinator.transaction.MarkerChannel.Markers;
import io.tributary.coordinator.transaction.TransactionStore.StoreException;
import io.tributary.coordinator.transaction.TransactionStore.StoreException.Reason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Deterministic simulation of the transaction coordinator (the style of {@code
 * GroupSimulationTest}): one seeded random generator, one simulated clock, an event queue;
 * transactional producers that start, add partitions, write to them, commit or abort, stall past
 * their timeout, crash and come back as a new instance of the same transactional id (so the old
 * one is a zombie that keeps trying); a replicated store whose writes are now and then lost,
 * applied with the answer lost, or applied late (a write a deposed leader's client resent); marker
 * requests that are dropped or delayed, and acknowledgements that are lost; coordinator failovers
 * (a new coordinator with a higher epoch over the same store; the old one's markers in flight still
 * arrive).
 *
 * <p>The partitions are the test's own model of a broker's producer state, with the rules brokers
 * follow: a write from an epoch older than the producer's latest is refused (fenced), a marker from
 * a lower coordinator epoch than the latest seen for the producer is refused, a marker closes the
 * producer's open transaction on the partition. At most one marker attempt per partition and
 * transaction is in flight from one coordinator (the marker channel's contract).
 *
 * <p>Invariants, judged from what the test saw:
 *
 * <ul>
 *   <li>{@code OneOutcome}: every partition a client transaction wrote to is closed with the same
 *       outcome (a transaction is never both committed and aborted);
 *   <li>{@code CommitOnlyIfAsked}: a transaction is committed only if its producer sent EndTxn(commit)
 *       for it, and one whose EndTxn(commit) was answered NONE is never aborted;
 *   <li>{@code FencedNeverAccepted}: once InitProducerId answered epoch {@code e} for a producer id,
 *       no AddPartitionsToTxn or EndTxn of an older epoch of it is accepted;
 *   <li>{@code ValidTransition}: every stored record follows its predecessor as {@link
 *       TransactionState#next()} allows;
 *   <li>{@code EventuallyComplete}: after a quiet period (no faults), nothing is being ended, every
 *       transaction whose EndTxn was answered NONE, or that timed out, has a marker on every partition
 *       it wrote to.
 * </ul>
 */
class TransactionSimulationTest {

    static LongStream seeds() {
        return LongStream.range(0, 200);
    }

    private static final long T0 = 1_000_000;
    private static final long CHAOS_MS = 60_000;
    private static final long QUIET_MS = 30_000;
    private static final int TIMEOUT_MS = 5_000;
    private static final List<String> IDS = List.of("a", "b", "c");
    private static final List<TopicPartition> PARTITIONS = List.of(
            new TopicPartition("t", 0),
            new TopicPartition("t", 1),
            new TopicPartition("t", 2),
            new TopicPartition("u", 0));

    static final String FAILOVERS = "failovers";
    static final String COMMITS = "commits";
    static final String ABORTS = "aborts";
    static final String TIMEOUTS = "timed-out transactions aborted";
    static final String FENCED = "zombie requests refused";
    static final String FENCED_WRITES = "zombie writes refused by a partition";
    static final String LOST_WRITES = "store writes lost";
    static final String LATE_WRITES = "store writes applied late";
    static final String CONFLICTS = "store writes refused as stale";
    static final String DROPPED_MARKERS = "markers dropped";
    static final String STALE_MARKERS = "markers refused for a lower coordinator epoch";
    static final String EXPIRED = "transactional ids expired";
    static final String RETRIED_INITS = "InitProducerId answered CONCURRENT_TRANSACTIONS";

    static final SimulationCoverage COVERAGE = new SimulationCoverage("TransactionSimulationTest", seeds().count())
            .require(FAILOVERS, 1000)
            .require(COMMITS, 5000)
            .require(ABORTS, 2500)
            .require(TIMEOUTS, 2000)
            .require(FENCED, 10000)
            .require(FENCED_WRITES, 500)
            .require(LOST_WRITES, 1500)
            .require(LATE_WRITES, 1000)
            .require(CONFLICTS, 800)
            .require(DROPPED_MARKERS, 1000)
            .require(STALE_MARKERS, 80)
            .require(EXPIRED, 200)
            .require(RETRIED_INITS, 30000);

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void transactionsEndOnceAndZombiesStayFenced(long seed) {
        Simulation simulation = new Simulation(seed);
        try {
            simulation.run();
        } catch (AssertionError e) {
            throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
        }
        COVERAGE.completed(simulation.tally);
    }

    @AfterAll
    static void theFaultsHappened() {
        COVERAGE.check();
    }

    private record Event(long time, long sequence, Runnable action) {}

    /** One client transaction, as its producer saw it. */
    private static final class ClientTxn {
        final int serial;
        final String transactionalId;
        final long producerId;
        final short epoch;
        final Set<TopicPartition> written = new TreeSet<>();
        /** What its producer asked EndTxn for (null: nothing asked yet). */
        Boolean asked;
        /** Whether EndTxn was answered NONE. */
        boolean answered;
        /** The outcome each partition's marker closed it with. */
        final Map<TopicPartition, Boolean> closed = new TreeMap<>();

        ClientTxn(int serial, String transactionalId, long producerId, short epoch) {
            this.serial = serial;
            this.transactionalId = transactionalId;
            this.producerId = producerId;
            this.epoch = epoch;
        }
    }

    /** One instance of a transactional producer. */
    private static final class Producer {
        final String transactionalId;
        long producerId = -1;
        short epoch = -1;
        boolean dead;
        int writing;
        ClientTxn txn;

        Producer(String transactionalId) {
            this.transactionalId = transactionalId;
        }
    }

    /** The test's model of one partition's producer state on its leader. */
    private static final class PartitionModel {
        final Map<Long, Short> epochs = new HashMap<>();
        final Map<Long, Integer> coordinatorEpochs = new HashMap<>();
        final Map<Long, ClientTxn> open = new HashMap<>();
    }

    private final class Simulation {
        final SplittableRandom random;
        final SimulationCoverage.Tally tally = COVERAGE.tally();
        final PriorityQueue<Event> queue = new PriorityQueue<>(
                (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.sequence, b.sequence));
        final TransactionConfig config =
                new TransactionConfig(Duration.ofMinutes(15), Duration.ofSeconds(15), 100, 10, Duration.ofMillis(300));
        final SimStore store = new SimStore();
        final Map<TopicPartition, PartitionModel> partitions = new TreeMap<>();
        final List<Producer> producers = new ArrayList<>();
        final List<ClientTxn> txns = new ArrayList<>();
        /** Per producer id, the newest epoch InitProducerId answered. */
        final Map<Long, Short> initEpochs = new HashMap<>();

        long sequence;
        long now = T0;
        boolean quiet;
        int epoch = 1;
        TransactionCoordinator coordinator;
        SimChannel channel;

        Simulation(long seed) {
            random = new SplittableRandom(seed);
            for (TopicPartition tp : PARTITIONS) {
                partitions.put(tp, new PartitionModel());
            }
            newCoordinator();
        }

        void at(long time, Runnable action) {
            queue.add(new Event(time, sequence++, action));
        }

        boolean chance(int percent) {
            return !quiet && random.nextInt(100) < percent;
        }

        void newCoordinator() {
            int myEpoch = epoch;
            channel = new SimChannel();
            coordinator =
                    new TransactionCoordinator(store.view(myEpoch), store, channel, config, () -> now, () -> myEpoch);
        }

        void run() {
            for (String id : IDS) {
                Producer p = new Producer(id);
                producers.add(p);
                at(T0 + random.nextInt(1000), () -> act(p));
            }
            for (long t = T0; t < T0 + CHAOS_MS + QUIET_MS; t += 100) {
                at(t, () -> coordinator.tick());
            }
            for (long t = T0; t < T0 + CHAOS_MS + QUIET_MS; t += 1000) {
                at(t, () -> coordinator.scan());
            }
            for (long t = T0 + 2000; t < T0 + CHAOS_MS; t += 2000) {
                at(t, this::chaos);
            }
            at(T0 + CHAOS_MS, () -> quiet = true);
            while (!queue.isEmpty() && queue.peek().time() <= T0 + CHAOS_MS + QUIET_MS) {
                Event event = queue.poll();
                now = event.time();
                event.action().run();
            }
            checkEventuallyComplete();
        }

        void chaos() {
            if (random.nextInt(3) == 0) {
                epoch++;
                tally.count(FAILOVERS);
                newCoordinator();
            }
            if (random.nextInt(4) == 0) {
                // A producer instance crashes; a new instance of its id starts (the old one may be a zombie).
                Producer old = producers.get(random.nextInt(producers.size()));
                Producer fresh = new Producer(old.transactionalId);
                producers.add(fresh);
                if (random.nextBoolean()) {
                    old.dead = true;
                }
                at(now + random.nextInt(500), () -> act(fresh));
            }
            store.applyLate();
        }

        /** One step of a producer: what a kafka-clients transactional producer would do next. */
        void act(Producer p) {
            if (p.dead) {
                return;
            }
            long next = now + 20 + random.nextInt(200);
            if (chance(2)) {
                next += TIMEOUT_MS + 1000; // stalls past its transaction timeout
            }
            try {
                if (p.producerId < 0) {
                    init(p);
                } else if (p.writing > 0) {
                    // waits for its batches' answers
                } else if (p.txn == null || p.txn.asked == null && p.txn.written.size() < 3 && random.nextInt(3) > 0) {
                    add(p);
                } else {
                    end(p);
                }
            } catch (TransactionException e) {
                handle(p, e);
            }
            if (!p.dead && !(quiet && p.txn == null && p.producerId >= 0 && random.nextInt(4) == 0)) {
                at(next, () -> act(p));
            }
        }

        void init(Producer p) {
            TransactionCoordinator.ProducerIdAndEpoch answer =
                    coordinator.initProducerId(p.transactionalId, TIMEOUT_MS, -1, (short) -1);
            Short seen = initEpochs.get(answer.producerId());
            assertThat(seen == null || seen < answer.producerEpoch())
                    .as(
                            "InitProducerId answers a new epoch each time (%s got %s after %s)",
                            p.transactionalId, answer, seen)
                    .isTrue();
            initEpochs.put(answer.producerId(), answer.producerEpoch());
            p.producerId = answer.producerId();
            p.epoch = answer.producerEpoch();
            p.txn = null;
        }

        void add(Producer p) {
            TopicPartition tp = PARTITIONS.get(random.nextInt(PARTITIONS.size()));
            coordinator.addPartitions(p.transactionalId, p.producerId, p.epoch, List.of(tp));
            checkNotFenced(p, "AddPartitionsToTxn");
            if (p.txn == null) {
                p.txn = new ClientTxn(txns.size(), p.transactionalId, p.producerId, p.epoch);
                txns.add(p.txn);
            }
            // The producer sends a transactional batch to the partition's leader; it ends the
            // transaction only once every batch is answered.
            ClientTxn txn = p.txn;
            p.writing++;
            at(now + 1 + random.nextInt(chance(10) ? 3000 : 30), () -> write(p, txn, tp));
        }

        /** A producer's transactional batch reaches a partition's leader. */
        void write(Producer p, ClientTxn txn, TopicPartition tp) {
            p.writing--;
            PartitionModel m = partitions.get(tp);
            short latest = m.epochs.getOrDefault(txn.producerId, (short) -1);
            if (txn.epoch < latest) {
                tally.count(FENCED_WRITES);
                fenced(p); // PRODUCER_FENCED from the leader
                return;
            }
            m.epochs.put(txn.producerId, txn.epoch);
            ClientTxn open = m.open.get(txn.producerId);
            if (open == null) {
                m.open.put(txn.producerId, txn);
            } else {
                assertThat(open)
                        .as("%s: a write of transaction %d joins %d, still open", tp, txn.serial, open.serial)
                        .isSameAs(txn);
            }
            txn.written.add(tp);
        }

        void end(Producer p) {
            boolean commit = p.txn.asked != null ? p.txn.asked : random.nextInt(3) > 0;
            p.txn.asked = commit;
            coordinator.endTxn(p.transactionalId, p.producerId, p.epoch, commit);
            checkNotFenced(p, "EndTxn");
            p.txn.answered = true;
            tally.count(commit ? COMMITS : ABORTS);
            p.txn = null;
        }

        void checkNotFenced(Producer p, String what) {
            Short newest = initEpochs.get(p.producerId);
            assertThat(newest == null || newest <= p.epoch)
                    .as(
                            "FencedNeverAccepted: %s of %s epoch %d accepted after epoch %s was handed out",
                            what, p.transactionalId, p.epoch, newest)
                    .isTrue();
        }

        void handle(Producer p, TransactionException e) {
            switch (e.error()) {
                case CONCURRENT_TRANSACTIONS, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> {
                    if (p.producerId < 0 && e.error() == Errors.CONCURRENT_TRANSACTIONS) {
                        tally.count(RETRIED_INITS);
                    }
                }
                case PRODUCER_FENCED, INVALID_PRODUCER_ID_MAPPING -> {
                    tally.count(FENCED);
                    fenced(p);
                }
                case INVALID_TXN_STATE -> {
                    // The transaction was aborted under it (a timeout); an EndTxn(commit) cannot follow.
                    assertThat(p.txn).isNotNull();
                    fenced(p);
                }
                default -> throw new AssertionError("unexpected " + e.error() + ": " + e.getMessage(), e);
            }
        }

        /** kafka-clients' producer is fenced for good; the application starts a new one. */
        void fenced(Producer p) {
            if (p.dead) {
                return;
            }
            p.dead = true;
            Producer fresh = new Producer(p.transactionalId);
            producers.add(fresh);
            at(now + 1 + random.nextInt(300), () -> act(fresh));
        }

        void checkEventuallyComplete() {
            assertThat(coordinator.endingCount())
                    .as("EventuallyComplete: transactions still being ended")
                    .isZero();
            for (TransactionRecord r : store.all()) {
                assertThat(r.state().preparing())
                        .as("EventuallyComplete: %s still %s", r.transactionalId(), r.state())
                        .isFalse();
            }
            for (ClientTxn t : txns) {
                if (t.answered) {
                    assertThat(t.closed.keySet())
                            .as(
                                    "EventuallyComplete: transaction %d of %s ended but not marked everywhere",
                                    t.serial, t.transactionalId)
                            .containsAll(t.written);
                }
                if (!t.closed.isEmpty() && t.asked == null) {
                    tally.count(TIMEOUTS);
                }
            }
        }

        /** A marker reaches a partition's leader: the broker's rules, then the invariants. */
        void deliver(Markers m, TopicPartition tp, Runnable ack) {
            PartitionModel p = partitions.get(tp);
            int seenCoordinator = p.coordinatorEpochs.getOrDefault(m.producerId(), 0);
            if (m.coordinatorEpoch() < seenCoordinator) {
                tally.count(STALE_MARKERS);
                return; // TRANSACTION_COORDINATOR_FENCED
            }
            short latest = p.epochs.getOrDefault(m.producerId(), (short) -1);
            if (m.producerEpoch() < latest) {
                return; // INVALID_PRODUCER_EPOCH: a marker of an older epoch
            }
            p.coordinatorEpochs.put(m.producerId(), m.coordinatorEpoch());
            p.epochs.put(m.producerId(), m.producerEpoch());
            ClientTxn t = p.open.remove(m.producerId());
            if (t != null) {
                Boolean before = t.closed.put(tp, m.commit());
                assertThat(before).isNull();
                assertThat(t.closed.values())
                        .as("OneOutcome: transaction %d of %s closed both ways", t.serial, t.transactionalId)
                        .containsOnly(m.commit());
                if (m.commit()) {
                    assertThat(t.asked)
                            .as(
                                    "CommitOnlyIfAsked: transaction %d of %s committed unasked",
                                    t.serial, t.transactionalId)
                            .isEqualTo(Boolean.TRUE);
                } else {
                    assertThat(t.answered && Boolean.TRUE.equals(t.asked))
                            .as(
                                    "CommitOnlyIfAsked: transaction %d of %s aborted after its commit was answered",
                                    t.serial, t.transactionalId)
                            .isFalse();
                }
            }
            ack.run();
        }

        /** The marker channel of one coordinator: one attempt in flight per transaction and partition. */
        final class SimChannel implements MarkerChannel {
            final Set<String> inFlight = new HashSet<>();

            @Override
            public void send(Markers markers, Acknowledgement acknowledged) {
                for (TopicPartition tp : markers.partitions()) {
                    String key = markers.transactionalId() + "/" + markers.producerId() + "/" + tp;
                    if (!inFlight.add(key)) {
                        continue;
                    }
                    long arrive = now + 1 + random.nextInt(chance(20) ? 2000 : 50);
                    if (chance(5)) {
                        tally.count(DROPPED_MARKERS);
                        at(arrive, () -> inFlight.remove(key));
                        continue;
                    }
                    at(
                            arrive,
                            () -> deliver(markers, tp, () -> {
                                boolean ackLost = chance(5);
                                at(now + 1 + random.nextInt(50), () -> {
                                    inFlight.remove(key);
                                    if (!ackLost) {
                                        acknowledged.written(markers, tp);
                                    }
                                });
                            }));
                }
            }
        }

        /** The replicated store: writes lost, applied with the answer lost, or applied late. */
        final class SimStore implements TransactionStore.ProducerIds {
            final TreeMap<String, TransactionRecord> applied = new TreeMap<>();
            final List<TransactionRecord> late = new ArrayList<>();
            long nextProducerId = 1000;

            @Override
            public long next() {
                return nextProducerId++;
            }

            Collection<TransactionRecord> all() {
                return List.copyOf(applied.values());
            }

            void applyLate() {
                for (TransactionRecord r : late) {
                    tally.count(LATE_WRITES);
                    if (!apply(r)) {
                        tally.count(CONFLICTS);
                    }
                }
                late.clear();
            }

            boolean apply(TransactionRecord r) {
                TransactionRecord stored = applied.get(r.transactionalId());
                if (r.equals(stored)) {
                    return true;
                }
                long expected = stored == null ? 0 : stored.revision() + 1;
                if (r.revision() != expected) {
                    return false;
                }
                if (stored != null) {
                    assertThat(stored.state().next())
                            .as("ValidTransition: %s from %s to %s", r.transactionalId(), stored.state(), r.state())
                            .contains(r.state());
                }
                applied.put(r.transactionalId(), r);
                return true;
            }

            TransactionStore view(int leaderEpoch) {
                return new TransactionStore() {
                    @Override
                    public Optional<TransactionRecord> get(String transactionalId) {
                        return Optional.ofNullable(applied.get(transactionalId));
                    }

                    @Override
                    public Collection<TransactionRecord> all() {
                        return SimStore.this.all();
                    }

                    @Override
                    public void store(TransactionRecord record) throws StoreException {
                        if (leaderEpoch != epoch) {
                            throw new StoreException(Reason.NOT_LEADER, "deposed");
                        }
                        int fault = quiet ? 100 : random.nextInt(100);
                        if (fault < 3) {
                            tally.count(LOST_WRITES);
                            throw new StoreException(Reason.UNAVAILABLE, "lost");
                        }
                        if (fault < 5) {
                            late.add(record);
                            throw new StoreException(Reason.UNAVAILABLE, "timed out; applied later");
                        }
                        if (!apply(record)) {
                            tally.count(CONFLICTS);
                            throw new StoreException(Reason.CONFLICT, "stale");
                        }
                        if (fault < 7) {
                            throw new StoreException(Reason.UNAVAILABLE, "applied, answer lost");
                        }
                    }

                    @Override
                    public void delete(String transactionalId, long revision) throws StoreException {
                        if (leaderEpoch != epoch) {
                            throw new StoreException(Reason.NOT_LEADER, "deposed");
                        }
                        TransactionRecord stored = applied.get(transactionalId);
                        if (stored != null && stored.revision() != revision) {
                            throw new StoreException(Reason.CONFLICT, "stale");
                        }
                        if (applied.remove(transactionalId) != null) {
                            tally.count(EXPIRED);
                        }
                    }
                };
            }
        }
    }
}
