package io.tributary.coordinator.placement;

import io.tributary.coordinator.metadata.Broker;
import io.tributary.coordinator.metadata.InvalidReplicationFactorException;
import io.tributary.coordinator.metadata.InvalidRequestException;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.PartitionState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Rack-aware round-robin placement.
 *
 * <p>The live brokers are ordered by interleaving racks: racks sorted by name, brokers by id within
 * a rack, then the first broker of each rack, the second of each rack, and so on ({@code a1 b1 c1
 * a2 b2 c2...}). Partition {@code i} of a placement gets as preferred leader the broker at position
 * {@code start + i} of that ring, where {@code start} is the position of the broker that leads the
 * fewest partitions today (the first such in ring order), so successive topics spread their leaders
 * too. Its followers are taken walking the ring from the leader, skipping every broker whose rack is
 * already used until every rack is used; the walk starts a further {@code i / n} positions on (n
 * being the broker count) so that partitions with the same leader get different followers.
 *
 * <p>Fenced brokers (registered, but not heartbeating: down or cut off) are used only when the live
 * ones are too few for the replication factor, as Kafka's KRaft placement does: the live brokers
 * get as many replicas as they can hold (the preferred leader always among them, placed as above)
 * and the fenced ones fill the rest, after the live ones, partition {@code i} starting at fenced
 * broker {@code i mod f} in id order. So a 3-broker cluster with one broker down still creates a
 * topic with replication factor 3: its ISR starts as the live replicas and the fenced one catches
 * up when it returns. A replication factor above the number of registered brokers, or no live
 * broker at all, is refused.
 *
 * <p>Thread-safety: stateless.
 */
public final class ReplicaPlacer {

    private ReplicaPlacer() {}

    /** The live brokers of an image, as placement sees them. */
    public static List<BrokerSlot> liveBrokers(MetadataImage image) {
        return image.liveBrokers().stream()
                .map(b -> new BrokerSlot(b.id(), b.rack()))
                .toList();
    }

    /** How many partitions each broker leads in an image (brokers that lead none are absent). */
    public static Map<Integer, Integer> leaderCounts(MetadataImage image) {
        Map<Integer, Integer> counts = new TreeMap<>();
        image.topics().values().stream()
                .flatMap(t -> t.partitions().stream())
                .filter(p -> !p.offline())
                .map(PartitionState::leader)
                .forEach(l -> counts.merge(l, 1, Integer::sum));
        return counts;
    }

    /** The registered brokers of an image that are fenced, as placement sees them. */
    public static List<BrokerSlot> fencedBrokers(MetadataImage image) {
        return image.brokers().values().stream()
                .filter(Broker::fenced)
                .map(b -> new BrokerSlot(b.id(), b.rack()))
                .toList();
    }

    /**
     * Places {@code partitions} new partitions on the live brokers of {@code image}, completed with
     * its fenced brokers when the live ones are fewer than the replication factor.
     */
    public static List<List<Integer>> place(MetadataImage image, int partitions, int replicationFactor) {
        return place(liveBrokers(image), fencedBrokers(image), partitions, replicationFactor, leaderCounts(image));
    }

