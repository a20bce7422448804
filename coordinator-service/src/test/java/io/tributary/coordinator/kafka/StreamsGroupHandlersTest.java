package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.testing.KafkaTestConnection;
import io.tributary.coordinator.group.ConsumerMigrationPolicy;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.InMemoryConsumerGroupStore;
import io.tributary.coordinator.group.InMemoryOffsetStore;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.InMemoryClassicGroupStore;
import io.tributary.coordinator.group.streams.StreamsGroupConfig;
import io.tributary.coordinator.group.streams.StreamsGroupCoordinator;
import io.tributary.coordinator.group.streams.StreamsTopology;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.StreamsGroupDescribeRequest;
import org.apache.kafka.common.requests.StreamsGroupDescribeResponse;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatRequest;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The streams group handlers behind a real listener, through kafka-clients' codec at both versions:
 * a join creates the internal topics through the service, then gets every task; describe, list,
 * commits by a member, the other types refused, a follower.
 */
class StreamsGroupHandlersTest {

    private static final String GROUP = "app";

    private final FakeTopics topics = new FakeTopics();
    private final List<StreamsTopology.InternalTopic> created = new CopyOnWriteArrayList<>();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final AtomicLong nowMs = new AtomicLong(1_800_000_000_000L);
    private final GroupService service = new GroupService(
            new GroupCoordinator(GroupConfig.DEFAULTS, topics),
            new ClassicGroupCoordinator(ClassicGroupConfig.DEFAULTS, UUID::randomUUID),
            new StreamsGroupCoordinator(
                    GroupConfig.DEFAULTS, StreamsGroupConfig.DEFAULTS.withInitialRebalanceDelay(Duration.ZERO), topics),
            new InMemoryOffsetStore(),
            new InMemoryClassicGroupStore(),
            new InMemoryConsumerGroupStore(),
            missing -> missing.forEach(topic -> {
                created.add(topic);
                topics.create(topic.name(), topic.partitions());
            }),
            topics,
            leader::get,
            () -> 0,
            (InstantSource) () -> Instant.ofEpochMilli(nowMs.get()),
            ConsumerMigrationPolicy.BIDIRECTIONAL);
    private KafkaProtocolServer server;
    private KafkaTestConnection connection;

    @BeforeEach
    void start() throws IOException {
        topics.create("input", 2);
        server = new KafkaProtocolServer(
                ProtocolServerConfig.defaults("test", "127.0.0.1", 0),
                GroupHandlersTest.handlers(service),
                new ProtocolMetrics(new SimpleMeterRegistry(), "test"));
        server.start();
        connection = KafkaTestConnection.open(server.port());
    }

    @AfterEach
    void stop() throws IOException {
        connection.close();
        server.close();
    }

    private StreamsGroupHeartbeatResponseData heartbeat(StreamsGroupHeartbeatRequestData data, int version)
            throws IOException {
        return connection
                .roundTrip(
                        new StreamsGroupHeartbeatRequest.Builder(data).build((short) version),
                        StreamsGroupHeartbeatResponse.class)
                .data();
    }

    private static StreamsGroupHeartbeatRequestData join(String member) {
        var changelog = new StreamsGroupHeartbeatRequestData.TopicInfo()
                .setName("app-store-changelog")
                .setTopicConfigs(List.of(new StreamsGroupHeartbeatRequestData.KeyValue()
                        .setKey("cleanup.policy")
                        .setValue("compact")));
        return new StreamsGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId(member)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(30_000)
                .setProcessId("process-" + member)
                .setTopology(new StreamsGroupHeartbeatRequestData.Topology()
                        .setEpoch(0)
                        .setSubtopologies(List.of(new StreamsGroupHeartbeatRequestData.Subtopology()
                                .setSubtopologyId("0")
                                .setSourceTopics(List.of("input"))
                                .setStateChangelogTopics(List.of(changelog)))))
                .setActiveTasks(new ArrayList<>())
                .setStandbyTasks(new ArrayList<>())
                .setWarmupTasks(new ArrayList<>());
    }

    private static StreamsGroupHeartbeatRequestData next(String member, int epoch) {
        return new StreamsGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId(member)
                .setMemberEpoch(epoch)
                .setActiveTasks(new ArrayList<>())
                .setStandbyTasks(new ArrayList<>())
                .setWarmupTasks(new ArrayList<>());
    }

