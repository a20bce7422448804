package io.tributary.broker.api;

import io.tributary.broker.api.GroupAccess.Split;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.requests.StreamsGroupDescribeRequest;
import org.apache.kafka.common.requests.StreamsGroupDescribeResponse;

/**
 * The ACL checks of the forwarded KIP-848 and KIP-1071 describe requests, as Kafka's {@code
 * KafkaApis} makes them around its group coordinator ({@link GroupAccess} says how a {@link Split}
 * is used):
 *
 * <ul>
 *   <li>DESCRIBE on each group: refused groups are GROUP_AUTHORIZATION_FAILED entries ahead of the
 *       described ones, and are not forwarded; the authorized operations asked for are the
 *       caller's, on the groups described without error.
 *   <li>then DESCRIBE on every topic the answer shows: a consumer group's members' assignments and
 *       target assignments, a streams group's topology (source, repartition sink, repartition source
 *       and changelog topics). A group showing one the caller may not describe is replaced by
 *       TOPIC_AUTHORIZATION_FAILED with Kafka's message and no members (nor topology).
 * </ul>
 *
 * <p>Thread-safety: immutable.
 */
final class GroupDescribeAccess {

    static final String CONSUMER_GROUP_TOPICS_REFUSED =
            "The group has described topic(s) that the client is not authorized to describe.";
    static final String STREAMS_GROUP_TOPICS_REFUSED =
            "The described group uses topics that the client is not authorized to describe.";

    private final AccessControl acls;

    GroupDescribeAccess(AccessControl acls) {
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    /** The groups the caller may describe, in the order asked. */
    private List<String> describable(ConnectionInfo caller, List<String> groups, List<String> refused) {
        List<String> allowed = new ArrayList<>();
        for (String group : groups) {
            (acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.GROUP, group) ? allowed : refused).add(group);
        }
        return allowed;
    }

    /**
     * How {@link #screen} reads and changes one kind of described group.
     *
     * @param id its group id
     * @param error its error code
     * @param setOperations sets its authorized operations
     * @param topics the topics it shows
     * @param hidden its replacement when it shows a topic the caller may not describe
     */
    private record Shape<G>(
            Function<G, String> id,
            Function<G, Short> error,
            BiConsumer<G, Integer> setOperations,
            Function<G, Stream<String>> topics,
            UnaryOperator<G> hidden) {}

