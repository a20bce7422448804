package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.group.TopicView.TopicInfo;
import io.tributary.coordinator.metadata.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;

/**
 * OffsetFetch (API 9), versions 1 to 10: one group up to version 7, a batch of groups from 8 (what
 * the AdminClient's {@code listConsumerGroupOffsets} sends for several groups), member id and epoch
 * from 9 (validated as KIP-848 says: without a member id and with epoch -1 anyone may read; a member
 * must be at its current epoch, else STALE_MEMBER_EPOCH, or UNKNOWN_MEMBER_ID), topic ids from 10
 * (resolved through the coordinator's metadata; UNKNOWN_TOPIC_ID when absent; with all topics
 * requested, offsets of topics that no longer exist are left out, having no id).
 *
 * <p>A partition without a committed offset answers offset -1, as Kafka does; so does a group
 * that does not exist. Group-level errors go to the group's error code (to every partition in
 * version 1, which has no group-level code). There are no transactions, so RequireStable never
 * waits.
 *
 * <p>Thread-safe.
 */
public final class OffsetFetchHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.OFFSET_FETCH, 1, 10);

    private final GroupService service;

    public OffsetFetchHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    /** One requested topic: name or id, and partitions. */
    private record Wanted(String name, Uuid topicId, List<Integer> partitions) {}

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        OffsetFetchRequestData data = request.body(OffsetFetchRequest.class).data();
        short version = request.header().apiVersion();
        var response = new OffsetFetchResponseData();
        if (version >= 8) {
            for (var group : data.groups()) {
                List<Wanted> wanted = group.topics() == null
                        ? null
                        : group.topics().stream()
                                .map(t -> new Wanted(t.name(), t.topicId(), t.partitionIndexes()))
                                .toList();
                response.groups()
                        .add(fetch(
                                group.groupId(),
                                Optional.ofNullable(group.memberId()),
                                group.memberEpoch(),
                                wanted,
                                version));
            }
            return new OffsetFetchResponse(response, version);
        }
        List<Wanted> wanted = data.topics() == null
                ? null
                : data.topics().stream()
                        .map(t -> new Wanted(t.name(), Uuid.ZERO_UUID, t.partitionIndexes()))
                        .toList();
        OffsetFetchResponseGroup group = fetch(data.groupId(), Optional.empty(), -1, wanted, version);
        Errors groupError = Errors.forCode(group.errorCode());
        for (var topic : group.topics()) {
            var topicOut = new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(topic.name());
            for (var partition : topic.partitions()) {
                short code = version < 2 && groupError != Errors.NONE ? groupError.code() : partition.errorCode();
                topicOut.partitions()
                        .add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                                .setPartitionIndex(partition.partitionIndex())
                                .setCommittedOffset(partition.committedOffset())
                                .setCommittedLeaderEpoch(partition.committedLeaderEpoch())
                                .setMetadata(partition.metadata())
                                .setErrorCode(code));
            }
            response.topics().add(topicOut);
        }
        if (version >= 2) {
            response.setErrorCode(group.errorCode());
        }
        return new OffsetFetchResponse(response, version);
    }

    private OffsetFetchResponseGroup fetch(
            String groupId, Optional<String> memberId, int memberEpoch, List<Wanted> wanted, short version) {
        var out = new OffsetFetchResponseGroup().setGroupId(groupId);
        Errors error = validate(groupId, memberId, memberEpoch);
        if (error != Errors.NONE) {
            out.setErrorCode(error.code());
            if (wanted != null) {
                // Every requested partition is listed, so that versions without a group-level
                // error code can carry it per partition.
                for (Wanted topic : wanted) {
                    var topicOut = topicOut(topic.name(), topic.topicId());
                    topic.partitions().forEach(p -> topicOut.partitions().add(none(p).setErrorCode(error.code())));
                    out.topics().add(topicOut);
                }
            }
            return out;
        }
        Map<TopicPartition, CommittedOffset> committed = service.offsets().fetch(groupId);
        if (wanted == null) {
            Map<String, OffsetFetchResponseTopics> byTopic = new TreeMap<>();
            committedByName(committed).forEach((partition, offset) -> {
                Optional<Uuid> id = version >= 10
                        ? service.topics().byName(partition.topic()).map(info -> GroupService.kafkaUuid(info.id()))
                        : Optional.of(Uuid.ZERO_UUID);
                if (id.isEmpty()) {
                    return;
                }
                byTopic.computeIfAbsent(partition.topic(), name -> topicOut(name, id.get()))
                        .partitions()
                        .add(partition(partition.partition(), offset));
            });
            out.topics().addAll(byTopic.values());
            return out;
        }
        for (Wanted topic : wanted) {
            var topicOut = topicOut(topic.name(), topic.topicId());
            Optional<String> name = version >= 10
                    ? service.topics().byId(GroupService.uuid(topic.topicId())).map(TopicInfo::name)
                    : Optional.of(topic.name());
            for (int index : topic.partitions()) {
                if (name.isEmpty()) {
                    topicOut.partitions().add(none(index).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
                    continue;
                }
                CommittedOffset offset = committed.get(new TopicPartition(name.get(), index));
                topicOut.partitions().add(offset == null ? none(index) : partition(index, offset));
            }
            out.topics().add(topicOut);
        }
        return out;
    }

    private Errors validate(String groupId, Optional<String> memberId, int memberEpoch) {
        try {
            service.requireLeader();
            if (service.classic().contains(groupId)) {
                // Kafka checks no member of a classic group on OffsetFetch.
                return Errors.NONE;
            }
            if (service.streams().validateFetch(groupId, memberId, memberEpoch)) {
                return Errors.NONE;
            }
            service.groups().validateFetch(groupId, memberId, memberEpoch);
            return Errors.NONE;
        } catch (GroupException e) {
            return e.error();
        }
    }

    /** Sorted by topic name, then partition. */
    private static Map<TopicPartition, CommittedOffset> committedByName(Map<TopicPartition, CommittedOffset> offsets) {
        Map<TopicPartition, CommittedOffset> sorted =
                new TreeMap<>((a, b) -> a.topic().equals(b.topic())
                        ? Integer.compare(a.partition(), b.partition())
                        : a.topic().compareTo(b.topic()));
        sorted.putAll(offsets);
        return sorted;
    }

    private static OffsetFetchResponseTopics topicOut(String name, Uuid topicId) {
        return new OffsetFetchResponseTopics().setName(name).setTopicId(topicId);
    }

    private static OffsetFetchResponsePartitions none(int index) {
        return new OffsetFetchResponsePartitions()
                .setPartitionIndex(index)
                .setCommittedOffset(-1)
                .setCommittedLeaderEpoch(-1)
                .setMetadata("");
    }

    private static OffsetFetchResponsePartitions partition(int index, CommittedOffset offset) {
        return new OffsetFetchResponsePartitions()
                .setPartitionIndex(index)
                .setCommittedOffset(offset.offset())
                .setCommittedLeaderEpoch(offset.leaderEpoch())
                .setMetadata(offset.metadata());
    }
}
