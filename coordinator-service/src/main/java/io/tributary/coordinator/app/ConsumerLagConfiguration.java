package io.tributary.coordinator.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.coordinator.api.ControlPlaneProperties;
import io.tributary.coordinator.lag.AdminLogEndOffsets;
import io.tributary.coordinator.lag.ConsumerLagMonitor;
import io.tributary.coordinator.lag.LogEndOffsets;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the consumer lag metric: log end offsets through a kafka-clients {@link Admin} against the
 * live brokers of the metadata image (logged in as {@code tributary-coordinator} when the cluster
 * secret is set, since the brokers' internal listeners then require it), the lag on this voter while it leads, the gauge refreshed
 * every {@code tributary.coordinator.lag.refresh-interval}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ConsumerLagProperties.class)
class ConsumerLagConfiguration {

    @Bean(destroyMethod = "close")
    LogEndOffsets lagLogEndOffsets(ConsumerLagProperties lag, ControlPlaneProperties control) {
        if (control.secretFile() == null) {
            return new AdminLogEndOffsets(lag.requestTimeout(), Admin::create);
        }
        // The brokers' internal listeners then require a login: the coordinators' own.
        Map<String, String> login = control.secret().coordinatorLogin().kafkaClientProperties();
        return new AdminLogEndOffsets(lag.requestTimeout(), properties -> {
            properties.putAll(login);
            return Admin.create(properties);
        });
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
