package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupCoordinator.Committer;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.TopicIdPartition;
import io.tributary.coordinator.group.TopicView.TopicInfo;
import io.tributary.coordinator.metadata.TopicPartition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;

/**
 * OffsetCommit (API 8), versions 2 to 10 (every version kafka-clients 4.4 parses). Version 10 names
 * topics by id, resolved through the coordinator's metadata (UNKNOWN_TOPIC_ID when absent).
 *
 * <p>Into a classic group (JoinGroup/SyncGroup members), Kafka's classic rules at every version
 * (see {@link io.tributary.coordinator.group.classic.ClassicGroupCoordinator#validateCommit}):
 * generation -1 into an empty group, else a member at the current generation (ILLEGAL_GENERATION,
 * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, REBALANCE_IN_PROGRESS while CompletingRebalance).
 *
 * <p>Who may commit into any other group (KIP-848): a member at its current epoch (OffsetCommit 9 or later; a member of
 * a consumer group using an older version is UNSUPPORTED_VERSION, as in Kafka), a member at an
 * older epoch for partitions it owns since that epoch or before (KIP-1251, see {@link
 * io.tributary.coordinator.group.GroupCoordinator#validateCommit}), or member epoch -1 into a group
 * with no members (admin clients, consumers using {@code assign()}). Any other epoch of a member
 * gets STALE_MEMBER_EPOCH (ILLEGAL_GENERATION below version 9), an unknown member
 * UNKNOWN_MEMBER_ID, a group unknown here GROUP_ID_NOT_FOUND (ILLEGAL_GENERATION below version 9,
 * as Kafka; UNKNOWN_MEMBER_ID for a session timeout after this coordinator became leader, so that
 * a member from before a failover joins again). Per partition: a topic or partition that does not exist is
 * UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID for an id; the store keeps offsets of existing
 * partitions only, so accepting them would lose them silently), metadata longer than {@code max-metadata-bytes} is
 * OFFSET_METADATA_TOO_LARGE, a negative offset INVALID_REQUEST. The accepted partitions are stored
 * all or none; a store failure is NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE (retriable) or, for a
 * store bound, INVALID_COMMIT_OFFSET_SIZE.
 *
 * <p>Thread-safe.
 */
