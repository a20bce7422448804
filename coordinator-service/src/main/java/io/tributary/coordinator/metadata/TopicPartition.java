package io.tributary.coordinator.metadata;

import java.util.Objects;

/**
 * A partition of a topic, by name.
 *
 * @param topic the topic's name
 * @param partition the partition index, 0 or more
 */
public record TopicPartition(String topic, int partition) {

    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
