package io.tributary.coordinator.group.streams;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Topologies for the streams group tests. */
final class Topologies {

    private Topologies() {}

    /**
     * A counting application's topology: subtopology 0 reads {@code input} and writes {@code
     * repartition}; subtopology 1 reads it and counts into a store backed by {@code changelog}.
     *
     * @param repartitionPartitions the repartition topic's partition count in the topology (0: derived)
     */
    static StreamsTopology counting(
            int epoch, String input, String repartition, int repartitionPartitions, String changelog) {
        Map<String, StreamsTopology.Subtopology> subtopologies = new TreeMap<>();
        subtopologies.put(
                "0",
                new StreamsTopology.Subtopology(
                        "0", List.of(input), List.of(repartition), List.of(), List.of(), List.of()));
        subtopologies.put(
                "1",
                new StreamsTopology.Subtopology(
                        "1",
                        List.of(repartition),
                        List.of(),
                        List.of(new StreamsTopology.InternalTopic(
                                changelog, 0, (short) 0, Map.of("cleanup.policy", "compact"))),
                        List.of(new StreamsTopology.InternalTopic(
                                repartition, repartitionPartitions, (short) 0, Map.of("cleanup.policy", "delete"))),
                        List.of()));
        return new StreamsTopology(epoch, new TreeMap<>(subtopologies));
    }
}
