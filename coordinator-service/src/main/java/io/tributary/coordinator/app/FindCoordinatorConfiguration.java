package io.tributary.coordinator.app;

import io.tributary.coordinator.api.FindCoordinatorHandler;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * FindCoordinator on this coordinator's Kafka listener: groups are served by the Raft leader, at its
 * address in {@code tributary.coordinator.kafka-peers}.
 */
@Configuration(proxyBeanMethods = false)
class FindCoordinatorConfiguration {

    @Bean
    FindCoordinatorHandler coordinatorFindCoordinatorHandler(MetadataRaftNode node, CoordinatorProperties coordinator) {
        return new FindCoordinatorHandler(node::leaderIndex, coordinator.kafkaPeers());
    }
}
