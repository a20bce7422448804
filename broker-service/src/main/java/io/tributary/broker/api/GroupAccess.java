package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;

/**
 * The per-item ACL checks of the group requests a broker forwards to the group coordinator ({@link
 * io.tributary.common.security.acl.ApiAccess}): the broker knows the caller, the coordinator sees
 * only the broker, so, as Kafka's {@code KafkaApis} does before calling its group coordinator, the
 * items the caller may not touch are taken out of the request before it is forwarded and their
 * refusals are put into the coordinator's answer where Kafka puts them. The checks Kafka makes on
 * the request as a whole (READ on the request's group) are the listener's ({@code
 * RequestAuthorizer}).
 *
 * <ul>
 *   <li>DescribeGroups: DESCRIBE on each group; refused groups are GROUP_AUTHORIZATION_FAILED
 *       entries ahead of the described ones; the authorized operations asked for (v3+) are the
 *       caller's.
 *   <li>DeleteGroups: DELETE on each group; refused groups follow the coordinator's results.
 *   <li>OffsetCommit: READ on each topic (after READ on the group); a refused topic's partitions are
 *       TOPIC_AUTHORIZATION_FAILED after the committed ones.
 *   <li>ConsumerGroupHeartbeat: DESCRIBE on every subscribed topic name; one refused answers the
 *       whole heartbeat TOPIC_AUTHORIZATION_FAILED (Kafka does not say which).
 * </ul>
 *
 * Not yet checked (they pass as forwarded): OffsetFetch's groups and topics, OffsetDelete's topics,
 * ConsumerGroupDescribe's and StreamsGroupDescribe's groups and the topics in their answers,
 * StreamsGroupHeartbeat's topology topics, the topics a regex subscription matches, ListGroups'
 * filtering and FindCoordinator's keys.
 *
 * <p>Thread-safety: immutable.
 */
final class GroupAccess {

    /**
     * What to forward, and how to turn the coordinator's answer into the caller's.
     *
     * @param forward the request to forward, or null when nothing is left to forward
     * @param answer the caller's answer from the coordinator's ({@code null} when nothing was
     *     forwarded)
     */
    record Split(AbstractRequest forward, UnaryOperator<AbstractResponse> answer) {

        static Split unchanged(AbstractRequest request) {
            return new Split(request, UnaryOperator.identity());
        }
    }

    private final AccessControl acls;
    private final Supplier<ClusterImage> image;

    GroupAccess(AccessControl acls, Supplier<ClusterImage> image) {
        this.acls = Objects.requireNonNull(acls, "acls");
        this.image = Objects.requireNonNull(image, "image");
    }

    /** The request to forward and how to answer; the request unchanged without an authorizer. */
    Split split(KafkaRequest request) {
        if (!acls.enabled()) {
            return Split.unchanged(request.body());
        }
        ConnectionInfo caller = request.connection();
        return switch (request.body()) {
            case DescribeGroupsRequest describe -> describeGroups(describe, caller);
            case DeleteGroupsRequest delete -> deleteGroups(delete, caller);
            case OffsetCommitRequest commit -> offsetCommit(commit, caller);
            case ConsumerGroupHeartbeatRequest heartbeat -> consumerGroupHeartbeat(heartbeat, caller);
            default -> Split.unchanged(request.body());
        };
    }

    private Split describeGroups(DescribeGroupsRequest request, ConnectionInfo caller) {
        short version = request.version();
        List<String> allowed = new ArrayList<>();
        List<DescribeGroupsResponseData.DescribedGroup> refused = new ArrayList<>();
        for (String group : request.data().groups()) {
            if (acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.GROUP, group)) {
                allowed.add(group);
            } else {
                refused.add(DescribeGroupsResponse.groupError(group, Errors.GROUP_AUTHORIZATION_FAILED));
            }
        }
        boolean operations = version >= 3 && request.data().includeAuthorizedOperations();
        DescribeGroupsRequest forward = allowed.isEmpty()
                ? null
                : new DescribeGroupsRequest.Builder(request.data().duplicate().setGroups(allowed)).build(version);
        return new Split(forward, answer -> {
            var data = new DescribeGroupsResponseData();
            data.groups().addAll(refused);
            if (answer != null) {
                var described = ((DescribeGroupsResponse) answer).data();
                data.setThrottleTimeMs(described.throttleTimeMs());
                for (var group : described.groups()) {
                    if (operations && group.errorCode() == Errors.NONE.code()) {
                        group.setAuthorizedOperations(
                                acls.authorizedOperations(caller, AclResourceType.GROUP, group.groupId()));
                    }
                    data.groups().add(group);
                }
            }
            return new DescribeGroupsResponse(data);
        });
    }

    private Split deleteGroups(DeleteGroupsRequest request, ConnectionInfo caller) {
        short version = request.version();
        List<String> allowed = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (String group : new LinkedHashSet<>(request.data().groupsNames())) {
            (acls.allowed(caller, AclOperation.DELETE, AclResourceType.GROUP, group) ? allowed : refused).add(group);
        }
        DeleteGroupsRequest forward = allowed.isEmpty()
                ? null
                : new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData().setGroupsNames(allowed)).build(version);
        return new Split(forward, answer -> {
            var results = new DeleteGroupsResponseData.DeletableGroupResultCollection();
            int throttle = 0;
            if (answer != null) {
                var deleted = ((DeleteGroupsResponse) answer).data();
                throttle = deleted.throttleTimeMs();
                for (var result : deleted.results()) {
                    results.add(result.duplicate());
                }
            }
            for (String group : refused) {
                results.add(new DeleteGroupsResponseData.DeletableGroupResult()
                        .setGroupId(group)
                        .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
            }
            return new DeleteGroupsResponse(
                    new DeleteGroupsResponseData().setThrottleTimeMs(throttle).setResults(results));
        });
    }

    private Split offsetCommit(OffsetCommitRequest request, ConnectionInfo caller) {
        short version = request.version();
        boolean byId = version >= 10;
        ClusterImage current = image.get();
        OffsetCommitRequestData forwarded = request.data().duplicate();
        forwarded.topics().clear();
        List<OffsetCommitResponseData.OffsetCommitResponseTopic> refused = new ArrayList<>();
        for (var topic : request.data().topics()) {
            // a topic id without a name cannot be checked: the coordinator answers UNKNOWN_TOPIC_ID
            String name =
                    byId ? current.topic(topic.topicId()).map(TopicInfo::name).orElse(null) : topic.name();
            if (name == null || acls.allowed(caller, AclOperation.READ, AclResourceType.TOPIC, name)) {
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

    private Split consumerGroupHeartbeat(ConsumerGroupHeartbeatRequest request, ConnectionInfo caller) {
        ConsumerGroupHeartbeatRequestData data = request.data();
        List<String> names = data.subscribedTopicNames();
        if (names == null || names.isEmpty()) {
            return Split.unchanged(request);
        }
        for (String name : names) {
            if (!acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.TOPIC, name)) {
                AbstractResponse refusal = request.getErrorResponse(0, Errors.TOPIC_AUTHORIZATION_FAILED.exception());
                return new Split(null, ignored -> refusal);
            }
        }
        return Split.unchanged(request);
    }
}
