package io.tributary.coordinator.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.tributary.common.testing.SimulationCoverage;
import io.tributary.coordinator.metadata.Broker;
import io.tributary.coordinator.metadata.CommandValidator;
import io.tributary.coordinator.metadata.Endpoint;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataCommand.AddPartitions;
import io.tributary.coordinator.metadata.MetadataCommand.AlterPartition;
import io.tributary.coordinator.metadata.MetadataCommand.AlterTopicConfigs;
import io.tributary.coordinator.metadata.MetadataCommand.CreateTopics;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTopic;
import io.tributary.coordinator.metadata.MetadataCommand.ElectLeaders;
import io.tributary.coordinator.metadata.MetadataCommand.ElectionType;
import io.tributary.coordinator.metadata.MetadataCommand.FenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.NewTopic;
import io.tributary.coordinator.metadata.MetadataCommand.RegisterBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.MetadataLimits;
import io.tributary.coordinator.metadata.PartitionState;
import io.tributary.coordinator.metadata.StaleEpochException;
import io.tributary.coordinator.metadata.Topic;
import io.tributary.coordinator.metadata.TopicConfigs;
import io.tributary.coordinator.metadata.TopicPartition;
import io.tributary.coordinator.placement.ReplicaPlacer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A deterministic simulation of broker liveness, after Kafka's {@code RaftEventSimulationTest}: one
 * seed drives one fake clock and every choice; brokers register, heartbeat, pause, die and come back
 * as new incarnations; topics come and go; partition leaders propose ISR changes (some stale on
 * purpose); the liveness tracker's commands go through the same validator and {@code apply} as on
 * the Raft leader. Named invariants are checked after every command, by the test, from the images
 * and from what it knows of its brokers (when each last heartbeat, whether it runs), never by
 * production checks: {@code VersionBumpsByOne}, {@code LeaderInIsr}, {@code SingleLeaderPerEpoch},
 * {@code MonotonicEpochs}, {@code LeaderChangeBumpsEpoch}, {@code ChangeBumpsPartitionEpoch}, {@code
 * CleanElection} (a leader from outside the ISR only where the topic allows unclean election), {@code
 * LeaderIsLive} (no partition is led by a fenced or unregistered broker), {@code FencedLeavesIsr} (a
 * fenced broker stays in an ISR only as its last member); after every tick {@code
 * SessionTimeoutFences} (no broker silent for longer than the session timeout is unfenced) and
 * {@code RunningBrokersUnfenced} (none that heartbeats is fenced); and every stale proposal is
 * refused ({@code StaleProposalRefused}). At the end every broker runs for a while and the cluster
 * must heal. Every fault must have happened over the seeds ({@link #COVERAGE}). To reproduce a
 * failure, run its seed alone.
 */
class LivenessSimulationTest {

    private static final int STEPS = 400;

    static LongStream seeds() {
        return LongStream.range(0, 100);
    }

    static final String PAUSES = "broker pauses";
    static final String DEATHS = "broker deaths";
    static final String INCARNATIONS = "new incarnations registered";
    static final String FENCES = "brokers fenced";
    static final String UNFENCES = "brokers unfenced";
    static final String LEADER_CHANGES = "leader changes";
    static final String UNCLEAN = "unclean elections (leader from outside the ISR)";
    static final String PREFERRED = "preferred leaders restored";
    static final String OFFLINE = "partitions gone offline";
    static final String SHRINKS = "ISR shrinks";
    static final String EXPANDS = "ISR expands";
    static final String STALE_REFUSED = "stale proposals refused";
    static final String TOPICS_CREATED = "topics created";
    static final String TOPICS_DELETED = "topics deleted";
    static final String PARTITIONS_ADDED = "partitions added";
    static final String UNCLEAN_TOGGLES = "unclean election configs changed";

    /** Minimums over the 100 seeds, about half of what they give (printed after the run). */
    static final SimulationCoverage COVERAGE = new SimulationCoverage("LivenessSimulationTest", seeds().count())
            .require(PAUSES, 1900)
            .require(DEATHS, 950)
            .require(INCARNATIONS, 950)
            .require(FENCES, 1800)
            .require(UNFENCES, 2100)
            .require(LEADER_CHANGES, 19_000)
            .require(UNCLEAN, 5000)
            .require(PREFERRED, 1300)
            .require(OFFLINE, 11_000)
            .require(SHRINKS, 5000)
            .require(EXPANDS, 2700)
            .require(STALE_REFUSED, 1100)
            .require(TOPICS_CREATED, 1900)
            .require(TOPICS_DELETED, 750)
            .require(PARTITIONS_ADDED, 550)
            .require(UNCLEAN_TOGGLES, 950);

    @ParameterizedTest
    @MethodSource("seeds")
    void invariantsHoldAfterEveryCommandAndTheClusterHeals(long seed) {
        Simulation simulation = new Simulation(seed);
        simulation.run();
        COVERAGE.completed(simulation.tally);
    }

    @AfterAll
    static void theFaultsHappened() {
        COVERAGE.check();
    }

    private enum BrokerState {
        RUNNING,
        PAUSED,
        DEAD
    }

    private static final class SimBroker {
        final int id;
        final String rack;
        int generation;
        BrokerState state = BrokerState.RUNNING;
        Instant wakeAt = Instant.MIN;
        Instant lastContact;

        SimBroker(int id, String rack) {
            this.id = id;
            this.rack = rack;
        }

        UUID incarnation() {
            return new UUID(id, generation);
        }
    }

    private static final class Simulation {
        private final long seed;
        private final RandomGenerator random;
        private final MutableClock clock = new MutableClock();
        private final LivenessConfig config =
                new LivenessConfig(Duration.ofSeconds(1), Duration.ofSeconds(6), Duration.ofSeconds(10));
        private final BrokerLiveness liveness = new BrokerLiveness(config, clock);
        private final CommandValidator validator = new CommandValidator(MetadataLimits.DEFAULTS);
        private final List<SimBroker> brokers = new ArrayList<>();
        private final Map<String, Integer> leaderByEpoch = new HashMap<>();
        private final Map<String, int[]> highestEpochs = new HashMap<>();
        private final SimulationCoverage.Tally tally = COVERAGE.tally();
        private MetadataImage image = MetadataImage.EMPTY;
        private int step;
        private int topicCounter;
        private MetadataCommand lastCommand;

        Simulation(long seed) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
        }

        void run() {
            int count = random.nextInt(3, 7);
            int racks = random.nextInt(1, 4);
            for (int id = 0; id < count; id++) {
                SimBroker b = new SimBroker(id, "rack-" + id % racks);
                brokers.add(b);
                register(b);
            }
            for (step = 0; step < STEPS; step++) {
                clock.advance(Duration.ofMillis(random.nextLong(50, 1500)));
                randomEvent();
                wakeAndHeartbeat();
                tick();
            }
            heal();
        }

        private String where() {
            return "seed %d, step %d, after %s".formatted(seed, step, lastCommand);
        }

        /** Applies a command as the Raft leader would; false if it was rejected. */
        private boolean submit(MetadataCommand command) {
            MetadataImage next;
            try {
                next = validator.validate(image, command);
            } catch (MetadataException e) {
                return false;
            }
            lastCommand = command;
            checkInvariants(image, next);
            if (next != image) {
                switch (command) {
                    case FenceBroker f -> tally.count(FENCES);
                    case UnfenceBroker u -> tally.count(UNFENCES);
                    case RegisterBroker r
                    when r.incarnationId().getLeastSignificantBits() > 0 -> tally.count(INCARNATIONS);
                    case CreateTopics c -> tally.count(TOPICS_CREATED);
                    case DeleteTopic d -> tally.count(TOPICS_DELETED);
                    case AddPartitions a -> tally.count(PARTITIONS_ADDED);
                    case AlterTopicConfigs a -> tally.count(UNCLEAN_TOGGLES);
                    default -> {}
                }
            }
            image = next;
            return true;
        }

        private void register(SimBroker b) {
            boolean ok = submit(new RegisterBroker(
                    b.id,
                    b.incarnation(),
                    List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 9092 + b.id)),
                    Optional.of(b.rack),
                    clock.millis()));
            assertThat(ok).as("registration, %s", where()).isTrue();
            b.lastContact = clock.instant();
        }

        private void wakeAndHeartbeat() {
            Instant now = clock.instant();
            for (SimBroker b : brokers) {
                if (b.state == BrokerState.PAUSED && !b.wakeAt.isAfter(now)) {
                    b.state = BrokerState.RUNNING;
                } else if (b.state == BrokerState.DEAD && !b.wakeAt.isAfter(now)) {
                    b.state = BrokerState.RUNNING;
                    b.generation++;
                    register(b);
                }
                if (b.state == BrokerState.RUNNING) {
                    liveness.heartbeat(image, b.id, b.incarnation()).ifPresent(this::submit);
                    b.lastContact = now;
                }
            }
        }

        private void tick() {
            liveness.tick(image).forEach(this::submit);
            for (SimBroker b : brokers) {
                if (!image.broker(b.id).fenced()) {
                    // Nobody silent for longer than the session timeout is left unfenced.
                    assertThat(Duration.between(b.lastContact, clock.instant()))
                            .as("SessionTimeoutFences: broker %d unfenced, %s", b.id, where())
                            .isLessThanOrEqualTo(config.sessionTimeout());
                } else {
                    // And nobody that heartbeats is left fenced (its heartbeat just unfenced it).
                    assertThat(b.state)
                            .as("RunningBrokersUnfenced: broker %d heartbeats but is fenced, %s", b.id, where())
                            .isNotEqualTo(BrokerState.RUNNING);
                }
            }
        }

        private <T> Optional<T> pick(List<T> list) {
            return list.isEmpty() ? Optional.empty() : Optional.of(list.get(random.nextInt(list.size())));
        }

        private List<TopicPartition> partitions() {
            List<TopicPartition> all = new ArrayList<>();
            image.topics().values().forEach(t -> {
                for (int i = 0; i < t.partitions().size(); i++) {
                    all.add(new TopicPartition(t.name(), i));
                }
            });
            return all;
        }

        private void randomEvent() {
            int roll = random.nextInt(100);
            Instant now = clock.instant();
            if (roll < 10) {
                pick(brokers.stream()
                                .filter(b -> b.state == BrokerState.RUNNING)
                                .toList())
                        .ifPresent(b -> {
                            b.state = BrokerState.PAUSED;
                            b.wakeAt = now.plusMillis(random.nextLong(2_000, 12_000));
                            tally.count(PAUSES);
                        });
            } else if (roll < 15) {
                pick(brokers.stream().filter(b -> b.state != BrokerState.DEAD).toList())
                        .ifPresent(b -> {
                            b.state = BrokerState.DEAD;
                            b.wakeAt = now.plusMillis(random.nextLong(3_000, 20_000));
                            tally.count(DEATHS);
                        });
            } else if (roll < 25) {
                createTopic();
            } else if (roll < 29) {
                pick(List.copyOf(image.topics().keySet())).ifPresent(t -> submit(new DeleteTopic(t)));
            } else if (roll < 32) {
                pick(List.copyOf(image.topics().values())).ifPresent(t -> {
                    try {
                        submit(new AddPartitions(
                                t.name(), t.partitions().size(), ReplicaPlacer.place(image, 1, t.replicationFactor())));
                    } catch (MetadataException e) {
                        // too few live brokers for the topic's replication factor
                    }
                });
            } else if (roll < 37) {
                pick(List.copyOf(image.topics().values()))
                        .ifPresent(t -> submit(new AlterTopicConfigs(
                                t.name(),
                                Map.of(
                                        TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE,
                                        Boolean.toString(!t.uncleanLeaderElectionEnabled())),
                                List.of())));
            } else if (roll < 60) {
                pick(partitions()).ifPresent(this::leaderProposesIsrChange);
            } else if (roll < 66) {
                pick(partitions()).ifPresent(this::staleProposalIsRefused);
            } else if (roll < 69) {
                pick(partitions()).ifPresent(tp -> submit(new ElectLeaders(ElectionType.UNCLEAN, List.of(tp))));
            }
        }

        private void createTopic() {
            int partitions = random.nextInt(1, 5);
            int rf = random.nextInt(1, 4);
            List<List<Integer>> assignments;
            try {
                assignments = ReplicaPlacer.place(image, partitions, rf);
            } catch (MetadataException e) {
                return; // not enough live brokers right now
            }
            Map<String, String> configs =
                    random.nextInt(3) == 0 ? Map.of(TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE, "true") : Map.of();
            submit(new CreateTopics(List.of(new NewTopic(
                    "topic-" + topicCounter++, new UUID(random.nextLong(), random.nextLong()), assignments, configs))));
        }

        private SimBroker broker(int id) {
            return brokers.get(id);
        }

        /** The leader drops followers that are not running and adds running, unfenced replicas. */
        private void leaderProposesIsrChange(TopicPartition tp) {
            PartitionState p = image.partitionState(tp).orElseThrow();
            if (p.offline() || broker(p.leader()).state != BrokerState.RUNNING) {
                return;
            }
            List<Integer> isr = new ArrayList<>();
            for (int r : p.replicas()) {
                boolean running = broker(r).state == BrokerState.RUNNING && image.isLive(r);
                if (r == p.leader() || (running && (p.isr().contains(r) || random.nextBoolean()))) {
                    isr.add(r);
                }
            }
            submit(new AlterPartition(
                    tp.topic(), tp.partition(), p.leader(), p.leaderEpoch(), p.partitionEpoch(), isr));
        }

        /** A proposal at an old epoch or from a non-leader never changes anything. */
        private void staleProposalIsRefused(TopicPartition tp) {
            PartitionState p = image.partitionState(tp).orElseThrow();
            AlterPartition stale;
            if (p.partitionEpoch() > 0 && random.nextBoolean()) {
                stale = new AlterPartition(
                        tp.topic(), tp.partition(), p.leader(), p.leaderEpoch(), p.partitionEpoch() - 1, p.isr());
            } else if (p.leaderEpoch() > 0 && random.nextBoolean()) {
                stale = new AlterPartition(
                        tp.topic(), tp.partition(), p.leader(), p.leaderEpoch() - 1, p.partitionEpoch(), p.isr());
            } else {
                int notLeader = p.replicas().stream()
                        .filter(r -> r != p.leader())
                        .findFirst()
                        .orElse(p.leader() + 100);
                stale = new AlterPartition(
                        tp.topic(), tp.partition(), notLeader, p.leaderEpoch(), p.partitionEpoch(), List.of(notLeader));
            }
            try {
                validator.validate(image, stale);
                fail("StaleProposalRefused: %s was accepted, %s", stale, where());
            } catch (StaleEpochException expected) {
                tally.count(STALE_REFUSED);
            }
        }

        /** Every broker comes back and stays; leaders restore full ISRs; the cluster must heal. */
        private void heal() {
            for (SimBroker b : brokers) {
                if (b.state != BrokerState.RUNNING) {
                    b.wakeAt = clock.instant();
                }
            }
            for (int i = 0; i < 120; i++, step++) {
                clock.advance(Duration.ofMillis(500));
                wakeAndHeartbeat();
                for (TopicPartition tp : partitions()) {
                    PartitionState p = image.partitionState(tp).orElseThrow();
                    if (!p.offline()) {
                        submit(new AlterPartition(
                                tp.topic(),
                                tp.partition(),
                                p.leader(),
                                p.leaderEpoch(),
                                p.partitionEpoch(),
                                p.replicas()));
                    }
                }
                tick();
            }
            for (SimBroker b : brokers) {
                assertThat(image.broker(b.id).fenced())
                        .as("Healed: broker %d fenced, %s", b.id, where())
                        .isFalse();
            }
            for (TopicPartition tp : partitions()) {
                PartitionState p = image.partitionState(tp).orElseThrow();
                assertThat(p.leader())
                        .as("Healed: %s is led by its preferred replica (%s), %s", tp, p, where())
                        .isEqualTo(p.preferredLeader());
                assertThat(p.isr())
                        .as("Healed: %s has a full ISR, %s", tp, where())
                        .isEqualTo(p.replicas());
            }
        }

        private void checkInvariants(MetadataImage before, MetadataImage after) {
            if (after == before) {
                return;
            }
            assertThat(after.version()).as("VersionBumpsByOne, %s", where()).isEqualTo(before.version() + 1);
            for (Topic t : after.topics().values()) {
                for (int i = 0; i < t.partitions().size(); i++) {
                    PartitionState p = t.partitions().get(i);
                    if (!p.offline()) {
                        Broker leader = after.brokers().get(p.leader());
                        assertThat(leader != null && !leader.fenced())
                                .as("LeaderIsLive: %s-%d led by %s, %s", t.name(), i, leader, where())
                                .isTrue();
                    }
                    for (int r : p.isr()) {
                        Broker member = after.brokers().get(r);
                        assertThat(member != null
                                        && (!member.fenced() || p.isr().size() == 1))
                                .as("FencedLeavesIsr: %s-%d %s has %s, %s", t.name(), i, p, member, where())
                                .isTrue();
                    }
                }
            }
            for (Topic t : after.topics().values()) {
                Topic old = before.topics().get(t.name());
                boolean sameTopic = old != null && old.id().equals(t.id());
                for (int i = 0; i < t.partitions().size(); i++) {
                    PartitionState p = t.partitions().get(i);
                    String key = t.id() + "-" + i;
                    String tp = t.name() + "-" + i;
                    assertThat(p.offline() || p.isr().contains(p.leader()))
                            .as("LeaderInIsr: %s %s, %s", tp, p, where())
                            .isTrue();
                    Integer earlier = leaderByEpoch.putIfAbsent(key + "@" + p.leaderEpoch(), p.leader());
                    assertThat(earlier == null || earlier == p.leader())
                            .as(
                                    "SingleLeaderPerEpoch: %s epoch %d had leader %s, now %d, %s",
                                    tp, p.leaderEpoch(), earlier, p.leader(), where())
                            .isTrue();
                    int[] highest = highestEpochs.getOrDefault(key, new int[] {0, 0});
                    assertThat(p.leaderEpoch() >= highest[0] && p.partitionEpoch() >= highest[1])
                            .as("MonotonicEpochs: %s %s after (%d, %d), %s", tp, p, highest[0], highest[1], where())
                            .isTrue();
                    highestEpochs.put(key, new int[] {p.leaderEpoch(), p.partitionEpoch()});
                    if (!sameTopic || i >= old.partitions().size()) {
                        continue;
                    }
                    PartitionState q = old.partitions().get(i);
                    if (p.leader() != q.leader()) {
                        assertThat(p.leaderEpoch())
                                .as("LeaderChangeBumpsEpoch: %s, %s", tp, where())
                                .isGreaterThan(q.leaderEpoch());
                        if (p.offline()) {
                            tally.count(OFFLINE);
                        } else {
                            tally.count(LEADER_CHANGES);
                            assertThat(q.isr().contains(p.leader()) || t.uncleanLeaderElectionEnabled())
                                    .as(
                                            "CleanElection: %s leader %d from outside ISR %s without unclean election, %s",
                                            tp, p.leader(), q.isr(), where())
                                    .isTrue();
                            if (!q.isr().contains(p.leader())) {
                                tally.count(UNCLEAN);
                            }
                            if (p.leader() == p.preferredLeader()
                                    && lastCommand instanceof ElectLeaders e
                                    && e.type() == ElectionType.PREFERRED) {
                                tally.count(PREFERRED);
                            }
                        }
                    }
                    if (p.isr().size() < q.isr().size()) {
                        tally.count(SHRINKS);
                    } else if (p.isr().size() > q.isr().size()) {
                        tally.count(EXPANDS);
                    }
                    if (!p.isr().equals(q.isr()) || p.leader() != q.leader()) {
                        assertThat(p.partitionEpoch())
                                .as("ChangeBumpsPartitionEpoch: %s, %s", tp, where())
                                .isGreaterThan(q.partitionEpoch());
                    }
                }
            }
        }
    }
}
