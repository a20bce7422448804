package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupDescription;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.TopicIdPartition;
import io.tributary.coordinator.group.TopicView.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;

/**
 * ConsumerGroupDescribe (API 69), versions 0 and 1 (what the AdminClient's {@code
 * describeConsumerGroups} sends first): state, epochs, assignor, and per member its epoch,
 * subscription, current assignment and target assignment (topic names from the coordinator's
 * metadata; partitions of a topic that no longer exists are left out). An unknown group, and one
 * with committed offsets but no membership here (to Kafka a "simple" classic group), is
 * GROUP_ID_NOT_FOUND (the AdminClient then falls back to DescribeGroups, which describes the
 * latter as Empty); an empty group id is INVALID_GROUP_ID.
 *
 * <p>Thread-safe.
 */
public final class ConsumerGroupDescribeHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.CONSUMER_GROUP_DESCRIBE, 0, 1);

    /** ConsumerGroupDescribe v1's MemberType of a KIP-848 member. */
    static final byte CONSUMER_MEMBER_TYPE = 1;

    /** A member speaking the classic protocol in a consumer group (a mixed group), as Kafka's v1. */
    static final byte CLASSIC_MEMBER_TYPE = 0;

    private final GroupService service;

    public ConsumerGroupDescribeHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        ConsumerGroupDescribeRequestData data =
                request.body(ConsumerGroupDescribeRequest.class).data();
        var response = new ConsumerGroupDescribeResponseData();
        Errors leaderError = Errors.NONE;
        try {
            service.requireLeader();
        } catch (GroupException e) {
            leaderError = e.error();
        }
        for (String groupId : data.groupIds()) {
            var described = new DescribedGroup().setGroupId(groupId);
            if (leaderError != Errors.NONE) {
                described.setErrorCode(leaderError.code()).setErrorMessage(leaderError.message());
            } else if (groupId.isEmpty()) {
                described.setErrorCode(Errors.INVALID_GROUP_ID.code()).setErrorMessage("the group id is empty");
            } else if (service.classic().contains(groupId) || service.streams().contains(groupId)) {
                // As Kafka: the admin client then describes it with DescribeGroups.
                described
                        .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("group " + groupId + " is not a consumer group");
            } else {
                Optional<GroupDescription> group = GroupViews.find(service, groupId);
                if (group.isEmpty()) {
                    described
                            .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                            .setErrorMessage("Group " + groupId + " not found.");
                } else if (GroupViews.offsetsOnly(service, group.get())) {
                    // Committed offsets and no membership: to Kafka a "simple" classic group (made
                    // by an admin's or an assign() consumer's commit), described by DescribeGroups,
                    // where the admin client goes next; ListGroups lists it as classic too.
                    described
                            .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                            .setErrorMessage("Group " + groupId + " is not a consumer group.");
                } else {
                    describe(group.get(), described);
                }
            }
            response.groups().add(described);
        }
        return new ConsumerGroupDescribeResponse(response);
    }

    private void describe(GroupDescription group, DescribedGroup out) {
        out.setGroupState(group.state())
                .setGroupEpoch(group.groupEpoch())
                .setAssignmentEpoch(group.assignmentEpoch())
                .setAssignorName(group.assignor());
        for (GroupDescription.Member member : group.members()) {
            out.members()
                    .add(new ConsumerGroupDescribeResponseData.Member()
                            .setMemberId(member.memberId())
                            .setInstanceId(member.instanceId().orElse(null))
                            .setRackId(member.rackId().orElse(null))
                            .setMemberEpoch(member.memberEpoch())
                            .setClientId(member.clientId())
                            .setClientHost(member.clientHost())
                            .setSubscribedTopicNames(member.subscribedTopicNames())
                            .setSubscribedTopicRegex(
                                    member.subscribedTopicRegex().orElse(null))
                            .setAssignment(assignment(member.assigned()))
                            .setTargetAssignment(assignment(member.target()))
                            .setMemberType(member.classic().isPresent() ? CLASSIC_MEMBER_TYPE : CONSUMER_MEMBER_TYPE));
        }
    }

    private ConsumerGroupDescribeResponseData.Assignment assignment(SortedSet<TopicIdPartition> partitions) {
        List<ConsumerGroupDescribeResponseData.TopicPartitions> topics = new ArrayList<>();
        GroupService.byTopic(partitions).forEach((id, indexes) -> {
            Optional<TopicInfo> topic = service.topics().byId(id);
            topic.ifPresent(info -> topics.add(new ConsumerGroupDescribeResponseData.TopicPartitions()
                    .setTopicId(GroupService.kafkaUuid(id))
                    .setTopicName(info.name())
                    .setPartitions(indexes)));
        });
        return new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(topics);
    }
}
