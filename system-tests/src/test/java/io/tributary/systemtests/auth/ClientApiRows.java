package io.tributary.systemtests.auth;

import static io.tributary.systemtests.auth.ApiAuthorizationTable.ERRORS_ONLY;
import static io.tributary.systemtests.auth.ApiAuthorizationTable.GROUP_REFUSED;
import static io.tributary.systemtests.auth.ApiAuthorizationTable.TOPIC_AND_GROUP;
import static io.tributary.systemtests.auth.ApiAuthorizationTable.TOPIC_ONLY;
import static io.tributary.systemtests.auth.ApiAuthorizationTable.TOPIC_REFUSED;
import static io.tributary.systemtests.auth.ApiAuthorizationTable.joiningConsumerGroup;
import static io.tributary.systemtests.auth.ApiAuthorizationTable.on;
import static io.tributary.systemtests.auth.ApiAuthorizationTable.row;
import static io.tributary.systemtests.auth.ApiAuthorizationTable.stage;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;
import static org.apache.kafka.common.resource.ResourceType.GROUP;
import static org.apache.kafka.common.resource.ResourceType.TOPIC;

import io.tributary.systemtests.auth.ApiAuthorizationTable.Row;
import io.tributary.systemtests.auth.ApiAuthorizationTable.Setup;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The rows of {@link ApiAuthorizationTable} for the APIs clients use to produce, fetch, look
 * topics and offsets up, and join, run and describe groups, and the APIs of the connection itself
 * (ApiVersions, and the SASL ones sent again after the login).
 */
final class ClientApiRows {

    private ClientApiRows() {}

