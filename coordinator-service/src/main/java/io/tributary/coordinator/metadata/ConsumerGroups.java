package io.tributary.coordinator.metadata;

import io.tributary.coordinator.group.ConsumerGroupRecord;
import io.tributary.coordinator.group.StoredConsumerGroup;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The stored KIP-848 consumer groups of a {@link MetadataImage}: group id to what is stored of the
 * group ({@link StoredConsumerGroup}: epochs, assignor, members with their assignments, the target
 * assignment), what a new coordinator leader loads so that members keep their epochs and
 * assignments across a failover.
 *
 * <p>A value of its own, like {@link ClassicGroups}: images whose command did not touch consumer
 * groups share it unchanged; a change copies the outer map (one reference per group) and the changed
 * group's maps (one reference per member).
 *
 * <p>Independent of committed offsets and classic groups: DeleteGroups sends a command for each.
 *
 * <p>Thread-safety: immutable; safe to share.
 */
public final class ConsumerGroups {

    /** No consumer group is stored. */
    public static final ConsumerGroups EMPTY = new ConsumerGroups(new TreeMap<>());

    private final SortedMap<String, StoredConsumerGroup> groups;

    private ConsumerGroups(SortedMap<String, StoredConsumerGroup> groups) {
        this.groups = Collections.unmodifiableSortedMap(groups);
    }

    /**
     * Builds the groups from stored values (a snapshot being read, tests).
     *
     * @throws IllegalStateException if a group id is empty or twice
     */
    public static ConsumerGroups of(Iterable<StoredConsumerGroup> stored) {
        SortedMap<String, StoredConsumerGroup> copy = new TreeMap<>();
        for (StoredConsumerGroup group : stored) {
            if (group.groupId().isEmpty() || copy.put(group.groupId(), group) != null) {
                throw new IllegalStateException(
                        "consumer groups: group id '" + group.groupId() + "' is empty or twice");
            }
            group.members().keySet().forEach(id -> {
                if (id.isEmpty()) {
                    throw new IllegalStateException(
                            "consumer groups: group '" + group.groupId() + "' has an empty member id");
                }
            });
        }
        return copy.isEmpty() ? EMPTY : new ConsumerGroups(copy);
    }

    /** How many consumer groups are stored. */
    public int count() {
        return groups.size();
    }

    /** What is stored of a group, if anything. */
    public Optional<StoredConsumerGroup> get(String groupId) {
        return Optional.ofNullable(groups.get(groupId));
    }

    /** Every stored group, by id in id order (unmodifiable). */
    public SortedMap<String, StoredConsumerGroup> asMap() {
        return groups;
    }

    /**
     * These groups with {@code records} applied to a group, in order ({@link
     * StoredConsumerGroup#apply}); a group not stored yet starts empty ({@link
     * StoredConsumerGroup#empty}), as Kafka's replay creates a group at its first record.
     *
     * @throws InvalidRequestException if the group id or a member id is empty, or there is no record
     */
    public ConsumerGroups apply(String groupId, List<ConsumerGroupRecord> records) {
        if (groupId.isEmpty()) {
            throw new InvalidRequestException("a consumer group id must not be empty");
        }
        if (records.isEmpty()) {
            throw new InvalidRequestException("consumer group '" + groupId + "': no record to apply");
        }
        StoredConsumerGroup group = groups.getOrDefault(groupId, StoredConsumerGroup.empty(groupId));
        StoredConsumerGroup next;
        try {
            next = group.apply(records);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(e.getMessage());
        }
        if (next.equals(groups.get(groupId))) {
            return this;
        }
        SortedMap<String, StoredConsumerGroup> copy = new TreeMap<>(groups);
        copy.put(groupId, next);
        return new ConsumerGroups(copy);
    }

    /** These groups without a group ({@code this} when it is not stored). */
    public ConsumerGroups without(String groupId) {
        if (!groups.containsKey(groupId)) {
            return this;
        }
        SortedMap<String, StoredConsumerGroup> copy = new TreeMap<>(groups);
        copy.remove(groupId);
        return new ConsumerGroups(copy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConsumerGroups other && groups.equals(other.groups);
    }

    @Override
    public int hashCode() {
        return groups.hashCode();
    }

    @Override
    public String toString() {
        return "ConsumerGroups" + groups.values();
    }
}
