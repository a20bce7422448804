package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.testing.KafkaTestConnection;
import io.tributary.coordinator.group.ConsumerMigrationPolicy;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.InMemoryConsumerGroupStore;
import io.tributary.coordinator.group.InMemoryOffsetStore;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.TopicView.TopicInfo;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.InMemoryClassicGroupStore;
import io.tributary.coordinator.group.streams.StreamsGroupConfig;
import io.tributary.coordinator.group.streams.StreamsGroupCoordinator;
import java.io.IOException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The group handlers behind a real listener ({@link KafkaProtocolServer} on a free port), spoken to
 * through kafka-clients' own codec ({@link KafkaTestConnection}) at the versions clients use.
 */
class GroupHandlersTest {

    private static final String GROUP = "g";

    private final FakeTopics topics = new FakeTopics();
    private final TopicInfo t = topics.create("t", 3);
    private final TopicInfo other = topics.create("other", 2);
    private final InMemoryOffsetStore store = new InMemoryOffsetStore();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final AtomicLong nowMs = new AtomicLong(1_800_000_000_000L);
    private final InMemoryConsumerGroupStore consumerStore = new InMemoryConsumerGroupStore();
    private final GroupService service = new GroupService(
            new GroupCoordinator(GroupConfig.DEFAULTS, topics),
            new ClassicGroupCoordinator(ClassicGroupConfig.DEFAULTS, UUID::randomUUID),
            new StreamsGroupCoordinator(GroupConfig.DEFAULTS, StreamsGroupConfig.DEFAULTS, topics),
            store,
            new InMemoryClassicGroupStore(),
            consumerStore,
            topics -> {},
            topics,
            leader::get,
            () -> 0,
            (InstantSource) () -> Instant.ofEpochMilli(nowMs.get()),
            ConsumerMigrationPolicy.BIDIRECTIONAL);
    private KafkaProtocolServer server;
    private KafkaTestConnection connection;

    static List<RequestHandler> handlers(GroupService service) {
        return List.of(
                new ConsumerGroupHeartbeatHandler(service),
                new ConsumerGroupDescribeHandler(service),
                new OffsetCommitHandler(service),
                new OffsetFetchHandler(service),
                new ListGroupsHandler(service),
                new DescribeGroupsHandler(service),
                new DeleteGroupsHandler(service),
                new OffsetDeleteHandler(service),
                new JoinGroupHandler(service),
                new SyncGroupHandler(service),
                new HeartbeatHandler(service),
                new LeaveGroupHandler(service),
                new StreamsGroupHeartbeatHandler(service),
                new StreamsGroupDescribeHandler(service));
    }

    @BeforeEach
    void start() throws IOException {
        server = new KafkaProtocolServer(
                ProtocolServerConfig.defaults("test", "127.0.0.1", 0),
                handlers(service),
                new ProtocolMetrics(new SimpleMeterRegistry(), "test"));
        server.start();
        connection = KafkaTestConnection.open(server.port());
    }

    @AfterEach
    void stop() throws IOException {
        connection.close();
        server.close();
    }

    // ------------------------------------------------------------------------------------------

    private ConsumerGroupHeartbeatResponseData heartbeat(ConsumerGroupHeartbeatRequestData data, int version)
            throws IOException {
        return connection
                .roundTrip(
                        new ConsumerGroupHeartbeatRequest.Builder(data).build((short) version),
                        ConsumerGroupHeartbeatResponse.class)
                .data();
    }

