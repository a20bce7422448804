package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.metadata.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;

/**
 * OffsetDelete (API 47), version 0: deletes the committed offsets of some partitions of a group.
 * Partitions of a topic the group's members subscribe to are refused with GROUP_SUBSCRIBED_TO_TOPIC
 * (as Kafka does: the members would commit them again; in a classic group of protocol type {@code
 * consumer}, the topics of its members' subscriptions; of another protocol type, every topic, as
 * Kafka cannot read those subscriptions either); the rest are deleted in one store change.
 * An unknown group is GROUP_ID_NOT_FOUND; a follower answers NOT_COORDINATOR; a store failure
 * NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE (retriable), both as the top-level error.
 *
 * <p>Thread-safe.
 */
public final class OffsetDeleteHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.OFFSET_DELETE, 0, 0);

    private final GroupService service;

    public OffsetDeleteHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        OffsetDeleteRequestData data = request.body(OffsetDeleteRequest.class).data();
        var response = new OffsetDeleteResponseData();
        try {
            service.requireLeader();
            if (data.groupId().isEmpty()) {
                throw new GroupException(Errors.INVALID_GROUP_ID, "the group id is empty");
            }
            if (!GroupViews.exists(service, data.groupId())) {
                throw new GroupException(Errors.GROUP_ID_NOT_FOUND, "Group " + data.groupId() + " not found.");
            }
        } catch (GroupException e) {
            return new OffsetDeleteResponse(response.setErrorCode(e.error().code()));
        }
        Optional<Set<String>> subscribed = service.classic().contains(data.groupId())
                ? service.classic().subscribedTopics(data.groupId())
                : service.streams().contains(data.groupId())
                        ? Optional.of(service.streams().sourceTopics(data.groupId()))
                        : Optional.of(service.groups().subscribedTopicNames(data.groupId()));
        List<TopicPartition> toDelete = new ArrayList<>();
        for (var topic : data.topics()) {
            var topicOut = new OffsetDeleteResponseTopic().setName(topic.name());
            for (var partition : topic.partitions()) {
                boolean inUse =
                        subscribed.map(topics -> topics.contains(topic.name())).orElse(true);
                Errors error = inUse ? Errors.GROUP_SUBSCRIBED_TO_TOPIC : Errors.NONE;
                if (error == Errors.NONE) {
                    toDelete.add(new TopicPartition(topic.name(), partition.partitionIndex()));
                }
                topicOut.partitions()
                        .add(new OffsetDeleteResponsePartition()
                                .setPartitionIndex(partition.partitionIndex())
                                .setErrorCode(error.code()));
            }
            response.topics().add(topicOut);
        }
        if (!toDelete.isEmpty()) {
            try {
                service.offsets().deleteOffsets(data.groupId(), toDelete);
            } catch (OffsetStoreException e) {
                response.topics().clear();
                return new OffsetDeleteResponse(response.setErrorCode(
                        GroupService.storeError(e, Errors.UNKNOWN_SERVER_ERROR).code()));
            }
        }
        return new OffsetDeleteResponse(response);
    }
}
