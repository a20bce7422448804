package io.tributary.coordinator.app;

import io.tributary.coordinator.group.OffsetStore;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.metadata.raft.RaftOffsetStore;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires consumer groups' committed offsets: the {@link OffsetStore} is this voter's {@link
 * RaftOffsetStore} (writes through the metadata Raft log, reads from this voter's applied image).
 * Its bounds are the metadata limits ({@code tributary.coordinator.metadata.max-groups-with-offsets},
 * {@code max-offsets-per-group}, {@code max-offset-metadata-size}).
 */
@Configuration(proxyBeanMethods = false)
class GroupOffsetsConfiguration {

    @Bean
    OffsetStore offsetStore(MetadataRaftNode node, MetadataClient client) {
        return new RaftOffsetStore(node, client);
    }
}
