package io.tributary.coordinator.metadata;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The committed offsets of every consumer group in a {@link MetadataImage}: group id to (partition
 * to offset). Only groups with at least one committed offset are present, and only partitions of
 * existing topics (a commit for a missing partition is dropped when applied; deleting a topic drops
 * its offsets).
 *
 * <p>Why a class of its own and not a map field of the image: an image is copied on every change,
 * and committed offsets change far more often than anything else (every consumer commits every few
 * seconds). This value is shared unchanged by images whose command did not touch offsets, and a
 * commit copies only the outer map (one reference per group) and the one group it changes, never
 * the other groups' offsets.
 *
 * <p>Thread-safety: immutable; safe to share.
 */
public final class CommittedOffsets {

    /** No group has committed offsets. */
    public static final CommittedOffsets EMPTY = new CommittedOffsets(new TreeMap<>(), 0);

    /** Group id to its offsets; every inner map is unmodifiable and non-empty. */
    private final SortedMap<String, SortedMap<TopicPartition, CommittedOffset>> groups;

    private final long offsetCount;

    private CommittedOffsets(SortedMap<String, SortedMap<TopicPartition, CommittedOffset>> groups, long offsetCount) {
        this.groups = Collections.unmodifiableSortedMap(groups);
        this.offsetCount = offsetCount;
    }

    /** Builds the offsets from plain maps (a snapshot being read, tests); groups without offsets are left out. */
    public static CommittedOffsets of(Map<String, ? extends Map<TopicPartition, CommittedOffset>> groups) {
        SortedMap<String, SortedMap<TopicPartition, CommittedOffset>> copy = new TreeMap<>();
        long count = 0;
        for (var e : groups.entrySet()) {
            if (!e.getValue().isEmpty()) {
                copy.put(e.getKey(), Collections.unmodifiableSortedMap(new TreeMap<>(e.getValue())));
                count += e.getValue().size();
            }
        }
        return new CommittedOffsets(copy, count);
    }

    /** The groups with at least one committed offset, in id order. */
    public Set<String> groups() {
        return groups.keySet();
    }

    /** How many groups have committed offsets. */
    public int groupCount() {
        return groups.size();
    }

    /** How many committed offsets all groups hold together. */
    public long offsetCount() {
        return offsetCount;
    }

    /** The committed offsets of a group, in partition order; empty when it has none. */
    public SortedMap<TopicPartition, CommittedOffset> of(String groupId) {
        SortedMap<TopicPartition, CommittedOffset> offsets = groups.get(groupId);
        return offsets == null ? Collections.emptySortedMap() : offsets;
    }

    /** Every group with its offsets, in id order (unmodifiable). */
    public SortedMap<String, SortedMap<TopicPartition, CommittedOffset>> asMap() {
        return groups;
    }

    /** These offsets with {@code offsets} stored for a group (replacing its earlier offsets of those partitions). */
    CommittedOffsets withCommit(String groupId, Map<TopicPartition, CommittedOffset> offsets) {
        if (offsets.isEmpty()) {
            return this;
        }
        SortedMap<TopicPartition, CommittedOffset> group = new TreeMap<>(of(groupId));
        int before = group.size();
        group.putAll(offsets);
        return withGroup(groupId, group, before);
    }

    /** These offsets without any offset of a group. */
    CommittedOffsets withoutGroup(String groupId) {
        SortedMap<TopicPartition, CommittedOffset> group = groups.get(groupId);
        if (group == null) {
            return this;
        }
        SortedMap<String, SortedMap<TopicPartition, CommittedOffset>> copy = new TreeMap<>(groups);
        copy.remove(groupId);
        return new CommittedOffsets(copy, offsetCount - group.size());
    }

    /** These offsets without some partitions' offsets of a group. */
    CommittedOffsets withoutPartitions(String groupId, Collection<TopicPartition> partitions) {
        SortedMap<TopicPartition, CommittedOffset> old = groups.get(groupId);
        if (old == null || partitions.stream().noneMatch(old::containsKey)) {
            return this;
        }
        SortedMap<TopicPartition, CommittedOffset> group = new TreeMap<>(old);
        partitions.forEach(group::remove);
        return withGroup(groupId, group, old.size());
    }

    /** These offsets without any offset of a topic, in every group (the topic was deleted). */
    CommittedOffsets withoutTopic(String topic) {
        SortedMap<String, SortedMap<TopicPartition, CommittedOffset>> copy = null;
        long count = offsetCount;
        for (var e : groups.entrySet()) {
            SortedMap<TopicPartition, CommittedOffset> old = e.getValue();
            if (old.keySet().stream().noneMatch(tp -> tp.topic().equals(topic))) {
                continue;
            }
            if (copy == null) {
                copy = new TreeMap<>(groups);
            }
            SortedMap<TopicPartition, CommittedOffset> group = new TreeMap<>(old);
            group.keySet().removeIf(tp -> tp.topic().equals(topic));
            count -= old.size() - group.size();
            if (group.isEmpty()) {
                copy.remove(e.getKey());
            } else {
                copy.put(e.getKey(), Collections.unmodifiableSortedMap(group));
            }
        }
        return copy == null ? this : new CommittedOffsets(copy, count);
    }

    private CommittedOffsets withGroup(String groupId, SortedMap<TopicPartition, CommittedOffset> group, int before) {
        SortedMap<String, SortedMap<TopicPartition, CommittedOffset>> copy = new TreeMap<>(groups);
        if (group.isEmpty()) {
            copy.remove(groupId);
        } else {
            copy.put(groupId, Collections.unmodifiableSortedMap(group));
        }
        return new CommittedOffsets(copy, offsetCount - before + group.size());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommittedOffsets other && groups.equals(other.groups);
    }

    @Override
    public int hashCode() {
        return groups.hashCode();
    }

    @Override
    public String toString() {
        return "CommittedOffsets" + groups;
    }
}
