package io.tributary.coordinator.app;

import io.tributary.common.app.KafkaListenerProperties;
import io.tributary.common.app.KafkaListenerSecurity;
import io.tributary.common.protocol.ListenerSecurity;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.coordinator.api.ControlPlaneProperties;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.security.AclChanges;
import io.tributary.coordinator.security.BrokerSigningSecrets;
import io.tributary.coordinator.security.ImageCredentials;
import io.tributary.coordinator.security.InternalCredentials;
import io.tributary.coordinator.security.QuotaChanges;
import io.tributary.coordinator.security.ScramAlterations;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the coordinators' Kafka-side security core (package {@code security}): the SCRAM credential
 * checks the control plane runs for AlterUserScramCredentials, the ACL checks it runs for
 * CreateAcls and DeleteAcls, and the bootstrap users' one-time write, and with the cluster secret
 * the internal logins: their credentials ({@link InternalCredentialsLoop}) and the Kafka listener's
 * SASL requirement. Bad bootstrap users stop the process at start, naming the user and the rule.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({SecurityProperties.class, MetadataProperties.class})
class SecurityConfiguration {

    private static final Logger log = LoggerFactory.getLogger(SecurityConfiguration.class);

    @Bean
    ScramAlterations scramAlterations(SecurityProperties security, MetadataProperties metadata) {
        return new ScramAlterations(security.scramRules(metadata));
    }

    /**
     * The internal logins' credentials, written while this coordinator leads, with the cluster
     * secret ({@code tributary.coordinator.control.secret-file}, read at start).
     */
    @Bean
    @ConditionalOnProperty("tributary.coordinator.control.secret-file")
    InternalCredentialsLoop internalCredentialsLoop(
            ControlPlaneProperties control,
            SecurityProperties security,
            MetadataProperties metadata,
            MetadataRaftNode node,
            MetadataClient client,
            BrokerSigningSecrets signers) {
        SecureRandom random = new SecureRandom();
        InternalCredentials credentials = new InternalCredentials(
                control.secret(),
                control.previousSecret(),
                signers,
                security.scramRules(metadata).minIterations(),
                () -> {
                    byte[] salt = new byte[ScramBootstrapLoop.SALT_BYTES];
                    random.nextBytes(salt);
                    return salt;
                });
        return new InternalCredentialsLoop(credentials, node, client, metadata.heartbeatInterval());
    }

    /**
     * With the cluster secret, the Kafka listener ({@code tributary.kafka.*}: the brokers forward
     * group requests to it) requires a SCRAM login against the image's credentials of the internal
     * users only ({@link ImageCredentials}): the brokers log in as {@code tributary-broker-<id>}.
     * Without it the listener requires no login. With {@code tributary.kafka.ssl.keystore.location}
     * it is TLS too ({@code SASL_SSL}, or {@code SSL} without the secret).
     */
    @Bean
    KafkaListenerSecurity kafkaListenerSecurity(
            ControlPlaneProperties control, MetadataRaftNode node, KafkaListenerProperties kafka) {
        Optional<SaslSettings> sasl = Optional.empty();
        if (control.secretFile() == null) {
            log.warn("the Kafka listener (tributary.kafka.*) is open to anyone who reaches it: set"
                    + " tributary.coordinator.control.secret-file to require the brokers' SCRAM logins");
        } else {
            CredentialLookup credentials =
                    new ImageCredentials(() -> node.stateMachine().image().scramCredentials());
            sasl = Optional.of(new SaslSettings(List.of("SCRAM-SHA-512", "SCRAM-SHA-256"), credentials));
        }
        ListenerSecurity security = kafka.security(sasl);
        if (security.tls() == null) {
            log.warn("the Kafka listener (group requests forwarded by the brokers) is not encrypted: set"
                    + " tributary.kafka.ssl.keystore.location to make it TLS");
        } else {
            log.info("the Kafka listener is {}", security.protocolName());
        }
        return new KafkaListenerSecurity(security);
    }

    @Bean
    AclChanges aclChanges(MetadataProperties metadata) {
        return new AclChanges(metadata.maxAcls());
    }

    @Bean
    QuotaChanges quotaChanges(MetadataProperties metadata) {
        return new QuotaChanges(metadata.maxQuotaEntities());
    }

    @Bean
    ScramBootstrapLoop scramBootstrapLoop(
            SecurityProperties security, MetadataProperties metadata, MetadataRaftNode node, MetadataClient client) {
        return new ScramBootstrapLoop(security.scramBootstrap(metadata), node, client, metadata.heartbeatInterval());
    }
}
