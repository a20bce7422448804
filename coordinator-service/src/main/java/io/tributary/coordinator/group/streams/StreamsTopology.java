package io.tributary.coordinator.group.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A streams application's topology as its members send it on joining (StreamsGroupHeartbeat's
 * {@code Topology}): an epoch and the subtopologies, each with its source topics, the repartition
 * topics it writes and reads and its state changelog topics. The first member to join an empty
 * group sets it.
 *
 * @param epoch the client's topology epoch
 * @param subtopologies by subtopology id
 */
public record StreamsTopology(int epoch, SortedMap<String, Subtopology> subtopologies) {

    public StreamsTopology {
        subtopologies = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(subtopologies));
    }

    /**
     * One subtopology.
     *
     * @param id its id, unique in the topology
     * @param sourceTopics the (user) topics it reads
     * @param repartitionSinkTopics the repartition topics it writes (read by other subtopologies)
     * @param stateChangelogTopics its stores' changelog topics (partition count always undefined: the
     *     subtopology's task count)
     * @param repartitionSourceTopics the repartition topics it reads
     * @param copartitionGroups groups of its source topics that must have as many partitions
     */
    public record Subtopology(
            String id,
            List<String> sourceTopics,
            List<String> repartitionSinkTopics,
            List<InternalTopic> stateChangelogTopics,
            List<InternalTopic> repartitionSourceTopics,
            List<List<String>> copartitionGroups) {
        public Subtopology {
            Objects.requireNonNull(id, "id");
            sourceTopics = List.copyOf(sourceTopics);
            repartitionSinkTopics = List.copyOf(repartitionSinkTopics);
            stateChangelogTopics = List.copyOf(stateChangelogTopics);
            repartitionSourceTopics = List.copyOf(repartitionSourceTopics);
            List<List<String>> groups = new ArrayList<>();
            for (List<String> group : copartitionGroups) {
                groups.add(List.copyOf(group));
            }
            copartitionGroups = List.copyOf(groups);
        }
    }

    /**
     * An internal topic (repartition or changelog), created by the coordinator when missing.
     *
     * @param name the topic's name
     * @param partitions its partition count, 0 when the topology leaves it to the coordinator
     * @param replicationFactor its replication factor, 0 for the coordinator's default
     * @param configs its topic configs
     */
    public record InternalTopic(String name, int partitions, short replicationFactor, Map<String, String> configs) {
        public InternalTopic {
            Objects.requireNonNull(name, "name");
            if (partitions < 0) {
                throw new IllegalArgumentException("partitions is 0 or more, got " + partitions);
            }
            configs = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(configs));
        }
    }
}