    @Test
    void aMemberJoinsAtBothVersionsTheChangelogIsCreatedAndItGetsEveryTask() throws IOException {
        for (int version = 0; version <= 1; version++) {
            String member = "m" + version;
            var joined = heartbeat(join(member), version);
            assertThat(joined.errorCode())
                    .as("v%d: %s", version, joined.errorMessage())
                    .isZero();
            assertThat(joined.memberId()).isEqualTo(member);
            assertThat(joined.heartbeatIntervalMs()).isEqualTo(5000);
            assertThat(joined.taskOffsetIntervalMs()).isEqualTo(60_000);
            var next = heartbeat(next(member, joined.memberEpoch()), version);
            assertThat(next.errorCode()).isZero();
            assertThat(next.status()).as("v%d: statuses", version).isEmpty();
            assertThat(next.activeTasks())
                    .as("v%d: every task", version)
                    .extracting(StreamsGroupHeartbeatResponseData.TaskIds::partitions)
                    .containsExactly(List.of(0, 1));
            assertThat(next.standbyTasks()).isEmpty();
            assertThat(next.warmupTasks()).isEmpty();
            var left = heartbeat(next(member, -1), version);
            assertThat(left.memberEpoch()).isEqualTo(-1);
        }
        assertThat(created)
                .as("the changelog, created once with the source partition count and its config")
                .extracting(
                        StreamsTopology.InternalTopic::name,
                        StreamsTopology.InternalTopic::partitions,
                        StreamsTopology.InternalTopic::configs)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(
                        "app-store-changelog", 2, java.util.Map.of("cleanup.policy", "compact")));
    }

    @Test
    void theGroupIsDescribedListedAndTakesItsMembersCommits() throws IOException {
        var joined = heartbeat(join("a"), 1);
        var next = heartbeat(next("a", joined.memberEpoch()), 1);

        var described = connection
                .roundTrip(
                        new StreamsGroupDescribeRequest.Builder(new StreamsGroupDescribeRequestData()
                                        .setGroupIds(List.of(GROUP, "nope"))
                                        .setIncludeTopologyDescription(true))
                                .build((short) 1),
                        StreamsGroupDescribeResponse.class)
                .data()
                .groups();
        assertThat(described.get(0).errorCode()).isZero();
        assertThat(described.get(0).groupState()).isEqualTo("Stable");
        assertThat(described.get(0).assignorName()).isEqualTo("sticky");
        assertThat(described.get(0).topologyDescriptionStatus()).isEqualTo((byte) 1);
        assertThat(described.get(0).topology().subtopologies())
                .extracting(StreamsGroupDescribeResponseData.Subtopology::subtopologyId)
                .containsExactly("0");
        assertThat(described.get(0).topology().subtopologies().get(0).stateChangelogTopics())
                .extracting(StreamsGroupDescribeResponseData.TopicInfo::partitions)
                .containsExactly(2);
        assertThat(described.get(0).members())
                .extracting(
                        StreamsGroupDescribeResponseData.Member::memberId,
                        m -> m.assignment().activeTasks().getFirst().partitions())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", List.of(0, 1)));
        assertThat(described.get(1).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());

        var listed = connection
                .roundTrip(
                        new ListGroupsRequest.Builder(new ListGroupsRequestData().setTypesFilter(List.of("streams")))
                                .build((short) 5),
                        ListGroupsResponse.class)
                .data()
                .groups();
        assertThat(listed)
                .extracting(g -> g.groupId() + " " + g.groupType() + " " + g.protocolType() + " " + g.groupState())
                .containsExactly("app streams streams Stable");

        OffsetCommitResponse committed = commit("a", next.memberEpoch());
        assertThat(committed.errorCounts()).containsOnlyKeys(Errors.NONE);
        OffsetCommitResponse stale = commit("a", next.memberEpoch() + 1);
        assertThat(stale.errorCounts()).containsOnlyKeys(Errors.STALE_MEMBER_EPOCH);
        OffsetCommitResponse unknown = commit("zz", next.memberEpoch());
        assertThat(unknown.errorCounts()).containsOnlyKeys(Errors.UNKNOWN_MEMBER_ID);
    }

    private OffsetCommitResponse commit(String member, int epoch) throws IOException {
        var data = new OffsetCommitRequestData()
                .setGroupId(GROUP)
                .setMemberId(member)
                .setGenerationIdOrMemberEpoch(epoch)
                .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName("input")
                        .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(1)
                                .setCommittedOffset(5)))));
        return connection.roundTrip(
                OffsetCommitRequest.Builder.forTopicNames(data).build((short) 9), OffsetCommitResponse.class);
    }

    @Test
    void aStreamsJoinIntoAConsumerGroupWithMembersAndAFollowerAreRefused() throws IOException {
        var consumer = connection
                .roundTrip(
                        new org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest.Builder(
                                        new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData()
                                                .setGroupId(GROUP)
                                                .setMemberId("c")
                                                .setMemberEpoch(0)
                                                .setRebalanceTimeoutMs(30_000)
                                                .setSubscribedTopicNames(List.of("input"))
                                                .setTopicPartitions(new ArrayList<>()))
                                .build((short) 1),
                        org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse.class)
                .data();
        assertThat(consumer.errorCode()).isZero();

        assertThat(heartbeat(join("a"), 1).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());

        leader.set(false);
        assertThat(heartbeat(join("a"), 1).errorCode()).isEqualTo(Errors.NOT_COORDINATOR.code());
    }
}