    /**
     * Places new partitions on live brokers and, when they are too few, fenced ones.
     *
     * @param live the live brokers (any order)
     * @param fenced the registered brokers that are fenced (any order), used only for the replicas
     *     the live brokers cannot hold
     * @param partitions how many partitions to place, 1 or more
     * @param replicationFactor replicas per partition, 1..{@code live.size() + fenced.size()}
     * @param leaderCounts partitions each broker leads today (absent: none)
     * @return the replicas of each new partition, preferred leader (a live broker) first
     * @throws InvalidReplicationFactorException if the replication factor is below 1 or above the
     *     number of registered brokers, or if no broker is live
     */
    public static List<List<Integer>> place(
            List<BrokerSlot> live,
            List<BrokerSlot> fenced,
            int partitions,
            int replicationFactor,
            Map<Integer, Integer> leaderCounts) {
        if (fenced.isEmpty() || replicationFactor <= live.size()) {
            return place(live, partitions, replicationFactor, leaderCounts);
        }
        int registered = live.size() + fenced.size();
        if (replicationFactor > registered) {
            throw new InvalidReplicationFactorException(
                    "replication factor %d is larger than the %d registered broker%s (%d live, %d fenced)"
                            .formatted(
                                    replicationFactor,
                                    registered,
                                    registered == 1 ? "" : "s",
                                    live.size(),
                                    fenced.size()));
        }
        if (live.isEmpty()) {
            throw new InvalidReplicationFactorException(
                    "no live broker: all %d registered brokers are fenced".formatted(fenced.size()));
        }
        List<Integer> fencedIds = fenced.stream().map(BrokerSlot::id).sorted().toList();
        if (fencedIds.stream().distinct().count() != fencedIds.size()
                || live.stream().anyMatch(b -> fencedIds.contains(b.id()))) {
            throw new IllegalArgumentException(
                    "a broker is listed twice in live %s and fenced %s".formatted(live, fenced));
        }
        List<List<Integer>> onLive = place(live, partitions, live.size(), leaderCounts);
        int missing = replicationFactor - live.size();
        List<List<Integer>> result = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            List<Integer> replicas = new ArrayList<>(onLive.get(i));
            for (int k = 0; k < missing; k++) {
                replicas.add(fencedIds.get((i + k) % fencedIds.size()));
            }
            result.add(List.copyOf(replicas));
        }
        return List.copyOf(result);
    }

    /**
     * Places new partitions.
     *
     * @param live the live brokers (any order)
     * @param partitions how many partitions to place, 1 or more
     * @param replicationFactor replicas per partition, 1..{@code live.size()}
     * @param leaderCounts partitions each broker leads today (absent: none)
     * @return the replicas of each new partition, preferred leader first
     * @throws InvalidReplicationFactorException if the replication factor is below 1 or above the
     *     number of live brokers
     */
    public static List<List<Integer>> place(
            List<BrokerSlot> live, int partitions, int replicationFactor, Map<Integer, Integer> leaderCounts) {
        if (partitions < 1) {
            throw new InvalidRequestException("the partition count must be 1 or more, got " + partitions);
        }
        if (replicationFactor < 1) {
            throw new InvalidReplicationFactorException(
                    "the replication factor must be 1 or more, got " + replicationFactor);
        }
        if (replicationFactor > live.size()) {
            throw new InvalidReplicationFactorException("replication factor %d is larger than the %d live broker%s"
                    .formatted(replicationFactor, live.size(), live.size() == 1 ? "" : "s"));
        }
        List<BrokerSlot> ring = ring(live);
        int n = ring.size();
        int start = 0;
        for (int pos = 1; pos < n; pos++) {
            if (leaderCounts.getOrDefault(ring.get(pos).id(), 0)
                    < leaderCounts.getOrDefault(ring.get(start).id(), 0)) {
                start = pos;
            }
        }
        long domains = ring.stream().map(BrokerSlot::domain).distinct().count();
        List<List<Integer>> result = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            int leaderPos = (start + i) % n;
            List<Integer> replicas = new ArrayList<>(replicationFactor);
            Set<String> usedDomains = new HashSet<>();
            replicas.add(ring.get(leaderPos).id());
            usedDomains.add(ring.get(leaderPos).domain());
            int shift = n > 1 ? (i / n) % (n - 1) : 0;
            for (int step = 0; step < n && replicas.size() < replicationFactor; step++) {
                BrokerSlot b = ring.get((leaderPos + 1 + shift + step) % n);
                if (!replicas.contains(b.id())
                        && (usedDomains.size() >= domains || !usedDomains.contains(b.domain()))) {
                    replicas.add(b.id());
                    usedDomains.add(b.domain());
                }
            }
            for (int step = 0; step < n && replicas.size() < replicationFactor; step++) {
                BrokerSlot b = ring.get((leaderPos + 1 + shift + step) % n);
                if (!replicas.contains(b.id())) {
                    replicas.add(b.id());
                }
            }
            result.add(List.copyOf(replicas));
        }
        return List.copyOf(result);
    }

    /** The brokers in rack-interleaved order. */
    private static List<BrokerSlot> ring(List<BrokerSlot> live) {
        SortedMap<String, List<BrokerSlot>> byDomain = new TreeMap<>();
        Set<Integer> ids = new HashSet<>();
        for (BrokerSlot b : live) {
            if (!ids.add(b.id())) {
                throw new IllegalArgumentException("broker " + b.id() + " is listed twice");
            }
            byDomain.computeIfAbsent(b.domain(), d -> new ArrayList<>()).add(b);
        }
        Map<String, List<BrokerSlot>> sorted = new LinkedHashMap<>();
        byDomain.forEach((d, list) -> {
            List<BrokerSlot> copy = new ArrayList<>(list);
            copy.sort(Comparator.comparingInt(BrokerSlot::id));
            sorted.put(d, copy);
        });
        List<BrokerSlot> ring = new ArrayList<>(live.size());
        for (int round = 0; ring.size() < live.size(); round++) {
            for (List<BrokerSlot> list : sorted.values()) {
                if (round < list.size()) {
                    ring.add(list.get(round));
                }
            }
        }
        return ring;
    }
}
