package io.tributary.coordinator.metadata;

import io.tributary.coordinator.group.classic.ClassicGroupRecord;
import java.util.Collections;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The stored classic consumer groups of a {@link MetadataImage}: group id to the group's last
 * completed generation ({@link ClassicGroupRecord}), what a new coordinator leader loads so that the
 * members keep their generation across a failover.
 *
 * <p>A value of its own, like {@link CommittedOffsets}: images whose command did not touch classic
 * groups share it unchanged, so the many other commands never copy the groups; storing or deleting
 * one copies only the outer map (one reference per group).
 *
 * <p>Independent of committed offsets: deleting a group's offsets ({@link
 * MetadataCommand.DeleteGroupOffsets}) keeps its classic record and deleting the record keeps the
 * offsets; DeleteGroups sends both commands.
 *
 * <p>Thread-safety: immutable; safe to share.
 */
public final class ClassicGroups {

    /** No classic group is stored. */
    public static final ClassicGroups EMPTY = new ClassicGroups(new TreeMap<>());

    private final SortedMap<String, ClassicGroupRecord> groups;

    private ClassicGroups(SortedMap<String, ClassicGroupRecord> groups) {
        this.groups = Collections.unmodifiableSortedMap(groups);
    }

    /**
     * Builds the groups from records (a snapshot being read, tests).
     *
     * @throws IllegalStateException if a record breaks {@link #check}'s rules
     */
    public static ClassicGroups of(Iterable<ClassicGroupRecord> records) {
        SortedMap<String, ClassicGroupRecord> copy = new TreeMap<>();
        for (ClassicGroupRecord group : records) {
            try {
                check(group);
            } catch (InvalidRequestException e) {
                throw new IllegalStateException("classic groups: " + e.getMessage(), e);
            }
            if (copy.put(group.groupId(), group) != null) {
                throw new IllegalStateException("classic groups: group '" + group.groupId() + "' twice");
            }
        }
        return copy.isEmpty() ? EMPTY : new ClassicGroups(copy);
    }

    /** How many classic groups are stored. */
    public int count() {
        return groups.size();
    }

    /** The stored generation of a group, if any. */
    public Optional<ClassicGroupRecord> get(String groupId) {
        return Optional.ofNullable(groups.get(groupId));
    }

    /** Every stored group, by id in id order (unmodifiable). */
    public SortedMap<String, ClassicGroupRecord> asMap() {
        return groups;
    }

    /**
     * These groups with {@code group} stored, replacing what was stored for its id ({@code this}
     * when the same record is stored already: a resent command).
     *
     * @throws InvalidRequestException if the record breaks {@link #check}'s rules
     */
    ClassicGroups with(ClassicGroupRecord group) {
        check(group);
        if (group.equals(groups.get(group.groupId()))) {
            return this;
        }
        SortedMap<String, ClassicGroupRecord> copy = new TreeMap<>(groups);
        copy.put(group.groupId(), group);
        return new ClassicGroups(copy);
    }

    /** These groups without a group's record ({@code this} when none is stored). */
    ClassicGroups without(String groupId) {
        if (!groups.containsKey(groupId)) {
            return this;
        }
        SortedMap<String, ClassicGroupRecord> copy = new TreeMap<>(groups);
        copy.remove(groupId);
        return new ClassicGroups(copy);
    }

    /**
     * The rules a stored record follows, beyond its constructor's: a non-empty group id, non-empty
     * and distinct member ids. Nothing else is checked (the protocol, the leader, the bytes are the
     * group coordinator's business); the size is bounded by the command size.
     *
     * @throws InvalidRequestException if a rule is broken
     */
    public static void check(ClassicGroupRecord group) {
        if (group.groupId().isEmpty()) {
            throw new InvalidRequestException("a classic group id must not be empty");
        }
        Set<String> memberIds = new HashSet<>();
        for (ClassicGroupRecord.Member m : group.members()) {
            if (m.memberId().isEmpty() || !memberIds.add(m.memberId())) {
                throw new InvalidRequestException("classic group '%s': member id '%s' is empty or twice"
                        .formatted(group.groupId(), m.memberId()));
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClassicGroups other && groups.equals(other.groups);
    }

    @Override
    public int hashCode() {
        return groups.hashCode();
    }

    @Override
    public String toString() {
        return "ClassicGroups" + groups.values();
    }
}
