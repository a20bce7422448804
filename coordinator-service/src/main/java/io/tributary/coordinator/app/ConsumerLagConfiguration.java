package io.tributary.coordinator.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.common.app.KafkaListenerProperties;
import io.tributary.coordinator.api.ControlPlaneProperties;
import io.tributary.coordinator.lag.AdminLogEndOffsets;
import io.tributary.coordinator.lag.ConsumerLagMonitor;
import io.tributary.coordinator.lag.LogEndOffsets;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the consumer lag metric: log end offsets through a kafka-clients {@link Admin} against the
 * live brokers of the metadata image (logged in as {@code tributary-coordinator} when the cluster
 * secret is set, since the brokers' internal listeners then require it; over TLS, trusting {@code
 * tributary.kafka.ssl.truststore.*}, when this coordinator's Kafka listener is TLS), the lag on this voter while it leads, the gauge refreshed
 * every {@code tributary.coordinator.lag.refresh-interval}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ConsumerLagProperties.class)
class ConsumerLagConfiguration {

    @Bean(destroyMethod = "close")
    LogEndOffsets lagLogEndOffsets(
            ConsumerLagProperties lag, ControlPlaneProperties control, KafkaListenerProperties kafka) {
        Map<String, String> security = new HashMap<>();
        if (control.secretFile() != null) {
            // The brokers' internal listeners then require a login: the coordinators' own.
            security.putAll(control.secret().coordinatorLogin().kafkaClientProperties());
        }
        if (kafka.tlsEnabled()) {
            // Internal TLS is cluster-wide: the brokers' internal listeners are TLS as this one is.
            security.putAll(kafka.kafkaClientTlsProperties());
            security.put("security.protocol", control.secretFile() == null ? "SSL" : "SASL_SSL");
        }
        return new AdminLogEndOffsets(lag.requestTimeout(), properties -> {
            properties.putAll(security);
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
