package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.requests.StreamsGroupDescribeRequest;
import org.apache.kafka.common.requests.StreamsGroupDescribeResponse;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupDescribeAccess} through {@link GroupAccess} over a real ACL set ({@link TestAcls}),
 * caller {@code User:alice}: DESCRIBE on each group, then on every topic the described groups
 * show, as Kafka's {@code KafkaApis} answers ConsumerGroupDescribe and StreamsGroupDescribe.
 */
class GroupDescribeAccessTest {

    private final TestAcls acls = TestAcls.alice();
    private final GroupAccess access = new GroupAccess(acls.access, TestImages::cluster);

    private GroupAccess.Split split(AbstractRequest body) {
        return access.split(TestAcls.fromAlice(body));
    }

    private static ConsumerGroupDescribeResponseData.DescribedGroup consumerGroup(String id, String assignedTopic) {
        var assignment = new ConsumerGroupDescribeResponseData.Assignment();
        assignment
                .topicPartitions()
                .add(new ConsumerGroupDescribeResponseData.TopicPartitions()
                        .setTopicId(Uuid.randomUuid())
                        .setTopicName(assignedTopic)
                        .setPartitions(List.of(0)));
        var group = new ConsumerGroupDescribeResponseData.DescribedGroup()
                .setGroupId(id)
                .setGroupState("Stable");
        group.members()
                .add(new ConsumerGroupDescribeResponseData.Member()
                        .setMemberId("m1")
                        .setAssignment(assignment)
                        .setTargetAssignment(new ConsumerGroupDescribeResponseData.Assignment()));
        return group;
    }

    @Test
    void consumerGroupDescribeRefusesGroupsFirstThenHidesGroupsShowingUndescribableTopics() {
        acls.allow(AclResourceType.GROUP, "a", AclOperation.DESCRIBE)
                .allow(AclResourceType.GROUP, "b", AclOperation.DESCRIBE)
                .allow(AclResourceType.TOPIC, "orders", AclOperation.READ);
        var request = new ConsumerGroupDescribeRequest.Builder(new ConsumerGroupDescribeRequestData()
                        .setGroupIds(List.of("a", "b", "c"))
                        .setIncludeAuthorizedOperations(true))
                .build((short) 1);
        var split = split(request);
        assertThat(((ConsumerGroupDescribeRequest) split.forward()).data().groupIds())
                .containsExactly("a", "b");

        var described = new ConsumerGroupDescribeResponseData()
                .setGroups(new ArrayList<>(List.of(consumerGroup("a", "orders"), consumerGroup("b", "events"))));
        var answer = (ConsumerGroupDescribeResponse) split.answer().apply(new ConsumerGroupDescribeResponse(described));

        var groups = answer.data().groups();
        assertThat(groups)
                .extracting(
                        g -> g.groupId(),
                        g -> Errors.forCode(g.errorCode()),
                        g -> g.members().size())
                .containsExactly(
                        tuple("c", Errors.GROUP_AUTHORIZATION_FAILED, 0),
                        tuple("a", Errors.NONE, 1),
                        tuple("b", Errors.TOPIC_AUTHORIZATION_FAILED, 0));
        assertThat(groups.get(1).authorizedOperations()).isEqualTo(1 << AclOperation.DESCRIBE.code());
        assertThat(groups.get(2).errorMessage()).isEqualTo(GroupDescribeAccess.CONSUMER_GROUP_TOPICS_REFUSED);
    }

    @Test
    void streamsGroupDescribeHidesAGroupWhoseTopologyUsesAnUndescribableTopic() {
        acls.allow(AclResourceType.GROUP, "app", AclOperation.DESCRIBE)
                .allow(AclResourceType.TOPIC, "orders", AclOperation.DESCRIBE);
        var request = new StreamsGroupDescribeRequest.Builder(
                        new StreamsGroupDescribeRequestData().setGroupIds(List.of("app")))
                .build((short) 0);
        var split = split(request);

        var subtopology = new StreamsGroupDescribeResponseData.Subtopology()
                .setSubtopologyId("0")
                .setSourceTopics(List.of("orders"))
                .setStateChangelogTopics(
                        List.of(new StreamsGroupDescribeResponseData.TopicInfo().setName("app-store-changelog")));
        var group = new StreamsGroupDescribeResponseData.DescribedGroup()
                .setGroupId("app")
                .setTopology(new StreamsGroupDescribeResponseData.Topology().setSubtopologies(List.of(subtopology)));
        var answer = (StreamsGroupDescribeResponse) split.answer()
                .apply(new StreamsGroupDescribeResponse(
                        new StreamsGroupDescribeResponseData().setGroups(new ArrayList<>(List.of(group.duplicate())))));
        var hidden = answer.data().groups().getFirst();
        assertThat(hidden.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        assertThat(hidden.errorMessage()).isEqualTo(GroupDescribeAccess.STREAMS_GROUP_TOPICS_REFUSED);
        assertThat(hidden.topology()).isNull();

        acls.allow(AclResourceType.TOPIC, "app-store-changelog", AclOperation.DESCRIBE);
        var shown = (StreamsGroupDescribeResponse) split(request)
                .answer()
                .apply(new StreamsGroupDescribeResponse(
                        new StreamsGroupDescribeResponseData().setGroups(new ArrayList<>(List.of(group.duplicate())))));
        assertThat(shown.data().groups().getFirst().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(shown.data().groups().getFirst().topology()).isNotNull();
    }
}
