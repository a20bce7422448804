package io.tributary.coordinator.app;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tributary.coordinator.group.ConsumerGroupStore;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.ImageTopicView;
import io.tributary.coordinator.group.OffsetStore;
import io.tributary.coordinator.group.TopicView;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.ClassicGroupStore;
import io.tributary.coordinator.group.streams.StreamsGroupConfig;
import io.tributary.coordinator.group.streams.StreamsGroupCoordinator;
import io.tributary.coordinator.kafka.ConsumerGroupDescribeHandler;
import io.tributary.coordinator.kafka.ConsumerGroupHeartbeatHandler;
import io.tributary.coordinator.kafka.DeleteGroupsHandler;
import io.tributary.coordinator.kafka.DescribeGroupsHandler;
import io.tributary.coordinator.kafka.GroupService;
import io.tributary.coordinator.kafka.HeartbeatHandler;
import io.tributary.coordinator.kafka.JoinGroupHandler;
import io.tributary.coordinator.kafka.LeaveGroupHandler;
import io.tributary.coordinator.kafka.ListGroupsHandler;
import io.tributary.coordinator.kafka.OffsetCommitHandler;
import io.tributary.coordinator.kafka.OffsetDeleteHandler;
import io.tributary.coordinator.kafka.OffsetFetchHandler;
import io.tributary.coordinator.kafka.StreamsGroupDescribeHandler;
import io.tributary.coordinator.kafka.StreamsGroupHeartbeatHandler;
import io.tributary.coordinator.kafka.SyncGroupHandler;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.metadata.raft.RaftInternalTopics;
import java.time.InstantSource;
import java.util.UUID;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires consumer groups: the state machine ({@link GroupCoordinator}, from {@link GroupProperties}),
 * the topics of this voter's metadata image, leadership from {@link MetadataRaftNode#isLeader} and its
 * term ({@link MetadataRaftNode#currentTerm}), the
 * {@link OffsetStore}, {@link ClassicGroupStore} and {@link ConsumerGroupStore} beans, streams
 * groups' internal topics created through {@link MetadataClient} ({@link RaftInternalTopics}), the
 * fourteen group handlers (four of them the classic protocol's, two streams groups') on the Kafka
 * listener, and the timer tick with the offsets retention check.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(GroupProperties.class)
class GroupConfiguration {

    @Bean
    GroupService groupService(
            GroupProperties properties,
            MetadataRaftNode node,
            MetadataClient client,
            OffsetStore offsets,
            ClassicGroupStore classicGroups,
            ConsumerGroupStore consumerGroups) {
        TopicView topics = new ImageTopicView(() -> node.stateMachine().image());
        StreamsGroupConfig streams = properties.toStreamsConfig();
        return new GroupService(
                new GroupCoordinator(properties.toConfig(), topics),
                new ClassicGroupCoordinator(properties.toClassicConfig(), UUID::randomUUID),
                new StreamsGroupCoordinator(properties.toConfig(), streams, topics),
                offsets,
                classicGroups,
                consumerGroups,
                new RaftInternalTopics(node, client, streams.replicationFactor(), InstantSource.system()),
                topics,
                node::isLeader,
                node::currentTerm,
                InstantSource.system(),
                properties.toMigrationPolicy());
    }

    /**
     * {@code tributary_groups_in_memory}: groups this coordinator holds membership of (0 on a
     * follower); {@code tributary_group_members}: their members together.
     */
    @Bean
    MeterBinder groupMeters(GroupService service) {
        return registry -> {
            Gauge.builder("tributary.groups.in.memory", service.groups(), GroupCoordinator::groupCount)
                    .description("consumer groups this coordinator holds (0 on a follower)")
                    .register(registry);
            Gauge.builder("tributary.group.members", service.groups(), GroupCoordinator::memberCount)
                    .description("members of the consumer groups this coordinator holds")
                    .register(registry);
            Gauge.builder("tributary.classic.groups.in.memory", service.classic(), ClassicGroupCoordinator::groupCount)
                    .description("classic groups this coordinator holds (0 on a follower)")
                    .register(registry);
            Gauge.builder("tributary.classic.group.members", service.classic(), ClassicGroupCoordinator::memberCount)
                    .description("members of the classic groups this coordinator holds")
                    .register(registry);
            Gauge.builder("tributary.streams.groups.in.memory", service.streams(), StreamsGroupCoordinator::groupCount)
                    .description("streams groups this coordinator holds (0 on a follower)")
                    .register(registry);
            Gauge.builder("tributary.streams.group.members", service.streams(), StreamsGroupCoordinator::memberCount)
                    .description("members of the streams groups this coordinator holds")
                    .register(registry);
        };
    }

    /**
     * The timers and the offsets retention check; {@code tributary_group_offsets_expired_total}
     * counts the committed offsets the check deleted (on the leader that made the deletions).
     */
    @Bean
    GroupTickLoop groupTickLoop(GroupService service, GroupProperties properties, MeterRegistry registry) {
        Counter offsetsExpired = Counter.builder("tributary.group.offsets.expired")
                .description("committed offsets deleted because they expired (offsets retention)")
                .register(registry);
        return new GroupTickLoop(
                service,
                properties.tickInterval(),
                properties.toRetention(),
                properties.offsetsRetentionCheckInterval(),
                offsetsExpired);
    }

    @Bean
    ConsumerGroupHeartbeatHandler consumerGroupHeartbeatHandler(GroupService service) {
        return new ConsumerGroupHeartbeatHandler(service);
    }

    @Bean
    StreamsGroupHeartbeatHandler streamsGroupHeartbeatHandler(GroupService service) {
        return new StreamsGroupHeartbeatHandler(service);
    }

    @Bean
    StreamsGroupDescribeHandler streamsGroupDescribeHandler(GroupService service) {
        return new StreamsGroupDescribeHandler(service);
    }

    @Bean
    JoinGroupHandler joinGroupHandler(GroupService service) {
        return new JoinGroupHandler(service);
    }

    @Bean
    SyncGroupHandler syncGroupHandler(GroupService service) {
        return new SyncGroupHandler(service);
    }

    @Bean
    HeartbeatHandler heartbeatHandler(GroupService service) {
        return new HeartbeatHandler(service);
    }

    @Bean
    LeaveGroupHandler leaveGroupHandler(GroupService service) {
        return new LeaveGroupHandler(service);
    }

    @Bean
    ConsumerGroupDescribeHandler consumerGroupDescribeHandler(GroupService service) {
        return new ConsumerGroupDescribeHandler(service);
    }

    @Bean
    OffsetCommitHandler offsetCommitHandler(GroupService service) {
        return new OffsetCommitHandler(service);
    }

    @Bean
    OffsetFetchHandler offsetFetchHandler(GroupService service) {
        return new OffsetFetchHandler(service);
    }

    @Bean
    ListGroupsHandler listGroupsHandler(GroupService service) {
        return new ListGroupsHandler(service);
    }

    @Bean
    DescribeGroupsHandler describeGroupsHandler(GroupService service) {
        return new DescribeGroupsHandler(service);
    }

    @Bean
    DeleteGroupsHandler deleteGroupsHandler(GroupService service) {
        return new DeleteGroupsHandler(service);
    }

    @Bean
    OffsetDeleteHandler offsetDeleteHandler(GroupService service) {
        return new OffsetDeleteHandler(service);
    }
}