    static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        rows.add(row(
                ApiKeys.PRODUCE,
                TOPIC_REFUSED,
                TOPIC_ONLY,
                (names, version) -> {
                    var topic = new ProduceRequestData.TopicProduceData()
                            .setName(names.topic())
                            .setTopicId(names.topicId())
                            .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                    .setIndex(0)
                                    .setRecords(MemoryRecords.withRecords(
                                            Compression.NONE,
                                            new SimpleRecord("v".getBytes(StandardCharsets.UTF_8))))));
                    return new ProduceRequestData()
                            .setAcks((short) 1)
                            .setTimeoutMs(10_000)
                            .setTopicData(new ProduceRequestData.TopicProduceDataCollection(
                                    List.of(topic).iterator()));
                },
                List.of(stage(on(TOPIC, WRITE)))));
        rows.add(row(
                ApiKeys.FETCH,
                TOPIC_REFUSED,
                TOPIC_ONLY,
                (names, version) -> new FetchRequestData()
                        .setMaxWaitMs(0)
                        .setMinBytes(0)
                        .setMaxBytes(1 << 20)
                        .setSessionEpoch(-1)
                        .setTopics(List.of(new FetchRequestData.FetchTopic()
                                .setTopic(names.topic())
                                .setTopicId(names.topicId())
                                .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                        .setPartition(0)
                                        .setFetchOffset(0)
                                        .setPartitionMaxBytes(1 << 20))))),
                List.of(stage(on(TOPIC, READ)))));
        rows.add(row(
                ApiKeys.LIST_OFFSETS,
                TOPIC_REFUSED,
                TOPIC_ONLY,
                (names, version) -> new ListOffsetsRequestData()
                        .setReplicaId(-1)
                        .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                                .setName(names.topic())
                                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(0)
                                        .setTimestamp(-1))))),
                List.of(stage(on(TOPIC, DESCRIBE)))));
        rows.add(new Row(
                ApiKeys.METADATA,
                "named topic",
                List.of(stage(on(TOPIC, DESCRIBE))),
                TOPIC_REFUSED,
                TOPIC_ONLY,
                (names, version) -> new MetadataRequestData()
                        .setAllowAutoTopicCreation(false)
                        .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(names.topic()))),
                ERRORS_ONLY));
        rows.add(new Row(
                ApiKeys.METADATA,
                "all topics",
                List.of(stage(on(TOPIC, DESCRIBE))),
                "own topic listed false",
                TOPIC_ONLY,
                (names, version) -> new MetadataRequestData()
                        .setAllowAutoTopicCreation(false)
                        .setTopics(null),
                (response, names) -> "own topic listed "
                        + ((MetadataResponseData) response.data())
                                .topics().stream().anyMatch(t -> names.topic().equals(t.name()))));
        rows.add(row(
                ApiKeys.OFFSET_COMMIT,
                GROUP_REFUSED,
                TOPIC_ONLY,
                (names, version) -> new OffsetCommitRequestData()
                        .setGroupId(names.group())
                        .setGenerationIdOrMemberEpoch(-1)
                        .setMemberId("")
                        .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                                .setName(names.topic())
                                .setTopicId(names.topicId())
                                .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(0))))),
                List.of(stage(on(GROUP, READ)), stage(on(TOPIC, READ)))));
        rows.add(row(
                ApiKeys.OFFSET_FETCH,
                GROUP_REFUSED,
                TOPIC_AND_GROUP,
                (names, version) -> new OffsetFetchRequestData()
                        .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                .setGroupId(names.group())
                                .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                        .setName(names.topic())
                                        .setTopicId(names.topicId())
                                        .setPartitionIndexes(List.of(0)))))),
                List.of(stage(on(GROUP, DESCRIBE)), stage(on(TOPIC, DESCRIBE)))));
        rows.add(row(
                ApiKeys.FIND_COORDINATOR,
                GROUP_REFUSED,
                Set.of(),
                (names, version) -> version >= 4
                        ? new FindCoordinatorRequestData()
                                .setKeyType((byte) 0)
                                .setCoordinatorKeys(List.of(names.group()))
                        : new FindCoordinatorRequestData().setKeyType((byte) 0).setKey(names.group()),
                List.of(stage(on(GROUP, DESCRIBE)))));
        rows.add(row(
                ApiKeys.JOIN_GROUP,
                GROUP_REFUSED,
                Set.of(),
                (names, version) -> new JoinGroupRequestData()
                        .setGroupId(names.group())
                        .setSessionTimeoutMs(10_000)
                        .setRebalanceTimeoutMs(10_000)
                        .setMemberId("")
                        .setProtocolType("consumer")
                        .setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection(
                                List.of(new JoinGroupRequestData.JoinGroupRequestProtocol()
                                                .setName("range")
                                                .setMetadata(new byte[0]))
                                        .iterator())),
                List.of(stage(on(GROUP, READ)))));
        rows.add(row(
                ApiKeys.HEARTBEAT,
                GROUP_REFUSED,
                Set.of(),
                (names, version) -> new HeartbeatRequestData()
                        .setGroupId(names.group())
                        .setGenerationId(1)
                        .setMemberId("authz-unknown-member"),
                List.of(stage(on(GROUP, READ)))));
        rows.add(row(
                ApiKeys.LEAVE_GROUP,
                GROUP_REFUSED,
                Set.of(),
                (names, version) -> new LeaveGroupRequestData()
                        .setGroupId(names.group())
                        .setMembers(List.of(
                                new LeaveGroupRequestData.MemberIdentity().setMemberId("authz-unknown-member"))),
                List.of(stage(on(GROUP, READ)))));
        rows.add(row(
                ApiKeys.SYNC_GROUP,
                GROUP_REFUSED,
                Set.of(),
                (names, version) -> new SyncGroupRequestData()
                        .setGroupId(names.group())
                        .setGenerationId(1)
                        .setMemberId("authz-unknown-member")
                        .setProtocolType("consumer")
                        .setProtocolName("range"),
                List.of(stage(on(GROUP, READ)))));
        rows.add(row(
                ApiKeys.DESCRIBE_GROUPS,
                GROUP_REFUSED,
                TOPIC_AND_GROUP,
                (names, version) -> new DescribeGroupsRequestData().setGroups(List.of(names.group())),
                List.of(stage(on(GROUP, DESCRIBE)))));
        rows.add(new Row(
                ApiKeys.LIST_GROUPS,
                "",
                List.of(stage(on(GROUP, DESCRIBE))),
                "own group listed false",
                TOPIC_AND_GROUP,
                (names, version) -> new ListGroupsRequestData(),
                (response, names) -> "own group listed "
                        + ((ListGroupsResponseData) response.data())
                                .groups().stream().anyMatch(g -> names.group().equals(g.groupId()))));
        rows.add(new Row(
                ApiKeys.SASL_HANDSHAKE,
                "after the login",
                List.of(),
                null,
                Set.of(),
                (names, version) -> new SaslHandshakeRequestData().setMechanism("PLAIN"),
                ERRORS_ONLY));
        rows.add(row(
                ApiKeys.API_VERSIONS,
                null,
                Set.of(),
                (names, version) -> new ApiVersionsRequestData()
                        .setClientSoftwareName("api-authorization-table-it")
                        .setClientSoftwareVersion("1"),
                List.of()));
        rows.add(new Row(
                ApiKeys.SASL_AUTHENTICATE,
                "after the login",
                List.of(),
                null,
                Set.of(),
                (names, version) -> new SaslAuthenticateRequestData()
                        .setAuthBytes(("\0" + SecureTargets.USER + "\0" + SecureTargets.PASSWORD)
                                .getBytes(StandardCharsets.UTF_8)),
                ERRORS_ONLY));
        rows.add(row(
                ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                GROUP_REFUSED,
                TOPIC_ONLY,
                (names, version) -> joiningConsumerGroup(names),
                List.of(stage(on(GROUP, READ)), stage(on(TOPIC, DESCRIBE)))));
        rows.add(row(
                ApiKeys.CONSUMER_GROUP_DESCRIBE,
                GROUP_REFUSED,
                Set.of(Setup.TOPIC, Setup.CONSUMER_GROUP_MEMBER),
                (names, version) -> new ConsumerGroupDescribeRequestData().setGroupIds(List.of(names.group())),
                List.of(stage(on(GROUP, DESCRIBE)), stage(on(TOPIC, DESCRIBE)))));
        rows.add(row(
                ApiKeys.STREAMS_GROUP_HEARTBEAT,
                GROUP_REFUSED,
                TOPIC_ONLY,
                (names, version) -> new StreamsGroupHeartbeatRequestData()
                        .setGroupId(names.group())
                        .setMemberId(Uuid.randomUuid().toString())
                        .setMemberEpoch(0)
                        .setEndpointInformationEpoch(0)
                        .setRebalanceTimeoutMs(10_000)
                        .setProcessId("authz-process")
                        .setActiveTasks(List.of())
                        .setStandbyTasks(List.of())
                        .setWarmupTasks(List.of())
                        .setTopology(new StreamsGroupHeartbeatRequestData.Topology()
                                .setEpoch(0)
                                .setSubtopologies(List.of(new StreamsGroupHeartbeatRequestData.Subtopology()
                                        .setSubtopologyId("0")
                                        .setSourceTopics(List.of(names.topic()))))),
                List.of(stage(on(GROUP, READ)), stage(on(TOPIC, DESCRIBE)))));
        rows.add(row(
                ApiKeys.STREAMS_GROUP_DESCRIBE,
                GROUP_REFUSED,
                TOPIC_AND_GROUP,
                (names, version) -> new StreamsGroupDescribeRequestData().setGroupIds(List.of(names.group())),
                List.of(stage(on(GROUP, DESCRIBE)))));
        return rows;
    }
}
