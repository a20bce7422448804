package io.tributary.coordinator.metadata;

import java.util.Comparator;
import java.util.Objects;

/**
 * A partition of a topic, by name. Ordered by topic name, then partition index (the canonical order
 * of encodings).
 *
 * @param topic the topic's name
 * @param partition the partition index, 0 or more
 */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {

    private static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
    }

    @Override
    public int compareTo(TopicPartition other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
