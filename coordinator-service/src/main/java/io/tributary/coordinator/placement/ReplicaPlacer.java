package io.tributary.coordinator.placement;

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

    /** Places {@code partitions} new partitions on the live brokers of {@code image}. */
    public static List<List<Integer>> place(MetadataImage image, int partitions, int replicationFactor) {
        return place(liveBrokers(image), partitions, replicationFactor, leaderCounts(image));
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
