package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatRequest;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupAccess} over a real {@link AclAuthorizer} ({@code allow.everyone.if.no.acl.found}
 * false), caller {@code User:alice}: what is forwarded to the coordinator and how the refusals join
 * its answer, as Kafka answers.
 */
class GroupAccessTest {

    private static final AclAuthorizer.Settings CLOSED = new AclAuthorizer.Settings(Set.of(), false);
    private static final ConnectionInfo ALICE = new ConnectionInfo(
            "c1", new InetSocketAddress("10.0.0.7", 40000), "external", KafkaPrincipal.user("alice"));

    private final List<AclBinding> bindings = new ArrayList<>();
    private final AtomicReference<AclAuthorizer> acls = new AtomicReference<>(AclAuthorizer.empty(CLOSED));
    private final GroupAccess access = new GroupAccess(AccessControl.of(acls::get), TestImages::cluster);

    private void allow(AclResourceType type, String name, AclOperation operation) {
        bindings.add(new AclBinding(
                type, name, AclPatternType.LITERAL, "User:alice", AclBinding.ANY_HOST, operation, AclPermission.ALLOW));
        acls.set(AclAuthorizer.of(bindings, CLOSED));
    }

    private GroupAccess.Split split(AbstractRequest body) {
        var header = new RequestHeader(body.apiKey(), body.version(), "client", 3);
        return access.split(new KafkaRequest(header, body, ALICE));
    }

    @Test
    void withoutAnAuthorizerTheRequestIsForwardedAsItIs() {
        var open = new GroupAccess(AccessControl.OPEN, TestImages::cluster);
        var request = new DescribeGroupsRequest.Builder(new DescribeGroupsRequestData().setGroups(List.of("a")))
                .build((short) 5);
        var split =
                open.split(new KafkaRequest(new RequestHeader(request.apiKey(), (short) 5, "c", 1), request, ALICE));

        assertThat(split.forward()).isSameAs(request);
    }

    @Test
    void describeGroupsRefusesGroupsWithoutDescribeFirstAndGivesTheCallersOperations() {
        allow(AclResourceType.GROUP, "a", AclOperation.READ); // READ implies DESCRIBE
        var request = new DescribeGroupsRequest.Builder(new DescribeGroupsRequestData()
                        .setGroups(List.of("b", "a"))
                        .setIncludeAuthorizedOperations(true))
                .build((short) 5);
        var split = split(request);
        assertThat(((DescribeGroupsRequest) split.forward()).data().groups()).containsExactly("a");

        var coordinator = new DescribeGroupsResponseData();
        coordinator
                .groups()
                .add(DescribeGroupsResponse.groupMetadata(
                        "a", Errors.NONE, "Stable", "consumer", "range", List.of(), Integer.MAX_VALUE));
        var answer = (DescribeGroupsResponse) split.answer().apply(new DescribeGroupsResponse(coordinator));

        assertThat(answer.data().groups())
                .extracting(g -> g.groupId(), g -> Errors.forCode(g.errorCode()))
                .containsExactly(tuple("b", Errors.GROUP_AUTHORIZATION_FAILED), tuple("a", Errors.NONE));
        assertThat(answer.data().groups().get(1).authorizedOperations())
                .isEqualTo(1 << AclOperation.READ.code() | 1 << AclOperation.DESCRIBE.code());
    }

    @Test
    void whenEveryGroupIsRefusedNothingIsForwarded() {
        var request = new DescribeGroupsRequest.Builder(new DescribeGroupsRequestData().setGroups(List.of("b")))
                .build((short) 5);
        var split = split(request);

        assertThat(split.forward()).isNull();
        assertThat(((DescribeGroupsResponse) split.answer().apply(null)).data().groups())
                .extracting(g -> g.groupId(), g -> Errors.forCode(g.errorCode()))
                .containsExactly(tuple("b", Errors.GROUP_AUTHORIZATION_FAILED));
    }

    @Test
    void deleteGroupsRefusesGroupsWithoutDeleteAfterTheCoordinatorsResults() {
        allow(AclResourceType.GROUP, "a", AclOperation.DELETE);
        var request = new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData().setGroupsNames(List.of("b", "a")))
                .build((short) 2);
        var split = split(request);
        assertThat(((DeleteGroupsRequest) split.forward()).data().groupsNames()).containsExactly("a");

        var results = new DeleteGroupsResponseData.DeletableGroupResultCollection();
        results.add(new DeleteGroupsResponseData.DeletableGroupResult().setGroupId("a"));
        var answer = (DeleteGroupsResponse)
                split.answer().apply(new DeleteGroupsResponse(new DeleteGroupsResponseData().setResults(results)));

