package io.tributary.coordinator.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.coordinator.lag.AdminLogEndOffsets;
import io.tributary.coordinator.lag.ConsumerLagMonitor;
import io.tributary.coordinator.lag.LogEndOffsets;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import org.apache.kafka.clients.admin.Admin;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the consumer lag metric: log end offsets through a kafka-clients {@link Admin} against the
 * live brokers of the metadata image, the lag on this voter while it leads, the gauge refreshed
 * every {@code tributary.coordinator.lag.refresh-interval}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ConsumerLagProperties.class)
class ConsumerLagConfiguration {

    @Bean(destroyMethod = "close")
    LogEndOffsets lagLogEndOffsets(ConsumerLagProperties lag) {
        return new AdminLogEndOffsets(lag.requestTimeout(), Admin::create);
    }

    @Bean
    ConsumerLagMonitor consumerLagMonitor(MetadataRaftNode node, LogEndOffsets offsets, ConsumerLagProperties lag) {
        return new ConsumerLagMonitor(node.stateMachine()::image, node::isLeader, offsets, lag.maxSeries());
    }

    @Bean
    ConsumerLagMetrics consumerLagMetrics(
            ConsumerLagMonitor monitor, MeterRegistry registry, ConsumerLagProperties lag) {
        return new ConsumerLagMetrics(monitor, registry, lag.refreshInterval());
    }
}
