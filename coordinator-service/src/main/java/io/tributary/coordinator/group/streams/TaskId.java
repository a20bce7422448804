package io.tributary.coordinator.group.streams;

import java.util.Comparator;
import java.util.Objects;

/**
 * One task of a streams group: a subtopology and a partition of its source topics (KIP-1071).
 *
 * @param subtopologyId the subtopology, as the client's topology names it
 * @param partition the partition, 0 or more
 */
public record TaskId(String subtopologyId, int partition) implements Comparable<TaskId> {

    private static final Comparator<TaskId> ORDER =
            Comparator.comparing(TaskId::subtopologyId).thenComparingInt(TaskId::partition);

    public TaskId {
        Objects.requireNonNull(subtopologyId, "subtopologyId");
        if (partition < 0) {
            throw new IllegalArgumentException("a task's partition is 0 or more, got " + partition);
        }
    }

    @Override
    public int compareTo(TaskId other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return subtopologyId + "_" + partition;
    }
}
