package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.testing.KafkaTestConnection;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.InMemoryOffsetStore;
import io.tributary.coordinator.group.OffsetRetention;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.InMemoryClassicGroupStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a client sees of offsets retention, through the group handlers behind a real listener: a
 * group whose offsets expired is gone from ListGroups, OffsetFetch and DescribeGroups.
 */
class OffsetRetentionHandlersTest {

    private static final OffsetRetention RETENTION = new OffsetRetention(Duration.ofDays(7));

    private final FakeTopics topics = new FakeTopics();
    private final AtomicLong nowMs = new AtomicLong(1_800_000_000_000L);
    private final GroupService service = InMemoryGroupServices.create(
            topics,
            new InMemoryOffsetStore(),
            new InMemoryClassicGroupStore(),
            ClassicGroupConfig.DEFAULTS,
            () -> true,
            () -> 0,
            nowMs::get);
    private KafkaProtocolServer server;
    private KafkaTestConnection connection;

    @BeforeEach
    void start() throws IOException {
        topics.create("t", 2);
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

    private void advance(Duration duration) {
        nowMs.addAndGet(duration.toMillis());
    }

    private short adminCommit(String groupId, long offset) throws IOException {
        var data = new OffsetCommitRequestData()
                .setGroupId(groupId)
                .setGenerationIdOrMemberEpoch(-1)
                .setTopics(List.of(new OffsetCommitRequestTopic()
                        .setName("t")
                        .setPartitions(List.of(new OffsetCommitRequestPartition()
                                .setPartitionIndex(1)
                                .setCommittedOffset(offset)))));
        return connection
                .roundTrip(OffsetCommitRequest.Builder.forTopicNames(data).build((short) 9), OffsetCommitResponse.class)
                .data()
                .topics()
                .getFirst()
                .partitions()
                .getFirst()
                .errorCode();
    }

    private OffsetFetchResponsePartitions fetch(String groupId) throws IOException {
        var data = new OffsetFetchRequestData()
                .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                        .setGroupId(groupId)
                        .setMemberEpoch(-1)
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                .setName("t")
                                .setPartitionIndexes(List.of(1))))));
        var group = connection
                .roundTrip(
                        OffsetFetchRequest.Builder.forTopicNames(data, false).build((short) 9),
                        OffsetFetchResponse.class)
                .data()
                .groups()
                .getFirst();
        assertThat(group.errorCode()).isZero();
        return group.topics().getFirst().partitions().getFirst();
    }

    private List<ListedGroup> listGroups() throws IOException {
        return connection
                .roundTrip(
                        new ListGroupsRequest.Builder(new ListGroupsRequestData()).build((short) 5),
                        ListGroupsResponse.class)
                .data()
                .groups();
    }

    private short describeError(String groupId) throws IOException {
        return connection
                .roundTrip(
                        new DescribeGroupsRequest.Builder(new DescribeGroupsRequestData().setGroups(List.of(groupId)))
                                .build((short) 6),
                        DescribeGroupsResponse.class)
                .data()
                .groups()
                .getFirst()
                .errorCode();
    }

    private ConsumerGroupHeartbeatResponse heartbeat(ConsumerGroupHeartbeatRequestData data) throws IOException {
        return connection.roundTrip(
                new ConsumerGroupHeartbeatRequest.Builder(data).build((short) 1), ConsumerGroupHeartbeatResponse.class);
    }

    @Test
    void aSimpleGroupAndAnEmptyKip848GroupWhoseOffsetsExpiredAreGoneFromEveryAnswer() throws IOException {
        assertThat(adminCommit("simple", 7)).isZero();
        var joined = heartbeat(new ConsumerGroupHeartbeatRequestData()
                        .setGroupId("kip848")
                        .setMemberId("m")
                        .setMemberEpoch(0)
                        .setRebalanceTimeoutMs(30_000)
                        .setSubscribedTopicNames(List.of("t"))
                        .setTopicPartitions(new ArrayList<>()))
                .data();
        assertThat(joined.errorCode()).isZero();
        assertThat(heartbeat(new ConsumerGroupHeartbeatRequestData()
                                .setGroupId("kip848")
                                .setMemberId("m")
                                .setMemberEpoch(-1))
                        .data()
                        .errorCode())
                .isZero();
        assertThat(adminCommit("kip848", 9))
                .as("an admin commit into the emptied group")
                .isZero();
        assertThat(listGroups())
                .extracting(ListedGroup::groupId, ListedGroup::groupState, ListedGroup::groupType)
                .containsExactly(tuple("kip848", "Empty", "consumer"), tuple("simple", "Empty", "classic"));

        advance(Duration.ofDays(7).minusMillis(1));
        assertThat(service.expireOffsets(RETENTION)).isEmpty();
        assertThat(fetch("simple").committedOffset()).isEqualTo(7L);

        advance(Duration.ofMillis(1));
        assertThat(service.expireOffsets(RETENTION)).hasSize(2);

        assertThat(listGroups()).isEmpty();
        assertThat(fetch("simple").committedOffset()).isEqualTo(-1L);
        assertThat(fetch("kip848").committedOffset()).isEqualTo(-1L);
        assertThat(Errors.forCode(describeError("simple"))).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(Errors.forCode(describeError("kip848"))).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
    }
}
