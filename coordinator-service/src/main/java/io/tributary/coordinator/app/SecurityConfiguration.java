package io.tributary.coordinator.app;

import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.security.AclChanges;
import io.tributary.coordinator.security.ScramAlterations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the coordinators' Kafka-side security core (package {@code security}): the SCRAM credential
 * checks the control plane runs for AlterUserScramCredentials, the ACL checks it runs for
 * CreateAcls and DeleteAcls, and the bootstrap users' one-time write. Bad bootstrap users stop the process at start, naming the user and the rule.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({SecurityProperties.class, MetadataProperties.class})
class SecurityConfiguration {

    @Bean
    ScramAlterations scramAlterations(SecurityProperties security, MetadataProperties metadata) {
        return new ScramAlterations(security.scramRules(metadata));
    }

    @Bean
    AclChanges aclChanges(MetadataProperties metadata) {
        return new AclChanges(metadata.maxAcls());
    }

    @Bean
    ScramBootstrapLoop scramBootstrapLoop(
            SecurityProperties security, MetadataProperties metadata, MetadataRaftNode node, MetadataClient client) {
        return new ScramBootstrapLoop(security.scramBootstrap(metadata), node, client, metadata.heartbeatInterval());
    }
}
