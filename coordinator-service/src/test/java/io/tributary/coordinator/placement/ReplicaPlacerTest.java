package io.tributary.coordinator.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.metadata.InvalidReplicationFactorException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Placement properties over seeded random clusters; the seed is in every failure message. */
class ReplicaPlacerTest {

    static LongStream seeds() {
        return LongStream.range(0, 500);
    }

    /** A random case: brokers (some racks, or none), partitions, replication factor, prior load. */
    private record Case(List<BrokerSlot> brokers, int partitions, int replicationFactor, Map<Integer, Integer> load) {

        static Case random(RandomGenerator r) {
            int n = r.nextInt(1, 13);
            int racks = r.nextInt(0, 5);
            List<BrokerSlot> brokers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int id = r.nextInt(0, 3) + i * 3; // sparse ids
                brokers.add(
                        new BrokerSlot(id, racks == 0 ? Optional.empty() : Optional.of("rack-" + r.nextInt(racks))));
            }
            Map<Integer, Integer> load = new HashMap<>();
            brokers.forEach(b -> {
                if (r.nextBoolean()) {
                    load.put(b.id(), r.nextInt(0, 5));
                }
            });
            return new Case(brokers, r.nextInt(1, 60), r.nextInt(1, n + 1), load);
        }

        List<List<Integer>> place() {
            return ReplicaPlacer.place(brokers, partitions, replicationFactor, load);
        }

        long rackCount() {
            return brokers.stream().map(BrokerSlot::domain).distinct().count();
        }