public final class OffsetCommitHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.OFFSET_COMMIT, 2, 10);

    private final GroupService service;

    public OffsetCommitHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    private record Slot(OffsetCommitResponsePartition response, TopicPartition partition, CommittedOffset offset) {}

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        OffsetCommitRequestData data = request.body(OffsetCommitRequest.class).data();
        short version = request.header().apiVersion();
        var response = new OffsetCommitResponseData();
        List<OffsetCommitResponsePartition> all = new ArrayList<>();
        Map<OffsetCommitRequestData.OffsetCommitRequestPartition, OffsetCommitResponsePartition> byRequest =
                new IdentityHashMap<>();
        for (var topic : data.topics()) {
            var topicResponse =
                    new OffsetCommitResponseTopic().setName(topic.name()).setTopicId(topic.topicId());
            for (var partition : topic.partitions()) {
                var partitionResponse =
                        new OffsetCommitResponsePartition().setPartitionIndex(partition.partitionIndex());
                topicResponse.partitions().add(partitionResponse);
                all.add(partitionResponse);
                byRequest.put(partition, partitionResponse);
            }
            response.topics().add(topicResponse);
        }
        Errors groupError = validate(data, version);
        if (groupError != Errors.NONE) {
            all.forEach(p -> p.setErrorCode(groupError.code()));
            return new OffsetCommitResponse(response);
        }
        long now = service.nowMs();
        List<Slot> accepted = new ArrayList<>();
        for (var topic : data.topics()) {
            Optional<TopicInfo> info = version >= 10
                    ? service.topics().byId(GroupService.uuid(topic.topicId()))
                    : service.topics().byName(topic.name());
            Optional<String> name = info.map(TopicInfo::name);
            for (var partition : topic.partitions()) {
                OffsetCommitResponsePartition out = byRequest.get(partition);
                if (info.isEmpty()) {
                    out.setErrorCode(
                            version >= 10 ? Errors.UNKNOWN_TOPIC_ID.code() : Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else if (partition.partitionIndex() >= info.get().partitionCount()) {
                    out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else if (service.groups().metadataTooLarge(partition.committedMetadata())) {
                    out.setErrorCode(Errors.OFFSET_METADATA_TOO_LARGE.code());
                } else if (partition.committedOffset() < 0 || partition.partitionIndex() < 0) {
                    out.setErrorCode(Errors.INVALID_REQUEST.code());
                } else {
                    String metadata = partition.committedMetadata() == null ? "" : partition.committedMetadata();
                    accepted.add(new Slot(
                            out,
                            new TopicPartition(name.get(), partition.partitionIndex()),
                            new CommittedOffset(
                                    partition.committedOffset(), partition.committedLeaderEpoch(), metadata, now)));
                }
            }
        }
        if (accepted.isEmpty()) {
            return new OffsetCommitResponse(response);
        }
        Map<TopicPartition, CommittedOffset> offsets = new LinkedHashMap<>();
        accepted.forEach(slot -> offsets.put(slot.partition(), slot.offset()));
        try {
            service.offsets().commit(data.groupId(), offsets);
        } catch (OffsetStoreException e) {
            Errors error = GroupService.storeError(e, Errors.INVALID_COMMIT_OFFSET_SIZE);
            accepted.forEach(slot -> slot.response().setErrorCode(error.code()));
        }
        return new OffsetCommitResponse(response);
    }

    private Errors validate(OffsetCommitRequestData data, short version) {
        if (data.groupId().isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        try {
            service.requireLeader();
            if (service.classic()
                    .validateCommit(
                            data.groupId(),
                            data.memberId(),
                            data.generationIdOrMemberEpoch(),
                            Optional.ofNullable(data.groupInstanceId()))
                    .isPresent()) {
                return Errors.NONE;
            }
            Optional<Committer> streamsCommitter = service.streams()
                    .validateCommit(
                            data.groupId(),
                            data.memberId(),
                            data.generationIdOrMemberEpoch(),
                            Optional.ofNullable(data.groupInstanceId()),
                            partitionsByName(data, version));
            if (streamsCommitter.isPresent()) {
                return streamsCommitter.get() == Committer.MEMBER && version < 9
                        ? Errors.UNSUPPORTED_VERSION
                        : Errors.NONE;
            }
            if (data.generationIdOrMemberEpoch() >= 0
                    && !service.groups().contains(data.groupId())
                    && !service.offsets().fetch(data.groupId()).isEmpty()) {
                // A group with committed offsets only is, to Kafka, an empty "simple" classic group:
                // whoever claims a generation in it is an unknown member.
                return Errors.UNKNOWN_MEMBER_ID;
            }
            Committer committer = service.groups()
                    .validateCommit(
                            data.groupId(),
                            data.memberId(),
                            data.generationIdOrMemberEpoch(),
                            Optional.ofNullable(data.groupInstanceId()),
                            partitions(data, version));
            if (committer == Committer.MEMBER && version < 9) {
                return Errors.UNSUPPORTED_VERSION;
            }
            return Errors.NONE;
        } catch (GroupException e) {
            if ((e.error() == Errors.STALE_MEMBER_EPOCH || e.error() == Errors.GROUP_ID_NOT_FOUND) && version < 9) {
                return Errors.ILLEGAL_GENERATION;
            }
            return e.error();
        }
    }

    /** The committed partitions by topic name (a topic that does not resolve is left out: none of its tasks). */
    private Map<String, List<Integer>> partitionsByName(OffsetCommitRequestData data, short version) {
        Map<String, List<Integer>> partitions = new TreeMap<>();
        for (var topic : data.topics()) {
            Optional<String> name = version >= 10
                    ? service.topics().byId(GroupService.uuid(topic.topicId())).map(TopicInfo::name)
                    : Optional.of(topic.name());
            for (var partition : topic.partitions()) {
                partitions
                        .computeIfAbsent(name.orElse(""), k -> new ArrayList<>())
                        .add(Math.max(0, partition.partitionIndex()));
            }
        }
        return partitions;
    }

    /** A topic id no member owns: stands for a committed topic that does not resolve (KIP-1251 check). */
    private static final UUID UNRESOLVED = new UUID(0, 0);

    /** The committed partitions by topic id, for the assignment-epoch check of an older member epoch. */
    private Set<TopicIdPartition> partitions(OffsetCommitRequestData data, short version) {
        Set<TopicIdPartition> partitions = new HashSet<>();
        for (var topic : data.topics()) {
            UUID id = (version >= 10
                            ? service.topics().byId(GroupService.uuid(topic.topicId()))
                            : service.topics().byName(topic.name()))
                    .map(TopicInfo::id)
                    .orElse(UNRESOLVED);
            for (var partition : topic.partitions()) {
                partitions.add(new TopicIdPartition(id, Math.max(0, partition.partitionIndex())));
            }
        }
        return partitions;
    }
}
