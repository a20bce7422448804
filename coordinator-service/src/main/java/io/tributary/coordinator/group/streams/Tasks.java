package io.tributary.coordinator.group.streams;

import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A member's tasks by kind: active (it processes them), standby (it keeps their state up to date
 * from the changelogs) and warm-up (standby tasks meant to become active once caught up; this
 * coordinator never assigns any, see the module README).
 */
public record Tasks(SortedSet<TaskId> active, SortedSet<TaskId> standby, SortedSet<TaskId> warmup) {

    public static final Tasks EMPTY = new Tasks(new TreeSet<>(), new TreeSet<>(), new TreeSet<>());

    public Tasks {
        active = Collections.unmodifiableSortedSet(new TreeSet<>(active));
        standby = Collections.unmodifiableSortedSet(new TreeSet<>(standby));
        warmup = Collections.unmodifiableSortedSet(new TreeSet<>(warmup));
    }

    public boolean isEmpty() {
        return active.isEmpty() && standby.isEmpty() && warmup.isEmpty();
    }

    /** Whether any task of {@code other} is in this, as the same kind. */
    public boolean containsAny(Tasks other) {
        return !Collections.disjoint(active, other.active)
                || !Collections.disjoint(standby, other.standby)
                || !Collections.disjoint(warmup, other.warmup);
    }

    /** Every task of this and of {@code other}, kind by kind. */
    public Tasks union(Tasks other) {
        return new Tasks(union(active, other.active), union(standby, other.standby), union(warmup, other.warmup));
    }

    /** This without the tasks of {@code other}, kind by kind. */
    public Tasks minus(Tasks other) {
        return new Tasks(minus(active, other.active), minus(standby, other.standby), minus(warmup, other.warmup));
    }

    /** The tasks in both, kind by kind. */
    public Tasks intersection(Tasks other) {
        return new Tasks(both(active, other.active), both(standby, other.standby), both(warmup, other.warmup));
    }

    /** Partitions of {@code tasks} by subtopology id, both in order (the wire's TaskIds). */
    public static java.util.SortedMap<String, java.util.List<Integer>> bySubtopology(SortedSet<TaskId> tasks) {
        java.util.SortedMap<String, java.util.List<Integer>> result = new java.util.TreeMap<>();
        for (TaskId task : tasks) {
            result.computeIfAbsent(task.subtopologyId(), k -> new java.util.ArrayList<>())
                    .add(task.partition());
        }
        return result;
    }

    private static SortedSet<TaskId> union(SortedSet<TaskId> a, SortedSet<TaskId> b) {
        SortedSet<TaskId> result = new TreeSet<>(a);
        result.addAll(b);
        return result;
    }

    private static SortedSet<TaskId> minus(SortedSet<TaskId> a, SortedSet<TaskId> b) {
        SortedSet<TaskId> result = new TreeSet<>(a);
        result.removeAll(b);
        return result;
    }

    private static SortedSet<TaskId> both(SortedSet<TaskId> a, SortedSet<TaskId> b) {
        SortedSet<TaskId> result = new TreeSet<>(a);
        result.retainAll(b);
        return result;
    }
}
