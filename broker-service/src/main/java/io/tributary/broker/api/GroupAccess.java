package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.StreamsGroupDescribeRequest;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatRequest;

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
 *   <li>OffsetCommit, OffsetFetch, OffsetDelete: {@link OffsetAccess}.
 *   <li>ConsumerGroupDescribe, StreamsGroupDescribe: {@link GroupDescribeAccess}.
 *   <li>ConsumerGroupHeartbeat: DESCRIBE on every subscribed topic name; StreamsGroupHeartbeat:
 *       DESCRIBE on every topic of the topology sent (source, repartition sink and source,
 *       changelog); one refused answers the whole heartbeat TOPIC_AUTHORIZATION_FAILED (Kafka does
 *       not say which).
 * </ul>
 *
 * Not checked here (see the broker README): the topics a consumer group's regex subscription
 * matches, which Kafka's coordinator filters by DESCRIBE for the member whose heartbeat resolved
 * the regex (Tributary's coordinator does not know the caller), and the CREATE Kafka requires
 * before it creates a streams group's internal topics (Tributary's coordinator creates them).
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
    private final OffsetAccess offsets;
    private final GroupDescribeAccess describes;

    /** @param image the topic names behind the topic ids of OffsetCommit and OffsetFetch v10 */
    GroupAccess(AccessControl acls, Supplier<ClusterImage> image) {
        this.acls = Objects.requireNonNull(acls, "acls");
        this.offsets = new OffsetAccess(acls, image);
        this.describes = new GroupDescribeAccess(acls);
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
            case OffsetCommitRequest commit -> offsets.offsetCommit(commit, caller);
            case OffsetFetchRequest fetch -> offsets.offsetFetch(fetch, caller);
            case OffsetDeleteRequest delete -> offsets.offsetDelete(delete, caller);
            case ConsumerGroupDescribeRequest describe -> describes.consumerGroupDescribe(describe, caller);
            case StreamsGroupDescribeRequest describe -> describes.streamsGroupDescribe(describe, caller);
            case ConsumerGroupHeartbeatRequest heartbeat -> consumerGroupHeartbeat(heartbeat, caller);
            case StreamsGroupHeartbeatRequest heartbeat -> streamsGroupHeartbeat(heartbeat, caller);
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

    private Split consumerGroupHeartbeat(ConsumerGroupHeartbeatRequest request, ConnectionInfo caller) {
        List<String> names = request.data().subscribedTopicNames();
        return names == null ? Split.unchanged(request) : describingEvery(request, names.stream(), caller);
    }

    private Split streamsGroupHeartbeat(StreamsGroupHeartbeatRequest request, ConnectionInfo caller) {
        StreamsGroupHeartbeatRequestData.Topology topology = request.data().topology();
        if (topology == null) {
            return Split.unchanged(request);
        }
        Stream<String> topics = topology.subtopologies().stream()
                .flatMap(s -> Stream.of(
                                s.sourceTopics().stream(),
                                s.repartitionSinkTopics().stream(),
                                s.repartitionSourceTopics().stream()
                                        .map(StreamsGroupHeartbeatRequestData.TopicInfo::name),
                                s.stateChangelogTopics().stream().map(StreamsGroupHeartbeatRequestData.TopicInfo::name))
                        .flatMap(Function.identity()));
        return describingEvery(request, topics, caller);
    }

    /**
     * The request unchanged when the caller may describe every topic of {@code topics} (each
     * distinct name checked once), else its whole refusal TOPIC_AUTHORIZATION_FAILED (Kafka does
     * not say which topic).
     */
    private Split describingEvery(AbstractRequest request, Stream<String> topics, ConnectionInfo caller) {
        for (String name : topics.collect(Collectors.toCollection(LinkedHashSet::new))) {
            if (!acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.TOPIC, name)) {
                AbstractResponse refusal = request.getErrorResponse(0, Errors.TOPIC_AUTHORIZATION_FAILED.exception());
                return new Split(null, ignored -> refusal);
            }
        }
        return Split.unchanged(request);
    }
}
