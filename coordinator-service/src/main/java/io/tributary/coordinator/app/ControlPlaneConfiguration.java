package io.tributary.coordinator.app;

import io.tributary.coordinator.api.BodyLimitFilter;
import io.tributary.coordinator.api.ControlPlaneController;
import io.tributary.coordinator.api.ControlPlaneProperties;
import io.tributary.coordinator.api.ControlProblemAdvice;
import io.tributary.coordinator.api.MetadataHistory;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.security.AclChanges;
import io.tributary.coordinator.security.ScramAlterations;
import java.time.InstantSource;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * Wires the control plane ({@code /internal/v1}, package {@code api}): the metadata history fed by
 * the state machine's listener, the controller, its problem advice and the body bound.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ControlPlaneProperties.class)
class ControlPlaneConfiguration {

    /** Registered before Raft starts, so every applied command from the first on is seen. */
    @Bean
    MetadataHistory metadataHistory(MetadataRaftNode node, ControlPlaneProperties control) {
        MetadataHistory history = new MetadataHistory(control.historyLength());
        node.stateMachine().addListener(history::observe);
        return history;
    }

    @Bean
    ControlPlaneController controlPlaneController(
            MetadataRaftNode node,
            MetadataClient client,
            LivenessLoop liveness,
            MetadataHistory history,
            CoordinatorProperties coordinator,
            MetadataProperties metadata,
            ControlPlaneProperties control,
            ScramAlterations scramAlterations,
            AclChanges aclChanges) {
        return new ControlPlaneController(
                node,
                client,
                liveness,
                history,
                coordinator.id(),
                coordinator.httpPeers(),
                coordinator.peers(),
                coordinator.kafkaPeers(),
                control,
                metadata.maxPartitionsPerTopic(),
                scramAlterations,
                aclChanges,
                InstantSource.system());
    }

    @Bean
    ControlProblemAdvice controlProblemAdvice(JsonMapper json, ControlPlaneProperties control) {
        return new ControlProblemAdvice(json, control);
    }

    @Bean
    FilterRegistrationBean<BodyLimitFilter> controlPlaneBodyLimit(JsonMapper json, ControlPlaneProperties control) {
        FilterRegistrationBean<BodyLimitFilter> registration = new FilterRegistrationBean<>(
                new BodyLimitFilter(control.maxBodySize().toBytes(), json));
        registration.addUrlPatterns("/internal/*");
        return registration;
    }
}
