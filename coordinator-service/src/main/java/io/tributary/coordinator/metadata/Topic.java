package io.tributary.coordinator.metadata;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A topic: its name, its id (stable across renames of nothing, and different for a topic deleted and
 * created again under the same name), its partitions in index order and its config overrides (only
 * the keys that were set; validated by {@link TopicConfigs}).
 *
 * @param name the topic's name
 * @param id the topic id
 * @param partitions partition {@code i} at index {@code i}
 * @param configs config overrides, sorted by key
 */
public record Topic(String name, UUID id, List<PartitionState> partitions, SortedMap<String, String> configs) {

    public Topic {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(id, "id");
        partitions = List.copyOf(partitions);
        configs = Collections.unmodifiableSortedMap(new TreeMap<>(configs));
    }

    Topic withPartitions(List<PartitionState> newPartitions) {
        return new Topic(name, id, newPartitions, configs);
    }

    Topic withConfigs(Map<String, String> newConfigs) {
        return new Topic(name, id, partitions, new TreeMap<>(newConfigs));
    }

    /** Whether this topic allows electing a leader from outside the ISR. */
    public boolean uncleanLeaderElectionEnabled() {
        return Boolean.parseBoolean(configs.getOrDefault(TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE, "false"));
    }

    /** The replication factor (the same for every partition). */
    public int replicationFactor() {
        return partitions.getFirst().replicas().size();
    }
}