        assertThat(answer.data().results())
                .extracting(r -> r.groupId(), r -> Errors.forCode(r.errorCode()))
                .containsExactly(tuple("a", Errors.NONE), tuple("b", Errors.GROUP_AUTHORIZATION_FAILED));
    }

    private static OffsetCommitRequestData.OffsetCommitRequestTopic commitTopic(String name, Uuid id) {
        return new OffsetCommitRequestData.OffsetCommitRequestTopic()
                .setName(name)
                .setTopicId(id)
                .setPartitions(List.of(
                        new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0),
                        new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(1)));
    }

    @Test
    void offsetCommitTakesOutTopicsWithoutReadAndRefusesTheirPartitions() {
        allow(AclResourceType.TOPIC, "orders", AclOperation.READ);
        var data = new OffsetCommitRequestData().setGroupId("g");
        data.topics().add(commitTopic("events", Uuid.ZERO_UUID));
        data.topics().add(commitTopic("orders", Uuid.ZERO_UUID));
        var split = split(new OffsetCommitRequest(data, (short) 9));
        assertThat(((OffsetCommitRequest) split.forward()).data().topics())
                .extracting(OffsetCommitRequestData.OffsetCommitRequestTopic::name)
                .containsExactly("orders");

        var committed = new OffsetCommitResponseData();
        committed
                .topics()
                .add(new OffsetCommitResponseData.OffsetCommitResponseTopic()
                        .setName("orders")
                        .setPartitions(List.of(
                                new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(0))));
        var answer = (OffsetCommitResponse) split.answer().apply(new OffsetCommitResponse(committed));

        assertThat(answer.data().topics())
                .extracting(t -> t.name(), t -> t.partitions().size())
                .containsExactly(tuple("orders", 1), tuple("events", 2));
        assertThat(answer.errorCounts()).containsEntry(Errors.TOPIC_AUTHORIZATION_FAILED, 2);
    }

    @Test
    void offsetCommitByTopicIdChecksTheNameBehindTheIdAndLeavesUnknownIdsToTheCoordinator() {
        var data = new OffsetCommitRequestData().setGroupId("g");
        data.topics().add(commitTopic("", TestImages.EVENTS_ID));
        Uuid unknown = Uuid.randomUuid();
        data.topics().add(commitTopic("", unknown));
        var split = split(new OffsetCommitRequest(data, (short) 10));

        assertThat(((OffsetCommitRequest) split.forward()).data().topics())
                .extracting(OffsetCommitRequestData.OffsetCommitRequestTopic::topicId)
                .containsExactly(unknown);
        var answer =
                (OffsetCommitResponse) split.answer().apply(new OffsetCommitResponse(new OffsetCommitResponseData()));
        assertThat(answer.data().topics())
                .extracting(
                        t -> t.topicId(),
                        t -> Errors.forCode(t.partitions().getFirst().errorCode()))
                .containsExactly(tuple(TestImages.EVENTS_ID, Errors.TOPIC_AUTHORIZATION_FAILED));
    }

    @Test
    void aConsumerGroupHeartbeatSubscribedToATopicItMayNotDescribeIsRefusedWhole() {
        allow(AclResourceType.TOPIC, "orders", AclOperation.DESCRIBE);
        var refused = split(new ConsumerGroupHeartbeatRequest.Builder(new ConsumerGroupHeartbeatRequestData()
                        .setGroupId("g")
                        .setMemberEpoch(0)
                        .setSubscribedTopicNames(List.of("orders", "events")))
                .build((short) 1));
        assertThat(refused.forward()).isNull();
        assertThat(((ConsumerGroupHeartbeatResponse) refused.answer().apply(null))
                        .data()
                        .errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());

        var regex = new ConsumerGroupHeartbeatRequest.Builder(new ConsumerGroupHeartbeatRequestData()
                        .setGroupId("g")
                        .setMemberEpoch(0)
                        .setSubscribedTopicRegex("ev.*"))
                .build((short) 1);
        assertThat(split(regex).forward()).isSameAs(regex);
    }

    @Test
    void aStreamsGroupHeartbeatWhoseTopologyNamesATopicItMayNotDescribeIsRefusedWhole() {
        allow(AclResourceType.TOPIC, "orders", AclOperation.DESCRIBE);
        var subtopology = new StreamsGroupHeartbeatRequestData.Subtopology()
                .setSubtopologyId("0")
                .setSourceTopics(List.of("orders"))
                .setRepartitionSourceTopics(
                        List.of(new StreamsGroupHeartbeatRequestData.TopicInfo().setName("app-repartition")));
        var data = new StreamsGroupHeartbeatRequestData()
                .setGroupId("app")
                .setMemberId("m")
                .setTopology(new StreamsGroupHeartbeatRequestData.Topology().setSubtopologies(List.of(subtopology)));
        var refused = split(new StreamsGroupHeartbeatRequest.Builder(data.duplicate()).build((short) 0));
        assertThat(refused.forward()).isNull();
        assertThat(((StreamsGroupHeartbeatResponse) refused.answer().apply(null))
                        .data()
                        .errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());

        allow(AclResourceType.TOPIC, "app-repartition", AclOperation.DESCRIBE);
        var allowed = new StreamsGroupHeartbeatRequest.Builder(data.duplicate()).build((short) 0);
        assertThat(split(allowed).forward()).isSameAs(allowed);
    }
}