        Optional<String> rackOf(int id) {
            return brokers.stream()
                    .filter(b -> b.id() == id)
                    .findFirst()
                    .orElseThrow()
                    .rack();
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void replicasAreDistinctLiveBrokersOfTheRequestedCount(long seed) {
        Case c = Case.random(new SplittableRandom(seed));
        List<Integer> ids = c.brokers().stream().map(BrokerSlot::id).toList();
        List<List<Integer>> placement = c.place();
        assertThat(placement).as("seed %d: %s", seed, c).hasSize(c.partitions());
        for (List<Integer> replicas : placement) {
            assertThat(replicas)
                    .as("seed %d: %s", seed, c)
                    .hasSize(c.replicationFactor())
                    .doesNotHaveDuplicates()
                    .isSubsetOf(ids);
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void replicasSpanAsManyRacksAsTheReplicationFactorAllows(long seed) {
        Case c = Case.random(new SplittableRandom(seed));
        for (List<Integer> replicas : c.place()) {
            long domains = replicas.stream()
                    .map(id -> c.rackOf(id).orElse("own-" + id))
                    .distinct()
                    .count();
            assertThat(domains)
                    .as("seed %d: replicas %s of %s", seed, replicas, c)
                    .isEqualTo(Math.min(c.replicationFactor(), c.rackCount()));
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void preferredLeadersAreBalancedWithinOnePerBroker(long seed) {
        Case c = Case.random(new SplittableRandom(seed));
        Map<Integer, Integer> leaders = new HashMap<>();
        c.brokers().forEach(b -> leaders.put(b.id(), 0));
        c.place().forEach(replicas -> leaders.merge(replicas.getFirst(), 1, Integer::sum));
        int max = Collections.max(leaders.values());
        int min = Collections.min(leaders.values());
        assertThat(max - min).as("seed %d: leaders %s of %s", seed, leaders, c).isLessThanOrEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void theSameInputsInAnyOrderGiveTheSamePlacement(long seed) {
        Case c = Case.random(new SplittableRandom(seed));
        List<BrokerSlot> shuffled = new ArrayList<>(c.brokers());
        Collections.shuffle(shuffled, new SplittableRandom(seed + 1));
        assertThat(ReplicaPlacer.place(shuffled, c.partitions(), c.replicationFactor(), c.load()))
                .as("seed %d: %s", seed, c)
                .isEqualTo(c.place());
    }

    @Test
    void aReplicationFactorAboveTheLiveBrokerCountIsRefused() {
        List<BrokerSlot> two = List.of(new BrokerSlot(1, Optional.empty()), new BrokerSlot(2, Optional.empty()));
        assertThatThrownBy(() -> ReplicaPlacer.place(two, 3, 3, Map.of()))
                .isInstanceOf(InvalidReplicationFactorException.class)
                .hasMessage("replication factor 3 is larger than the 2 live brokers");
    }

    @Test
    void leadersStartOnTheLeastLoadedBroker() {
        List<BrokerSlot> three = List.of(
                new BrokerSlot(0, Optional.of("a")),
                new BrokerSlot(1, Optional.of("b")),
                new BrokerSlot(2, Optional.of("c")));
        assertThat(ReplicaPlacer.place(three, 1, 3, Map.of(0, 4, 1, 2, 2, 1))).containsExactly(List.of(2, 0, 1));
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void fencedBrokersOnlyFillWhatTheLiveOnesCannotHoldAndNeverLead(long seed) {
        var r = new SplittableRandom(seed);
        Case c = Case.random(r);
        // Fence a random non-empty proper subset of the case's brokers.
        List<BrokerSlot> live = new ArrayList<>();
        List<BrokerSlot> fenced = new ArrayList<>();
        for (BrokerSlot b : c.brokers()) {
            (r.nextInt(3) == 0 ? fenced : live).add(b);
        }
        if (live.isEmpty() || fenced.isEmpty()) {
            return; // the other tests cover all-live; no live broker is refused below
        }
        int registered = c.brokers().size();
        int replicationFactor = r.nextInt(1, registered + 1);
        List<Integer> liveIds = live.stream().map(BrokerSlot::id).toList();
        List<List<Integer>> placement = ReplicaPlacer.place(live, fenced, c.partitions(), replicationFactor, c.load());
        assertThat(placement).as("seed %d", seed).hasSize(c.partitions());
        for (List<Integer> replicas : placement) {
            String context =
                    "seed %d: live %s fenced %s rf %d -> %s".formatted(seed, live, fenced, replicationFactor, replicas);
            assertThat(replicas).as(context).hasSize(replicationFactor).doesNotHaveDuplicates();
            assertThat(replicas.getFirst()).as(context).isIn(liveIds);
            long onLive = replicas.stream().filter(liveIds::contains).count();
            assertThat(onLive).as(context).isEqualTo(Math.min(replicationFactor, live.size()));
            // Live replicas come first: a fenced one never precedes a live one.
            assertThat(replicas.subList(0, (int) onLive)).as(context).allMatch(liveIds::contains);
        }
        if (replicationFactor <= live.size()) {
            assertThat(placement)
                    .as("seed %d: enough live brokers, the same placement as without fenced ones", seed)
                    .isEqualTo(ReplicaPlacer.place(live, c.partitions(), replicationFactor, c.load()));
        }
    }

    @Test
    void aThreeBrokerClusterWithOneBrokerDownStillPlacesReplicationFactorThree() {
        List<BrokerSlot> live = List.of(new BrokerSlot(0, Optional.empty()), new BrokerSlot(2, Optional.empty()));
        List<BrokerSlot> fenced = List.of(new BrokerSlot(1, Optional.empty()));
        assertThat(ReplicaPlacer.place(live, fenced, 2, 3, Map.of()))
                .containsExactly(List.of(0, 2, 1), List.of(2, 0, 1));
    }

    @Test
    void aReplicationFactorAboveTheRegisteredBrokerCountIsRefused() {
        List<BrokerSlot> live = List.of(new BrokerSlot(0, Optional.empty()), new BrokerSlot(2, Optional.empty()));
        List<BrokerSlot> fenced = List.of(new BrokerSlot(1, Optional.empty()));
        assertThatThrownBy(() -> ReplicaPlacer.place(live, fenced, 1, 4, Map.of()))
                .isInstanceOf(InvalidReplicationFactorException.class)
                .hasMessage("replication factor 4 is larger than the 3 registered brokers (2 live, 1 fenced)");
    }

    @Test
    void noLiveBrokerIsRefusedEvenWhenEnoughAreRegistered() {
        List<BrokerSlot> fenced = List.of(new BrokerSlot(0, Optional.empty()), new BrokerSlot(1, Optional.empty()));
        assertThatThrownBy(() -> ReplicaPlacer.place(List.of(), fenced, 1, 2, Map.of()))
                .isInstanceOf(InvalidReplicationFactorException.class)
                .hasMessage("no live broker: all 2 registered brokers are fenced");
    }
}
