package io.tributary.coordinator.kafka;

import io.tributary.coordinator.group.GroupDescription;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The groups this coordinator knows, for ListGroups and the describe APIs: classic groups (their
 * own views come from {@link io.tributary.coordinator.group.classic.ClassicGroupCoordinator}),
 * consumer groups with membership in memory, and groups that only have committed offsets (state
 * {@code Empty}: after a failover, or groups used only for commits).
 */
final class GroupViews {

    /** The type of a KIP-848 consumer group. */
    static final String TYPE = "consumer";

    /** The type of a classic group (JoinGroup/SyncGroup), whatever its protocol type. */
    static final String CLASSIC_TYPE = "classic";

    /** The type, and Kafka's protocol type, of a KIP-1071 streams group. */
    static final String STREAMS_TYPE = "streams";

    /** Kafka's protocol type of consumer groups. */
    static final String PROTOCOL_TYPE = "consumer";

    /**
     * The type Kafka lists a group with committed offsets and no members under: a "simple" classic
     * group (created by an admin client's or an {@code assign()} consumer's commit), protocol type
     * {@link #SIMPLE_PROTOCOL_TYPE}.
     */
    static final String SIMPLE_TYPE = "classic";

    /** A simple group's protocol type: none. */
    static final String SIMPLE_PROTOCOL_TYPE = "";

    /**
     * Whether the group has only committed offsets here: no membership in memory (never had a
     * member since this coordinator leads). Kafka lists such a group as a simple classic group.
     */
    static boolean offsetsOnly(GroupService service, GroupDescription group) {
        return !service.groups().contains(group.groupId());
    }

    private GroupViews() {}

    /** A group that has committed offsets and no membership here. */
    static GroupDescription offsetsOnly(GroupService service, String groupId) {
        return new GroupDescription(
                groupId, GroupDescription.EMPTY, 0, 0, service.groups().config().defaultAssignor(), List.of());
    }

    /** Whether the group is known here at all: classic, consumer, streams, or with committed offsets only. */
    static boolean exists(GroupService service, String groupId) {
        return service.classic().contains(groupId)
                || service.streams().contains(groupId)
                || find(service, groupId).isPresent();
    }

    /**
     * The group, if it is known here as a consumer group or by its committed offsets only (a streams
     * group held here is not one, whatever its offsets).
     */
    static Optional<GroupDescription> find(GroupService service, String groupId) {
        if (service.streams().contains(groupId)) {
            return Optional.empty();
        }
        Optional<GroupDescription> inMemory = service.groups().describe(groupId);
        if (inMemory.isPresent()) {
            return inMemory;
        }
        if (!service.offsets().fetch(groupId).isEmpty()) {
            return Optional.of(offsetsOnly(service, groupId));
        }
        return Optional.empty();
    }

    /** Every known consumer group and offsets-only group, by id (streams groups held here are not). */
    static SortedMap<String, GroupDescription> all(GroupService service) {
        SortedMap<String, GroupDescription> all = new TreeMap<>(service.groups().describeAll());
        for (String groupId : service.offsets().groups()) {
            if (!service.streams().contains(groupId)) {
                all.putIfAbsent(groupId, offsetsOnly(service, groupId));
            }
        }
        return all;
    }

    static String lower(String value) {
        return value.toLowerCase(Locale.ROOT);
    }
}
