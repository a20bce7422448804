package io.tributary.broker.cluster;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * A topic as the coordinators know it.
 *
 * @param name the topic name
 * @param id the topic id (a new one when a topic of the same name is re-created)
 * @param configs the topic's explicitly set configs (Kafka names: {@code retention.ms}...); keys
 *     absent here take the broker's defaults
 * @param partitions the partitions, in index order (partition i at position i)
 */
public record TopicInfo(String name, Uuid id, Map<String, String> configs, List<PartitionInfo> partitions) {

    public TopicInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(id, "id");
        configs = Map.copyOf(configs);
        partitions = List.copyOf(partitions);
        for (int i = 0; i < partitions.size(); i++) {
            if (partitions.get(i).partition() != i) {
                throw new IllegalArgumentException("partition " + i + " of " + name + " has index "
                        + partitions.get(i).partition());
            }
        }
    }

    public Optional<PartitionInfo> partition(int index) {
        return index >= 0 && index < partitions.size() ? Optional.of(partitions.get(index)) : Optional.empty();
    }
}
