package io.tributary.coordinator.group;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.UUID;

/**
 * {@code uniform} (Kafka's default server assignor's name): balanced and sticky.
 *
 * <ol>
 *   <li>Sticky: every partition of a member's previous target that still exists and that the member
 *       still subscribes to stays with it.
 *   <li>Every other partition goes to the subscribed member with the fewest partitions (ties: the
 *       smallest member id), partitions with the fewest candidate members first.
 *   <li>Balance: while some member has at least two partitions more than another member that
 *       subscribes to one of its partitions' topics, one such partition moves (from the fullest
 *       member to the emptiest candidate). Each move lowers the sum of squared member sizes, so this
 *       ends; with identical subscriptions it ends with member sizes differing by at most one.
 * </ol>
 *
 * <p>Moves are what a rebalance costs (a partition moves only after its owner revokes it), so only
 * the moves balance needs are made: a member that joins takes partitions from the fullest members,
 * and the others keep theirs.
 */
public final class UniformAssignor implements Assignor {

    public static final String NAME = "uniform";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SortedMap<String, SortedSet<TopicIdPartition>> assign(Spec spec) {
        SortedMap<String, SortedSet<TopicIdPartition>> result = Assignor.emptyAssignment(spec);
        Map<TopicIdPartition, String> owner = new HashMap<>();
        // 1. Sticky.
        spec.members().forEach((member, memberSpec) -> {
            for (TopicIdPartition partition : memberSpec.previousTarget()) {
                if (Assignor.exists(spec, partition)
                        && memberSpec.subscribedTopicIds().contains(partition.topicId())
                        && !owner.containsKey(partition)) {
                    owner.put(partition, member);
                    result.get(member).add(partition);
                }
            }
        });
        // 2. The rest, most constrained first.
        Map<UUID, List<String>> candidates = new HashMap<>();
        spec.partitionCounts().keySet().forEach(topic -> candidates.put(topic, new ArrayList<>()));
        spec.members()
                .forEach((member, memberSpec) -> memberSpec.subscribedTopicIds().forEach(topic -> {
                    List<String> list = candidates.get(topic);
                    if (list != null) {
                        list.add(member);
                    }
                }));
        List<TopicIdPartition> unassigned = new ArrayList<>();
        spec.partitionCounts().forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                TopicIdPartition partition = new TopicIdPartition(topic, p);
                if (!owner.containsKey(partition) && !candidates.get(topic).isEmpty()) {
                    unassigned.add(partition);
                }
            }
        });
        unassigned.sort(Comparator.<TopicIdPartition>comparingInt(
                        p -> candidates.get(p.topicId()).size())
                .thenComparing(Comparator.naturalOrder()));
        for (TopicIdPartition partition : unassigned) {
            String best = null;
            for (String member : candidates.get(partition.topicId())) {
                if (best == null || result.get(member).size() < result.get(best).size()) {
                    best = member;
                }
            }
            owner.put(partition, best);
            result.get(best).add(partition);
        }
        // 3. Balance.
        boolean moved = true;
        while (moved) {
            moved = false;
            List<String> bySizeDescending = new ArrayList<>(result.keySet());
            bySizeDescending.sort(
                    Comparator.<String>comparingInt(m -> -result.get(m).size())
                            .thenComparing(Comparator.naturalOrder()));
            for (String from : bySizeDescending) {
                int fromSize = result.get(from).size();
                TopicIdPartition toMove = null;
                String to = null;
                for (TopicIdPartition partition : result.get(from)) {
                    for (String candidate : candidates.get(partition.topicId())) {
                        int size = result.get(candidate).size();
                        if (size < fromSize - 1
                                && (to == null || size < result.get(to).size())) {
                            to = candidate;
                            toMove = partition;
                        }
                    }
                }
                if (toMove != null) {
                    result.get(from).remove(toMove);
                    result.get(to).add(toMove);
                    moved = true;
                    break;
                }
            }
        }
        return result;
    }
}
