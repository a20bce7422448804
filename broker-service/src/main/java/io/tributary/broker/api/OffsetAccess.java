package io.tributary.broker.api;

import io.tributary.broker.api.GroupAccess.Split;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;

/**
 * The per-topic (and, for OffsetFetch, per-group) ACL checks of the forwarded offset requests, as
 * Kafka's {@code KafkaApis} makes them before calling its group coordinator ({@link GroupAccess}
 * says how a {@link Split} is used). The request's own group is the listener's check ({@code
 * RequestAuthorizer}: READ for OffsetCommit, DELETE for OffsetDelete).
 *
 * <ul>
 *   <li>OffsetCommit: READ on each topic; a refused topic's partitions are
 *       TOPIC_AUTHORIZATION_FAILED after the committed ones.
 *   <li>OffsetFetch: DESCRIBE on each group (one refused is GROUP_AUTHORIZATION_FAILED in its place;
 *       before v8, the one group's refusal is the answer's error), then, for the groups allowed,
 *       DESCRIBE on each topic named: refused topics are not asked for and follow the
 *       coordinator's topics with offset -1 and TOPIC_AUTHORIZATION_FAILED, unless the coordinator
 *       answered the group with an error; a group asked for all its topics has the ones the caller
 *       may not describe left out of its answer.
 *   <li>OffsetDelete: READ (not DELETE) on each topic; a refused topic's partitions are
 *       TOPIC_AUTHORIZATION_FAILED ahead of the coordinator's; a group-level error from the
 *       coordinator is the whole answer, as in Kafka.
 * </ul>
 *
 * Topics named by id (OffsetCommit and OffsetFetch v10) are checked under the name this broker's
 * image has for the id; an id it does not know is left to the coordinator (UNKNOWN_TOPIC_ID).
 *
 * <p>Thread-safety: immutable.
 */
final class OffsetAccess {

    private final AccessControl acls;
    private final Supplier<ClusterImage> image;

    OffsetAccess(AccessControl acls, Supplier<ClusterImage> image) {
        this.acls = Objects.requireNonNull(acls, "acls");
        this.image = Objects.requireNonNull(image, "image");
    }

    /** The name behind a topic given by name, or by id from v10 (null when the id is unknown). */
    private static String topicName(ClusterImage image, boolean byId, String name, Uuid id) {
        return byId ? image.topic(id).map(TopicInfo::name).orElse(null) : name;
    }

    private boolean mayUse(ConnectionInfo caller, AclOperation operation, String topic) {
        // a topic id without a name cannot be checked: the coordinator answers UNKNOWN_TOPIC_ID
        return topic == null || acls.allowed(caller, operation, AclResourceType.TOPIC, topic);
    }

    Split offsetCommit(OffsetCommitRequest request, ConnectionInfo caller) {
        short version = request.version();
        boolean byId = version >= 10;
        ClusterImage current = image.get();
        OffsetCommitRequestData forwarded = request.data().duplicate();
        forwarded.topics().clear();
        List<OffsetCommitResponseData.OffsetCommitResponseTopic> refused = new ArrayList<>();
        for (var topic : request.data().topics()) {
            String name = topicName(current, byId, topic.name(), topic.topicId());
            if (mayUse(caller, AclOperation.READ, name)) {
                forwarded.topics().add(topic.duplicate());
                continue;
            }
            var out = new OffsetCommitResponseData.OffsetCommitResponseTopic()
                    .setName(byId ? "" : topic.name())
                    .setTopicId(byId ? topic.topicId() : Uuid.ZERO_UUID);
            for (var partition : topic.partitions()) {
                out.partitions()
                        .add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                .setPartitionIndex(partition.partitionIndex())
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
            }
            refused.add(out);
        }
        if (refused.isEmpty()) {
            return Split.unchanged(request);
        }
        OffsetCommitRequest forward = forwarded.topics().isEmpty() ? null : new OffsetCommitRequest(forwarded, version);
        return new Split(forward, answer -> {
            var data = new OffsetCommitResponseData();
            if (answer != null) {
                var committed = ((OffsetCommitResponse) answer).data();
                data.setThrottleTimeMs(committed.throttleTimeMs());
                data.topics().addAll(committed.topics());
            }
            data.topics().addAll(refused);
            return new OffsetCommitResponse(data);
        });
    }

