package io.tributary.coordinator.group;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * {@code range}: per topic, the members subscribed to it in member-id order each take a contiguous
 * range of its partitions, the first {@code count % members} one partition more. Topics with the
 * same partition count and the same subscribers are therefore co-partitioned: the member that owns
 * partition {@code i} of one owns partition {@code i} of the other (what joins of two topics keyed
 * alike need). Deterministic, not sticky: a member joining shifts the ranges.
 */
public final class RangeAssignor implements Assignor {

    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SortedMap<String, SortedSet<TopicIdPartition>> assign(Spec spec) {
        SortedMap<String, SortedSet<TopicIdPartition>> result = Assignor.emptyAssignment(spec);
        spec.partitionCounts().forEach((topic, count) -> {
            List<String> subscribers = new ArrayList<>();
            spec.members().forEach((member, memberSpec) -> {
                if (memberSpec.subscribedTopicIds().contains(topic)) {
                    subscribers.add(member);
                }
            });
            if (subscribers.isEmpty()) {
                return;
            }
            int base = count / subscribers.size();
            int extra = count % subscribers.size();
            int next = 0;
            for (int i = 0; i < subscribers.size(); i++) {
                int size = base + (i < extra ? 1 : 0);
                for (int p = next; p < next + size; p++) {
                    result.get(subscribers.get(i)).add(new TopicIdPartition(topic, p));
                }
                next += size;
            }
        });
        return result;
    }
}
