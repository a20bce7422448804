package io.tributary.coordinator.group;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A server-side assignor (KIP-848's {@code ServerAssignor}): from the members' subscriptions and the
 * topics' partition counts to a target assignment. Pure and deterministic: the same spec gives the
 * same assignment, with members and partitions visited in sorted order.
 *
 * <p>Every assignor's result assigns each partition of a subscribed topic to exactly one member
 * subscribed to that topic, and nothing else (the assignor tests check it over many seeds).
 */
public interface Assignor {

    /** The name clients put in {@code ServerAssignor} ({@code group.remote.assignor}). */
    String name();

    /** The target assignment: member id to the partitions it should own; every member of the spec is a key. */
    SortedMap<String, SortedSet<TopicIdPartition>> assign(Spec spec);

    /**
     * What an assignor assigns.
     *
     * @param members member id to what it subscribes to and what its previous target was
     * @param partitionCounts topic id to partition count, for every topic some member subscribes to
     */
    record Spec(SortedMap<String, MemberSpec> members, SortedMap<UUID, Integer> partitionCounts) {
        public Spec {
            members = new TreeMap<>(members);
            partitionCounts = new TreeMap<>(partitionCounts);
        }
    }

    /**
     * One member as an assignor sees it.
     *
     * @param subscribedTopicIds the topics it subscribes to that exist
     * @param previousTarget its previous target assignment (for stickiness)
     */
    record MemberSpec(Set<UUID> subscribedTopicIds, SortedSet<TopicIdPartition> previousTarget) {
        public MemberSpec {
            subscribedTopicIds = Set.copyOf(subscribedTopicIds);
            previousTarget = new TreeSet<>(previousTarget);
        }
    }

    /** An empty assignment for every member of the spec (the starting point of an assignor). */
    static SortedMap<String, SortedSet<TopicIdPartition>> emptyAssignment(Spec spec) {
        SortedMap<String, SortedSet<TopicIdPartition>> result = new TreeMap<>();
        for (String member : spec.members().keySet()) {
            result.put(member, new TreeSet<>());
        }
        return result;
    }

    /** Whether {@code member} subscribes to {@code topic} in {@code spec}. */
    static boolean subscribes(Spec spec, String member, UUID topic) {
        return Objects.requireNonNull(spec.members().get(member))
                .subscribedTopicIds()
                .contains(topic);
    }

    /** Whether a partition exists in the spec's topics. */
    static boolean exists(Spec spec, TopicIdPartition partition) {
        Integer count = spec.partitionCounts().get(partition.topicId());
        return count != null && partition.partition() < count;
    }

    /** Convenience for callers that want a plain map. */
    static Map<String, SortedSet<TopicIdPartition>> copy(Map<String, SortedSet<TopicIdPartition>> assignment) {
        Map<String, SortedSet<TopicIdPartition>> copy = new TreeMap<>();
        assignment.forEach((member, partitions) -> copy.put(member, new TreeSet<>(partitions)));
        return copy;
    }
}