    /**
     * The described groups as the caller gets them: its authorized operations on those described
     * without error (when asked for), and each group showing a topic it may not DESCRIBE replaced
     * (each distinct topic checked once, a refusal audited once, as Kafka's batched filter).
     */
    private <G> List<G> screen(List<G> described, Shape<G> shape, boolean operations, ConnectionInfo caller) {
        Map<String, Boolean> decided = new HashMap<>();
        Predicate<String> topicAllowed = topic -> decided.computeIfAbsent(
                topic, t -> acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.TOPIC, t));
        List<G> groups = new ArrayList<>();
        for (G group : described) {
            if (operations && shape.error().apply(group) == Errors.NONE.code()) {
                shape.setOperations()
                        .accept(
                                group,
                                acls.authorizedOperations(
                                        caller,
                                        AclResourceType.GROUP,
                                        shape.id().apply(group)));
            }
            boolean hidden = shape.topics().apply(group).anyMatch(topicAllowed.negate());
            groups.add(hidden ? shape.hidden().apply(group) : group);
        }
        return groups;
    }

    Split consumerGroupDescribe(ConsumerGroupDescribeRequest request, ConnectionInfo caller) {
        ConsumerGroupDescribeRequestData data = request.data();
        List<String> refused = new ArrayList<>();
        List<String> allowed = describable(caller, data.groupIds(), refused);
        ConsumerGroupDescribeRequest forward = allowed.isEmpty()
                ? null
                : new ConsumerGroupDescribeRequest.Builder(data.duplicate().setGroupIds(allowed))
                        .build(request.version());
        return new Split(forward, answer -> {
            var out = new ConsumerGroupDescribeResponseData();
            refused.forEach(group -> out.groups()
                    .add(new ConsumerGroupDescribeResponseData.DescribedGroup()
                            .setGroupId(group)
                            .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())));
            if (answer != null) {
                var described = ((ConsumerGroupDescribeResponse) answer).data();
                out.setThrottleTimeMs(described.throttleTimeMs());
                out.groups().addAll(described.groups());
            }
            List<ConsumerGroupDescribeResponseData.DescribedGroup> groups = screen(
                    out.groups(),
                    new Shape<>(
                            ConsumerGroupDescribeResponseData.DescribedGroup::groupId,
                            ConsumerGroupDescribeResponseData.DescribedGroup::errorCode,
                            ConsumerGroupDescribeResponseData.DescribedGroup::setAuthorizedOperations,
                            group -> group.members().stream()
                                    .flatMap(m -> Stream.of(m.assignment(), m.targetAssignment()))
                                    .filter(Objects::nonNull)
                                    .flatMap(a -> a.topicPartitions().stream())
                                    .map(ConsumerGroupDescribeResponseData.TopicPartitions::topicName),
                            group -> new ConsumerGroupDescribeResponseData.DescribedGroup()
                                    .setGroupId(group.groupId())
                                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                    .setErrorMessage(CONSUMER_GROUP_TOPICS_REFUSED)),
                    data.includeAuthorizedOperations(),
                    caller);
            return new ConsumerGroupDescribeResponse(out.setGroups(groups));
        });
    }

    Split streamsGroupDescribe(StreamsGroupDescribeRequest request, ConnectionInfo caller) {
        StreamsGroupDescribeRequestData data = request.data();
        List<String> refused = new ArrayList<>();
        List<String> allowed = describable(caller, data.groupIds(), refused);
        StreamsGroupDescribeRequest forward = allowed.isEmpty()
                ? null
                : new StreamsGroupDescribeRequest.Builder(data.duplicate().setGroupIds(allowed))
                        .build(request.version());
        return new Split(forward, answer -> {
            var out = new StreamsGroupDescribeResponseData();
            refused.forEach(group -> out.groups()
                    .add(new StreamsGroupDescribeResponseData.DescribedGroup()
                            .setGroupId(group)
                            .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())));
            if (answer != null) {
                var described = ((StreamsGroupDescribeResponse) answer).data();
                out.setThrottleTimeMs(described.throttleTimeMs());
                out.groups().addAll(described.groups());
            }
            List<StreamsGroupDescribeResponseData.DescribedGroup> groups = screen(
                    out.groups(),
                    new Shape<>(
                            StreamsGroupDescribeResponseData.DescribedGroup::groupId,
                            StreamsGroupDescribeResponseData.DescribedGroup::errorCode,
                            StreamsGroupDescribeResponseData.DescribedGroup::setAuthorizedOperations,
                            GroupDescribeAccess::topologyTopics,
                            group -> new StreamsGroupDescribeResponseData.DescribedGroup()
                                    .setGroupId(group.groupId())
                                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                    .setErrorMessage(STREAMS_GROUP_TOPICS_REFUSED)
                                    .setTopology(null)),
                    data.includeAuthorizedOperations(),
                    caller);
            return new StreamsGroupDescribeResponse(out.setGroups(groups));
        });
    }

    /** The topics a described streams group's topology names. */
    private static Stream<String> topologyTopics(StreamsGroupDescribeResponseData.DescribedGroup group) {
        if (group.topology() == null) {
            return Stream.empty();
        }
        return group.topology().subtopologies().stream()
                .flatMap(s -> Stream.of(
                                s.sourceTopics().stream(),
                                s.repartitionSinkTopics().stream(),
                                s.repartitionSourceTopics().stream()
                                        .map(StreamsGroupDescribeResponseData.TopicInfo::name),
                                s.stateChangelogTopics().stream().map(StreamsGroupDescribeResponseData.TopicInfo::name))
                        .flatMap(Function.identity()));
    }
}
