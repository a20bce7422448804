package io.tributary.coordinator.group.streams;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * A topology resolved against the topics that exist ({@link TopologyResolver}).
 *
 * @param taskCounts tasks per subtopology (its source topics' largest partition count); empty
 *     unless the topology is ready (no {@link #statuses})
 * @param statuses what keeps the group from having tasks (missing source or internal topics,
 *     wrongly partitioned topics); empty when ready
 * @param toCreate internal topics that do not exist yet, with the partition count and configs to
 *     create them with (replication factor 0: the coordinator's default)
 * @param internalPartitions every internal topic's partition count as the topology needs it
 *     (those that could be derived), by name
 * @param subtopologiesBySource the subtopologies reading each source topic (user and repartition
 *     topics), to map a committed partition to its task
 */
public record ResolvedTopology(
        SortedMap<String, Integer> taskCounts,
        List<StreamsStatus> statuses,
        List<StreamsTopology.InternalTopic> toCreate,
        SortedMap<String, Integer> internalPartitions,
        SortedMap<String, SortedSet<String>> subtopologiesBySource) {

    public ResolvedTopology {
        taskCounts = Collections.unmodifiableSortedMap(new TreeMap<>(taskCounts));
        statuses = List.copyOf(statuses);
        toCreate = List.copyOf(toCreate);
        internalPartitions = Collections.unmodifiableSortedMap(new TreeMap<>(internalPartitions));
        subtopologiesBySource = Collections.unmodifiableSortedMap(new TreeMap<>(subtopologiesBySource));
    }

    /** Whether tasks can be assigned (every topic exists and is partitioned right). */
    public boolean ready() {
        return statuses.isEmpty();
    }

    /** Every task of the topology, in order. */
    public SortedSet<TaskId> allTasks() {
        SortedSet<TaskId> tasks = new java.util.TreeSet<>();
        taskCounts.forEach((subtopology, count) -> {
            for (int p = 0; p < count; p++) {
                tasks.add(new TaskId(subtopology, p));
            }
        });
        return tasks;
    }
}
