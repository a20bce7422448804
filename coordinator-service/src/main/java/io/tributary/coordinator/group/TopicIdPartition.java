package io.tributary.coordinator.group;

import java.util.Comparator;
import java.util.Objects;
import java.util.UUID;

/**
 * A partition of a topic, by topic id: how ConsumerGroupHeartbeat names partitions (a topic deleted
 * and created again under the same name is another topic).
 *
 * @param topicId the topic id
 * @param partition the partition index, 0 or more
 */
public record TopicIdPartition(UUID topicId, int partition) implements Comparable<TopicIdPartition> {

    private static final Comparator<TopicIdPartition> ORDER =
            Comparator.comparing(TopicIdPartition::topicId).thenComparingInt(TopicIdPartition::partition);

    public TopicIdPartition {
        Objects.requireNonNull(topicId, "topicId");
        if (partition < 0) {
            throw new IllegalArgumentException("negative partition " + partition);
        }
    }

    @Override
    public int compareTo(TopicIdPartition other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return topicId + ":" + partition;
    }
}