    private static ConsumerGroupHeartbeatRequestData join(String member, String... topics) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId(member)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(30_000)
                .setSubscribedTopicNames(List.of(topics))
                .setTopicPartitions(new ArrayList<>());
    }

    private int joinAlone(String member) throws IOException {
        var response = heartbeat(join(member, "t"), 1);
        assertThat(response.errorCode()).isZero();
        return response.memberEpoch();
    }

    private OffsetCommitResponse commit(int version, String member, int epoch, long offset, String metadata)
            throws IOException {
        var topic = new OffsetCommitRequestTopic()
                .setName(t.name())
                .setTopicId(Uuid.ZERO_UUID)
                .setPartitions(List.of(new OffsetCommitRequestPartition()
                        .setPartitionIndex(1)
                        .setCommittedOffset(offset)
                        .setCommittedMetadata(metadata)));
        if (version >= 10) {
            topic.setTopicId(GroupService.kafkaUuid(t.id())).setName("");
        }
        var data = new OffsetCommitRequestData()
                .setGroupId(GROUP)
                .setMemberId(member)
                .setGenerationIdOrMemberEpoch(epoch)
                .setTopics(List.of(topic));
        var builder = version >= 10
                ? OffsetCommitRequest.Builder.forTopicIdsOrNames(data)
                : OffsetCommitRequest.Builder.forTopicNames(data);
        return connection.roundTrip(builder.build((short) version), OffsetCommitResponse.class);
    }

    private static short commitError(OffsetCommitResponse response) {
        return response.data().topics().getFirst().partitions().getFirst().errorCode();
    }

    private OffsetFetchResponseData.OffsetFetchResponseGroup fetch(int version, String member, int epoch)
            throws IOException {
        var topic = new OffsetFetchRequestData.OffsetFetchRequestTopics().setPartitionIndexes(List.of(1, 2));
        if (version >= 10) {
            topic.setTopicId(GroupService.kafkaUuid(t.id()));
        } else {
            topic.setName(t.name());
        }
        var data = new OffsetFetchRequestData()
                .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                        .setGroupId(GROUP)
                        .setMemberId(member)
                        .setMemberEpoch(epoch)
                        .setTopics(List.of(topic))));
        var builder = version >= 10
                ? OffsetFetchRequest.Builder.forTopicIdsOrNames(data, false)
                : OffsetFetchRequest.Builder.forTopicNames(data, false);
        return connection
                .roundTrip(builder.build((short) version), OffsetFetchResponse.class)
                .data()
                .groups()
                .getFirst();
    }

    // ------------------------------------------------------------------------------------------

    @Test
    void aConsumerJoinsAndIsAssignedEveryPartitionByTopicId() throws IOException {
        var response = heartbeat(join("m-1", "t"), 1);

        assertThat(response.errorCode()).isZero();
        assertThat(response.memberId()).isEqualTo("m-1");
        assertThat(response.memberEpoch()).isPositive();
        assertThat(response.heartbeatIntervalMs()).isEqualTo(5000);
        assertThat(response.assignment().topicPartitions())
                .extracting(tp -> tp.topicId(), tp -> tp.partitions())
                .containsExactly(tuple(GroupService.kafkaUuid(t.id()), List.of(0, 1, 2)));
    }

    @Test
    void versionZeroGetsAMemberIdGeneratedWhenItSendsNone() throws IOException {
        var response = heartbeat(join("", "t"), 0);

        assertThat(response.errorCode()).isZero();
        assertThat(response.memberId()).isNotEmpty();
    }

    @Test
    void heartbeatRefusalsAreTheProtocolsErrors() throws IOException {
        int epoch = joinAlone("m-1");

        var unknown = heartbeat(
                new ConsumerGroupHeartbeatRequestData()
                        .setGroupId(GROUP)
                        .setMemberId("nobody")
                        .setMemberEpoch(3),
                1);
        var fenced = heartbeat(
                new ConsumerGroupHeartbeatRequestData()
                        .setGroupId(GROUP)
                        .setMemberId("m-1")
                        .setMemberEpoch(epoch + 5),
                1);
        var assignor = heartbeat(join("m-2", "t").setServerAssignor("sticky"), 1);
        var regex = heartbeat(join("m-3").setSubscribedTopicNames(null).setSubscribedTopicRegex("(["), 1);
        var noMemberId = heartbeat(join("", "t"), 1);

        assertThat(Errors.forCode(unknown.errorCode())).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(Errors.forCode(fenced.errorCode())).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        assertThat(Errors.forCode(assignor.errorCode())).isEqualTo(Errors.UNSUPPORTED_ASSIGNOR);
        assertThat(assignor.errorMessage()).contains("range", "uniform");
        assertThat(Errors.forCode(regex.errorCode())).isEqualTo(Errors.INVALID_REGULAR_EXPRESSION);
        assertThat(Errors.forCode(noMemberId.errorCode())).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void aMemberCommitsAndFetchesByTopicIdAndByNameAtItsEpoch() throws IOException {
        int epoch = joinAlone("m-1");

        assertThat(commitError(commit(10, "m-1", epoch, 42, "meta"))).isZero();
        var byId = fetch(10, "m-1", epoch);
        var byName = fetch(9, "m-1", epoch);

        assertThat(byId.errorCode()).isZero();
        assertThat(byId.topics().getFirst().topicId()).isEqualTo(GroupService.kafkaUuid(t.id()));
        assertThat(byId.topics().getFirst().partitions())
                .extracting(p -> p.partitionIndex(), p -> p.committedOffset(), p -> p.metadata())
                .containsExactly(tuple(1, 42L, "meta"), tuple(2, -1L, ""));
        assertThat(byName.topics().getFirst().name()).isEqualTo("t");
        assertThat(byName.topics().getFirst().partitions().getFirst().committedOffset())
                .isEqualTo(42L);
    }

    @Test
    void commitsFromStaleUnknownOrOldVersionMembersAreRefused() throws IOException {
        int epoch = joinAlone("m-1");

        assertThat(Errors.forCode(commitError(commit(9, "m-1", epoch - 1, 1, ""))))
                .isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThat(Errors.forCode(commitError(commit(8, "m-1", epoch - 1, 1, ""))))
                .isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(Errors.forCode(commitError(commit(8, "m-1", epoch, 1, "")))).isEqualTo(Errors.UNSUPPORTED_VERSION);
        assertThat(Errors.forCode(commitError(commit(9, "nobody", epoch, 1, ""))))
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(Errors.forCode(commitError(commit(9, "", -1, 1, ""))))
                .as("an admin commit into a group with members")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(Errors.forCode(commitError(commit(9, "m-1", epoch, 1, "x".repeat(4097)))))
                .isEqualTo(Errors.OFFSET_METADATA_TOO_LARGE);
        assertThat(Errors.forCode(fetch(9, "m-1", epoch - 1).errorCode())).isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThat(store.groups()).isEmpty();
    }

    @Test
    void adminCommitsGoIntoAnEmptyGroupAndUnknownTopicsAreRefused() throws IOException {
        assertThat(commitError(commit(9, "", -1, 7, null))).isZero();
        assertThat(commitError(commit(2, "", -1, 8, ""))).isZero();
        var unknownId = new OffsetCommitRequestData()
                .setGroupId(GROUP)
                .setGenerationIdOrMemberEpoch(-1)
                .setTopics(List.of(new OffsetCommitRequestTopic()
                        .setTopicId(Uuid.randomUuid())
                        .setPartitions(List.of(new OffsetCommitRequestPartition().setCommittedOffset(1)))));
        var unknownName = new OffsetCommitRequestData()
                .setGroupId(GROUP)
                .setGenerationIdOrMemberEpoch(-1)
                .setTopics(List.of(new OffsetCommitRequestTopic()
                        .setName("missing")
                        .setPartitions(List.of(new OffsetCommitRequestPartition().setCommittedOffset(1)))));

        var byId = connection.roundTrip(
                OffsetCommitRequest.Builder.forTopicIdsOrNames(unknownId).build((short) 10),
                OffsetCommitResponse.class);
        var byName = connection.roundTrip(
                OffsetCommitRequest.Builder.forTopicNames(unknownName).build((short) 9), OffsetCommitResponse.class);

        assertThat(Errors.forCode(commitError(byId))).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
        assertThat(Errors.forCode(commitError(byName))).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(fetch(10, null, -1)
                        .topics()
                        .getFirst()
                        .partitions()
                        .getFirst()
                        .committedOffset())
                .isEqualTo(8L);
    }

    @Test
    void storeFailuresAreRetriableCoordinatorErrors() throws IOException {
        store.failNext(OffsetStoreException.Reason.UNAVAILABLE);
        assertThat(Errors.forCode(commitError(commit(9, "", -1, 1, "")))).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        store.failNext(OffsetStoreException.Reason.NOT_LEADER);
        assertThat(Errors.forCode(commitError(commit(9, "", -1, 1, "")))).isEqualTo(Errors.NOT_COORDINATOR);
        store.failNext(OffsetStoreException.Reason.LIMIT_EXCEEDED);
        assertThat(Errors.forCode(commitError(commit(9, "", -1, 1, "")))).isEqualTo(Errors.INVALID_COMMIT_OFFSET_SIZE);
    }

    @Test
    void offsetsOfSeveralGroupsAreFetchedInOneBatchAndOldVersionsStillWork() throws IOException {
        assertThat(commitError(commit(9, "", -1, 5, ""))).isZero();
        var data = new OffsetFetchRequestData()
                .setGroups(List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                .setGroupId(GROUP)
                                .setTopics(null),
                        new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                .setGroupId("none")
                                .setTopics(null)));
        var batched = connection.roundTrip(
                OffsetFetchRequest.Builder.forTopicNames(data, false).build((short) 8), OffsetFetchResponse.class);

        assertThat(batched.data().groups())
                .extracting(OffsetFetchResponseData.OffsetFetchResponseGroup::groupId)
                .containsExactly(GROUP, "none");
        assertThat(batched.data()
                        .groups()
                        .getFirst()
                        .topics()
                        .getFirst()
                        .partitions()
                        .getFirst()
                        .committedOffset())
                .isEqualTo(5L);
        assertThat(batched.data().groups().get(1).topics()).isEmpty();

        var single = new OffsetFetchRequestData()
                .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                        .setGroupId(GROUP)
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                .setName("t")
                                .setPartitionIndexes(List.of(1))))));
        for (int version : new int[] {1, 5, 7}) {
            var response = connection.roundTrip(
                    OffsetFetchRequest.Builder.forTopicNames(single, false).build((short) version),
                    OffsetFetchResponse.class);
            assertThat(response.data()
                            .topics()
                            .getFirst()
                            .partitions()
                            .getFirst()
                            .committedOffset())
                    .as("v%d", version)
                    .isEqualTo(5L);
        }
    }

    @Test
    void listGroupsShowsMembersGroupsAndOffsetOnlyGroupsWithFilters() throws Exception {
        joinAlone("m-1");
        store.commit(
                "offsets-only",
                java.util.Map.of(
                        new io.tributary.coordinator.metadata.TopicPartition("t", 0),
                        new io.tributary.coordinator.group.OffsetStore.CommittedOffset(1, -1, "", 0)));

        var all = connection.roundTrip(
                new ListGroupsRequest.Builder(new ListGroupsRequestData()).build((short) 5), ListGroupsResponse.class);
        var stable = connection.roundTrip(
                new ListGroupsRequest.Builder(new ListGroupsRequestData().setStatesFilter(List.of("STABLE")))
                        .build((short) 5),
                ListGroupsResponse.class);
        var classic = connection.roundTrip(
                new ListGroupsRequest.Builder(new ListGroupsRequestData().setTypesFilter(List.of("classic")))
                        .build((short) 5),
                ListGroupsResponse.class);
        var v0 = connection.roundTrip(
                new ListGroupsRequest.Builder(new ListGroupsRequestData()).build((short) 0), ListGroupsResponse.class);

        assertThat(all.data().groups())
                .extracting(g -> g.groupId(), g -> g.groupState(), g -> g.groupType(), g -> g.protocolType())
                .containsExactly(
                        tuple(GROUP, "Stable", "consumer", "consumer"), tuple("offsets-only", "Empty", "classic", ""));
        assertThat(stable.data().groups()).extracting(g -> g.groupId()).containsExactly(GROUP);
        assertThat(classic.data().groups())
                .as("a group with offsets only is a simple classic group, as Kafka lists it")
                .extracting(g -> g.groupId())
                .containsExactly("offsets-only");
        assertThat(v0.data().groups()).hasSize(2);
        var described = connection.roundTrip(
                new ConsumerGroupDescribeRequest.Builder(
                                new ConsumerGroupDescribeRequestData().setGroupIds(List.of("offsets-only")))
                        .build((short) 1),
                ConsumerGroupDescribeResponse.class);
        assertThat(described.data().groups().getFirst())
                .as("not a consumer group to ConsumerGroupDescribe either, as Kafka answers")
                .satisfies(g -> {
                    assertThat(g.errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
                    assertThat(g.errorMessage()).isEqualTo("Group offsets-only is not a consumer group.");
                });
    }

    @Test
    void describeShowsMembersAssignmentsAndUnknownGroups() throws IOException {
        int epoch = joinAlone("m-1");

        var described = connection.roundTrip(
                new ConsumerGroupDescribeRequest.Builder(
                                new ConsumerGroupDescribeRequestData().setGroupIds(List.of(GROUP, "missing")))
                        .build((short) 1),
                ConsumerGroupDescribeResponse.class);
        var group = described.data().groups().getFirst();
        assertThat(group.groupState()).isEqualTo("Stable");
        assertThat(group.assignorName()).isEqualTo("uniform");
        assertThat(group.members()).singleElement().satisfies(member -> {
            assertThat(member.memberId()).isEqualTo("m-1");
            assertThat(member.memberEpoch()).isEqualTo(epoch);
            assertThat(member.memberType()).isEqualTo((byte) 1);
            assertThat(member.assignment().topicPartitions().getFirst().topicName())
                    .isEqualTo("t");
            assertThat(member.targetAssignment().topicPartitions().getFirst().partitions())
                    .containsExactly(0, 1, 2);
        });
        assertThat(Errors.forCode(described.data().groups().get(1).errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);

        var classic6 = connection.roundTrip(
                new DescribeGroupsRequest.Builder(new DescribeGroupsRequestData().setGroups(List.of(GROUP, "missing")))
                        .build((short) 6),
                DescribeGroupsResponse.class);
        var classic5 = connection.roundTrip(
                new DescribeGroupsRequest.Builder(new DescribeGroupsRequestData().setGroups(List.of("missing")))
                        .build((short) 5),
                DescribeGroupsResponse.class);
        assertThat(Errors.forCode(classic6.data().groups().getFirst().errorCode()))
                .as("a consumer group is not a classic group: Kafka 4.4 does not describe it here")
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(classic6.data().groups().getFirst().groupState()).isEqualTo("Dead");
        assertThat(Errors.forCode(classic6.data().groups().get(1).errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(classic5.data().groups().getFirst().errorCode()).isZero();
        assertThat(classic5.data().groups().getFirst().groupState()).isEqualTo("Dead");
    }

    @Test
    void aGroupIsDeletedOnlyWithoutMembersAndOffsetsOfSubscribedTopicsAreKept() throws Exception {
        int epoch = joinAlone("m-1");
        assertThat(commitError(commit(9, "m-1", epoch, 3, ""))).isZero();
        store.commit(
                GROUP,
                java.util.Map.of(
                        new io.tributary.coordinator.metadata.TopicPartition("other", 0),
                        new io.tributary.coordinator.group.OffsetStore.CommittedOffset(1, -1, "", 0)));

        var offsetDelete = connection.roundTrip(
                new OffsetDeleteRequest.Builder(new OffsetDeleteRequestData()
                                .setGroupId(GROUP)
                                .setTopics(new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection(List.of(
                                                new OffsetDeleteRequestData.OffsetDeleteRequestTopic()
                                                        .setName("t")
                                                        .setPartitions(List.of(
                                                                new OffsetDeleteRequestData
                                                                                .OffsetDeleteRequestPartition()
                                                                        .setPartitionIndex(1))),
                                                new OffsetDeleteRequestData.OffsetDeleteRequestTopic()
                                                        .setName("other")
                                                        .setPartitions(List.of(
                                                                new OffsetDeleteRequestData
                                                                                .OffsetDeleteRequestPartition()
                                                                        .setPartitionIndex(0))))
                                        .iterator())))
                        .build((short) 0),
                OffsetDeleteResponse.class);
        assertThat(offsetDelete.data().errorCode()).isZero();
        assertThat(offsetDelete.data().topics().find("t").partitions().find(1).errorCode())
                .isEqualTo(Errors.GROUP_SUBSCRIBED_TO_TOPIC.code());
        assertThat(offsetDelete
                        .data()
                        .topics()
                        .find("other")
                        .partitions()
                        .find(0)
                        .errorCode())
                .isZero();
        assertThat(store.fetch(GROUP)).containsOnlyKeys(new io.tributary.coordinator.metadata.TopicPartition("t", 1));

        var nonEmpty = deleteGroups(GROUP);
        assertThat(nonEmpty.data().results().find(GROUP).errorCode()).isEqualTo(Errors.NON_EMPTY_GROUP.code());

        heartbeat(
                new ConsumerGroupHeartbeatRequestData()
                        .setGroupId(GROUP)
                        .setMemberId("m-1")
                        .setMemberEpoch(-1),
                1);
        var deleted = deleteGroups(GROUP, "missing");
        assertThat(deleted.data().results().find(GROUP).errorCode()).isZero();
        assertThat(deleted.data().results().find("missing").errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(store.groups()).isEmpty();
        assertThat(service.groups().contains(GROUP)).isFalse();
    }

    private DeleteGroupsResponse deleteGroups(String... groups) throws IOException {
        return connection.roundTrip(
                new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData().setGroupsNames(List.of(groups)))
                        .build((short) 3),
                DeleteGroupsResponse.class);
    }

    @Test
    void aCoordinatorThatIsNotTheLeaderAnswersNotCoordinatorAndLoadsTheGroupsWhenItLeadsAgain() throws IOException {
        int epoch = joinAlone("m-1");
        leader.set(false);

        assertThat(Errors.forCode(heartbeat(
                                new ConsumerGroupHeartbeatRequestData()
                                        .setGroupId(GROUP)
                                        .setMemberId("m-1")
                                        .setMemberEpoch(epoch),
                                1)
                        .errorCode()))
                .isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(Errors.forCode(commitError(commit(9, "m-1", epoch, 1, "")))).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(Errors.forCode(fetch(9, "m-1", epoch).errorCode())).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(Errors.forCode(connection
                        .roundTrip(
                                new ListGroupsRequest.Builder(new ListGroupsRequestData()).build((short) 5),
                                ListGroupsResponse.class)
                        .data()
                        .errorCode()))
                .isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(Errors.forCode(connection
                        .roundTrip(
                                new ConsumerGroupDescribeRequest.Builder(
                                                new ConsumerGroupDescribeRequestData().setGroupIds(List.of(GROUP)))
                                        .build((short) 1),
                                ConsumerGroupDescribeResponse.class)
                        .data()
                        .groups()
                        .getFirst()
                        .errorCode()))
                .isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(Errors.forCode(connection
                        .roundTrip(
                                new DescribeGroupsRequest.Builder(
                                                new DescribeGroupsRequestData().setGroups(List.of(GROUP)))
                                        .build((short) 6),
                                DescribeGroupsResponse.class)
                        .data()
                        .groups()
                        .getFirst()
                        .errorCode()))
                .isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(deleteGroups(GROUP).data().results().find(GROUP).errorCode())
                .isEqualTo(Errors.NOT_COORDINATOR.code());
        assertThat(connection
                        .roundTrip(
                                new OffsetDeleteRequest.Builder(new OffsetDeleteRequestData().setGroupId(GROUP))
                                        .build((short) 0),
                                OffsetDeleteResponse.class)
                        .data()
                        .errorCode())
                .isEqualTo(Errors.NOT_COORDINATOR.code());

        leader.set(true);
        var back = heartbeat(
                new ConsumerGroupHeartbeatRequestData()
                        .setGroupId(GROUP)
                        .setMemberId("m-1")
                        .setMemberEpoch(epoch),
                1);
        assertThat(Errors.forCode(back.errorCode()))
                .as("leading again, it loads the groups from the store: the member carries on")
                .isEqualTo(Errors.NONE);
        assertThat(back.memberEpoch()).isEqualTo(epoch);
    }

    @Test
    void apiVersionsAdvertisesEachGroupApiAtTheVersionsItServes() throws IOException {
        var versions = connection.apiVersions().data().apiKeys();

        assertThat(versions)
                .extracting(v -> ApiKeys.forId(v.apiKey()), v -> v.minVersion(), v -> v.maxVersion())
                .contains(
                        tuple(ApiKeys.CONSUMER_GROUP_HEARTBEAT, (short) 0, (short) 1),
                        tuple(ApiKeys.CONSUMER_GROUP_DESCRIBE, (short) 0, (short) 1),
                        tuple(ApiKeys.OFFSET_COMMIT, (short) 2, (short) 10),
                        tuple(ApiKeys.OFFSET_FETCH, (short) 1, (short) 10),
                        tuple(ApiKeys.LIST_GROUPS, (short) 0, (short) 5),
                        tuple(ApiKeys.DESCRIBE_GROUPS, (short) 0, (short) 6),
                        tuple(ApiKeys.DELETE_GROUPS, (short) 0, (short) 3),
                        tuple(ApiKeys.OFFSET_DELETE, (short) 0, (short) 0));
    }
}