    Split offsetFetch(OffsetFetchRequest request, ConnectionInfo caller) {
        short version = request.version();
        boolean byId = version >= 10;
        ClusterImage current = image.get();
        List<OffsetFetchRequestGroup> asked = request.groups();
        List<OffsetFetchRequestGroup> forwarded = new ArrayList<>();
        Set<String> refusedGroups = new HashSet<>();
        Map<String, List<OffsetFetchResponseTopics>> refusedTopics = new HashMap<>();
        boolean changed = false;
        for (OffsetFetchRequestGroup group : asked) {
            if (!acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.GROUP, group.groupId())) {
                refusedGroups.add(group.groupId());
                changed = true;
                continue;
            }
            OffsetFetchRequestGroup out = group.duplicate();
            forwarded.add(out);
            if (group.topics() == null) {
                changed = true; // its answer is filtered
                continue;
            }
            out.setTopics(new ArrayList<>());
            for (var topic : group.topics()) {
                String name = topicName(current, byId, topic.name(), topic.topicId());
                if (mayUse(caller, AclOperation.DESCRIBE, name)) {
                    out.topics().add(topic.duplicate());
                    continue;
                }
                var refused =
                        new OffsetFetchResponseTopics().setName(topic.name()).setTopicId(topic.topicId());
                for (int partition : topic.partitionIndexes()) {
                    refused.partitions()
                            .add(new OffsetFetchResponsePartitions()
                                    .setPartitionIndex(partition)
                                    .setCommittedOffset(OffsetFetchResponse.INVALID_OFFSET)
                                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                }
                refusedTopics
                        .computeIfAbsent(group.groupId(), g -> new ArrayList<>())
                        .add(refused);
                changed = true;
            }
        }
        if (!changed) {
            return Split.unchanged(request);
        }
        OffsetFetchRequest forward = forwarded.isEmpty()
                ? null
                : OffsetFetchRequest.Builder.forTopicIdsOrNames(
                                new OffsetFetchRequestData()
                                        .setGroups(forwarded)
                                        .setRequireStable(request.requireStable()),
                                false)
                        .build(version);
        return new Split(forward, answer -> {
            OffsetFetchResponse fetched = (OffsetFetchResponse) answer;
            if (version < OffsetFetchRequest.BATCH_MIN_VERSION
                    && fetched != null
                    && fetched.group(asked.getFirst().groupId()).errorCode() != Errors.NONE.code()) {
                return fetched; // the coordinator's group-level error, as it gave it
            }
            List<OffsetFetchResponseGroup> groups = new ArrayList<>();
            for (OffsetFetchRequestGroup group : asked) {
                String id = group.groupId();
                if (refusedGroups.contains(id)) {
                    groups.add(new OffsetFetchResponseGroup()
                            .setGroupId(id)
                            .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                    continue;
                }
                OffsetFetchResponseGroup got = fetched.group(id);
                if (got.errorCode() == Errors.NONE.code()) {
                    if (group.topics() == null) {
                        got.setTopics(new ArrayList<>(got.topics().stream()
                                .filter(t -> describable(caller, current, byId, t))
                                .toList()));
                    } else {
                        got.topics().addAll(refusedTopics.getOrDefault(id, List.of()));
                    }
                }
                groups.add(got);
            }
            OffsetFetchResponse out = new OffsetFetchResponse.Builder(groups).build(version);
            out.data().setThrottleTimeMs(fetched == null ? 0 : fetched.throttleTimeMs());
            return out;
        });
    }

    /** Whether a topic of an all-topics answer stays: one whose name is unknown (by id) does not. */
    private boolean describable(
            ConnectionInfo caller, ClusterImage current, boolean byId, OffsetFetchResponseTopics t) {
        String name = topicName(current, byId, t.name(), t.topicId());
        return name != null && acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.TOPIC, name);
    }

    Split offsetDelete(OffsetDeleteRequest request, ConnectionInfo caller) {
        OffsetDeleteRequestData forwarded = request.data().duplicate();
        forwarded.topics().clear();
        var refused = new OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection();
        for (var topic : request.data().topics()) {
            if (mayUse(caller, AclOperation.READ, topic.name())) {
                forwarded.topics().add(topic.duplicate());
                continue;
            }
            var out = new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(topic.name());
            for (var partition : topic.partitions()) {
                out.partitions()
                        .add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                                .setPartitionIndex(partition.partitionIndex())
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
            }
            refused.add(out);
        }
        if (refused.isEmpty()) {
            return Split.unchanged(request);
        }
        // the group is still asked (with the topics left, maybe none): its own errors come first
        OffsetDeleteRequest forward = new OffsetDeleteRequest.Builder(forwarded).build(request.version());
        return new Split(forward, answer -> {
            var deleted = ((OffsetDeleteResponse) answer).data();
            if (deleted.errorCode() != Errors.NONE.code()) {
                return request.getErrorResponse(
                        deleted.throttleTimeMs(),
                        Errors.forCode(deleted.errorCode()).exception());
            }
            var data = new OffsetDeleteResponseData().setThrottleTimeMs(deleted.throttleTimeMs());
            refused.forEach(t -> data.topics().add(t.duplicate()));
            deleted.topics().forEach(t -> data.topics().add(t.duplicate()));
            return new OffsetDeleteResponse(data);
        });
    }
}
