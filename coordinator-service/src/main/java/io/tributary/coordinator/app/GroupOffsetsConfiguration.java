package io.tributary.coordinator.app;

import io.tributary.coordinator.group.ConsumerGroupStore;
import io.tributary.coordinator.group.OffsetStore;
import io.tributary.coordinator.group.classic.ClassicGroupStore;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.metadata.raft.RaftClassicGroupStore;
import io.tributary.coordinator.metadata.raft.RaftConsumerGroupStore;
import io.tributary.coordinator.metadata.raft.RaftOffsetStore;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the group state that goes through the metadata Raft log: consumer groups' committed offsets
 * (the {@link OffsetStore} is this voter's {@link RaftOffsetStore}) and classic groups' generations
 * (the {@link ClassicGroupStore} is this voter's {@link RaftClassicGroupStore}) and KIP-848 consumer
 * groups' members, epochs and assignments (the {@link ConsumerGroupStore} is this voter's {@link
 * RaftConsumerGroupStore}); all write through the log and read from this voter's applied image.
 * Their bounds are the metadata limits ({@code tributary.coordinator.metadata.max-groups-with-offsets},
 * {@code max-offsets-per-group}, {@code max-offset-metadata-size}, {@code max-classic-groups}, {@code
 * max-consumer-groups}, and {@code max-command-size} for one classic group or consumer group record).
 */
@Configuration(proxyBeanMethods = false)
class GroupOffsetsConfiguration {

    @Bean
    OffsetStore offsetStore(MetadataRaftNode node, MetadataClient client) {
        return new RaftOffsetStore(node, client);
    }

    @Bean
    ConsumerGroupStore consumerGroupStore(MetadataRaftNode node, MetadataClient client) {
        return new RaftConsumerGroupStore(node, client);
    }

    @Bean
    ClassicGroupStore classicGroupStore(MetadataRaftNode node, MetadataClient client) {
        return new RaftClassicGroupStore(node, client);
    }
}
