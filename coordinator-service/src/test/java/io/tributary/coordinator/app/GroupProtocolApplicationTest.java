package io.tributary.coordinator.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.common.app.KafkaListenerLifecycle;
import io.tributary.common.security.acl.ApiAccess;
import io.tributary.common.testing.KafkaTestConnection;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.testing.TestCoordinators;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A one-voter coordinator process serves the group protocol on its Kafka listener: ApiVersions
 * advertises the group APIs, a member joins a topic created through Raft, and its commit goes
 * through the Raft-backed offset store and is read back.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class GroupProtocolApplicationTest {

    private static Path dataDir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws IOException {
        dataDir = TestCoordinators.oneVoter(registry, "coordinator-groups-test");
    }

    @AfterAll
    static void deleteDataDir() throws IOException {
        TestCoordinators.deleteRecursively(dataDir);
    }

    @Autowired
    MetadataRaftNode node;

    @Autowired
    MetadataClient client;

    @Autowired
    KafkaListenerLifecycle listener;

    @Autowired
    GroupProperties groupProperties;

    @Autowired
    MeterRegistry registry;

    @Test
    void theCoordinatorServesTheGroupProtocolWithOffsetsThroughRaft() throws Exception {
        await().atMost(Duration.ofSeconds(20)).until(node::isLeader);
        client.submit(Fixtures.register(1, 0, Optional.empty()));
        client.submit(new MetadataCommand.UnfenceBroker(1, Fixtures.incarnation(1, 0)));
        client.submit(Fixtures.createTopic("orders", List.of(List.of(1), List.of(1))));
        Uuid topicId = Uuid.fromString(
                toKafka(node.stateMachine().image().topic("orders").id()));
        assertThat(groupProperties.sessionTimeout()).isEqualTo(Duration.ofSeconds(45));

        try (var connection = KafkaTestConnection.open(listener.server().port())) {
            assertThat(connection.apiVersions().data().apiKeys())
                    .extracting(v -> ApiKeys.forId(v.apiKey()), v -> v.maxVersion())
                    .contains(
                            tuple(ApiKeys.CONSUMER_GROUP_HEARTBEAT, (short) 1),
                            tuple(ApiKeys.CONSUMER_GROUP_DESCRIBE, (short) 1),
                            tuple(ApiKeys.OFFSET_COMMIT, (short) 10),
                            tuple(ApiKeys.OFFSET_FETCH, (short) 10),
                            tuple(ApiKeys.LIST_GROUPS, (short) 5),
                            tuple(ApiKeys.DESCRIBE_GROUPS, (short) 6),
                            tuple(ApiKeys.DELETE_GROUPS, (short) 3),
                            tuple(ApiKeys.OFFSET_DELETE, (short) 0),
                            tuple(ApiKeys.FIND_COORDINATOR, ApiKeys.FIND_COORDINATOR.latestVersion()));
            assertThat(connection.apiVersions().data().apiKeys())
                    .allSatisfy(api -> assertThat(ApiAccess.of(ApiKeys.forId(api.apiKey())))
                            .as("the access rule of %s", ApiKeys.forId(api.apiKey()))
                            .isPresent());

            var joined = connection
                    .roundTrip(
                            new ConsumerGroupHeartbeatRequest.Builder(new ConsumerGroupHeartbeatRequestData()
                                            .setGroupId("app-group")
                                            .setMemberId("m-1")
                                            .setMemberEpoch(0)
                                            .setRebalanceTimeoutMs(30_000)
                                            .setSubscribedTopicNames(List.of("orders"))
                                            .setTopicPartitions(new ArrayList<>()))
                                    .build((short) 1),
                            ConsumerGroupHeartbeatResponse.class)
                    .data();
            assertThat(joined.errorCode()).isZero();
            assertThat(joined.assignment().topicPartitions())
                    .extracting(tp -> tp.topicId(), tp -> tp.partitions())
                    .containsExactly(tuple(topicId, List.of(0, 1)));

            var commit = new OffsetCommitRequestData()
                    .setGroupId("app-group")
                    .setMemberId("m-1")
                    .setGenerationIdOrMemberEpoch(joined.memberEpoch())
                    .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                            .setTopicId(topicId)
                            .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                    .setPartitionIndex(1)
                                    .setCommittedOffset(17)))));
            var committed = connection.roundTrip(
                    OffsetCommitRequest.Builder.forTopicIdsOrNames(commit).build((short) 10),
                    OffsetCommitResponse.class);
            assertThat(committed
                            .data()
                            .topics()
                            .getFirst()
                            .partitions()
                            .getFirst()
                            .errorCode())
                    .isZero();

            var fetch = new OffsetFetchRequestData()
                    .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                            .setGroupId("app-group")
                            .setMemberId("m-1")
                            .setMemberEpoch(joined.memberEpoch())
                            .setTopics(null)));
            var fetched = connection.roundTrip(
                    OffsetFetchRequest.Builder.forTopicIdsOrNames(fetch, false).build((short) 10),
                    OffsetFetchResponse.class);
            var group = fetched.data().groups().getFirst();
            assertThat(group.errorCode()).isZero();
            assertThat(group.topics().getFirst().topicId()).isEqualTo(topicId);
            assertThat(group.topics().getFirst().partitions())
                    .extracting(p -> p.partitionIndex(), p -> p.committedOffset())
                    .containsExactly(tuple(1, 17L));
        }
        assertThat(registry.get("tributary.groups.in.memory").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("tributary.group.members").gauge().value()).isEqualTo(1.0);
    }

    private static String toKafka(java.util.UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
    }
}
