package io.tributary.coordinator.app;

import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.ControlPlaneSignature;
import io.tributary.coordinator.api.BodyLimitFilter;
import io.tributary.coordinator.api.BrokerAuthFilter;
import io.tributary.coordinator.api.ControlPlaneController;
import io.tributary.coordinator.api.ControlPlaneProperties;
import io.tributary.coordinator.api.ControlProblemAdvice;
import io.tributary.coordinator.api.MetadataHistory;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.security.AclChanges;
import io.tributary.coordinator.security.BrokerSigningSecrets;
import io.tributary.coordinator.security.QuotaChanges;
import io.tributary.coordinator.security.ScramAlterations;
import java.time.InstantSource;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
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

    private static final Logger log = LoggerFactory.getLogger(ControlPlaneConfiguration.class);

    /** The body bound runs before the signature check, which reads the body. */
    private static final int BODY_LIMIT_ORDER = 0;

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
            AclChanges aclChanges,
            QuotaChanges quotaChanges) {
        if (control.secretFile() == null) {
            log.warn(
                    "the control plane (/internal/v1) is open to anyone who reaches this port: set "
                            + "tributary.coordinator.control.secret-file (and the brokers' secret or key file) to authenticate brokers");
        }
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
                quotaChanges,
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
        registration.setOrder(BODY_LIMIT_ORDER);
        return registration;
    }

    /** The secret each broker signs with, as the control plane sees it; read by the internal credentials' loop. */
    @Bean
    BrokerSigningSecrets brokerSigningSecrets() {
        return new BrokerSigningSecrets();
    }

    /**
     * Brokers' signatures checked on every control-plane call, after the body bound; registered
     * (and the secret read, failing the start when it cannot be) only when a secret file is set.
     */
    @Bean
    @ConditionalOnProperty("tributary.coordinator.control.secret-file")
    FilterRegistrationBean<BrokerAuthFilter> controlPlaneBrokerAuth(
            JsonMapper json, ControlPlaneProperties control, BrokerSigningSecrets signers) {
        Optional<ClusterSecret> previous = control.previousSecret();
        if (previous.isPresent()) {
            log.warn(
                    "accepting calls signed under the previous cluster secret ({}) as well: a rotation is under way;"
                            + " unset tributary.coordinator.control.previous-secret-file once every broker uses {}",
                    control.previousSecretFile(),
                    control.secretFile());
        }
        ControlPlaneSignature.Verifier verifier = ControlPlaneSignature.Verifier.of(
                control.secret(), previous, control.maxClockSkew(), InstantSource.system());
        FilterRegistrationBean<BrokerAuthFilter> registration =
                new FilterRegistrationBean<>(new BrokerAuthFilter(verifier, signers, json));
        registration.addUrlPatterns("/internal/*");
        registration.setOrder(BODY_LIMIT_ORDER + 1);
        return registration;
    }
}
