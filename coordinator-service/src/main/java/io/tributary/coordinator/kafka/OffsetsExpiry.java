package io.tributary.coordinator.kafka;

import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.OffsetRetention.ClassicGroupView;
import io.tributary.coordinator.group.OffsetRetention.ConsumerGroupView;
import io.tributary.coordinator.group.OffsetRetention.Expiry;
import io.tributary.coordinator.group.OffsetRetention.GroupView;
import io.tributary.coordinator.group.OffsetRetention.SimpleGroupView;
import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.kafka.GroupService.Expired;
import io.tributary.coordinator.metadata.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The group side of one offsets retention check ({@link GroupService#expireOffsets}): how a group id
 * looks to {@link io.tributary.coordinator.group.OffsetRetention} (a classic group, a consumer or
 * streams group, or offsets only), and deleting what it decided, of the offsets still as they were
 * judged, with the group when it is empty and lost them all.
 *
 * <p>Stateless; thread-safe as the service is.
 */
final class OffsetsExpiry {

    private OffsetsExpiry() {}

    /** How retention sees the group: classic here, KIP-848 here, or known by its offsets only. */
    static GroupView view(GroupService service, String groupId) {
        Optional<ClassicGroupView> classicView = service.classic().retentionView(groupId);
        if (classicView.isPresent()) {
            return classicView.get();
        }
        if (service.groups().contains(groupId)) {
            return new ConsumerGroupView(
                    groupId,
                    !service.groups().hasMembers(groupId),
                    service.groups().subscribedTopicNames(groupId));
        }
        if (service.streams().contains(groupId)) {
            // Kafka's StreamsGroup expires offsets as a consumer group does, its topology's source
            // topics standing for the subscription.
            return new ConsumerGroupView(
                    groupId,
                    !service.streams().hasMembers(groupId),
                    service.streams().sourceTopics(groupId));
        }
        return new SimpleGroupView(groupId);
    }

    /** Deletes what {@code expiry} decided, of the offsets still as they were judged. */
    static Expired delete(
            GroupService service, GroupView view, Expiry expiry, Map<TopicPartition, CommittedOffset> judged)
            throws OffsetStoreException {
        String groupId = view.groupId();
        Map<TopicPartition, CommittedOffset> current = service.offsets().fetch(groupId);
        List<TopicPartition> unchanged = expiry.expired().stream()
                .filter(partition -> Objects.equals(current.get(partition), judged.get(partition)))
                .toList();
        boolean allGone = unchanged.size() == current.size();
        if (!unchanged.isEmpty()) {
            if (allGone) {
                service.offsets().deleteGroup(groupId);
            } else {
                service.offsets().deleteOffsets(groupId, unchanged);
            }
        }
        boolean groupDeleted = false;
        if (expiry.deleteGroup() && allGone) {
            groupDeleted = switch (view) {
                case ClassicGroupView c -> deleteEmptyClassic(service, groupId);
                case ConsumerGroupView c
                when service.streams().contains(groupId) -> {
                    service.streams().forgetIfEmpty(groupId);
                    yield !service.streams().contains(groupId);
                }
                case ConsumerGroupView c -> {
                    service.groups().forgetIfEmpty(groupId);
                    yield !service.groups().contains(groupId);
                }
                case SimpleGroupView s -> !unchanged.isEmpty();
            };
        }
        return new Expired(groupId, unchanged.size(), groupDeleted);
    }

    /** Deletes an empty classic group and its stored generation; false if a member came meanwhile. */
    private static boolean deleteEmptyClassic(GroupService service, String groupId) {
        try {
            if (!service.classic().delete(groupId)) {
                return false;
            }
        } catch (GroupException e) {
            return false;
        }
        service.flushClassicStores();
        return true;
    }
}
