package io.tributary.broker.app;

import io.tributary.broker.security.ClusterCredentials;
import io.tributary.common.app.KafkaListenerSecurity;
import io.tributary.common.protocol.ListenerSecurity;
import io.tributary.common.security.internal.InternalLogin;
import io.tributary.common.security.sasl.SaslSettings;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The authentication of the broker's internal Kafka traffic (docs/control-plane.md, "Internal Kafka
 * logins"). With the cluster secret or this broker's key set ({@code
 * tributary.broker.cluster.secret-file} or {@code key-file}):
 *
 * <ul>
 *   <li>the internal listener ({@code tributary.kafka.*}, registered as {@code PLAINTEXT}) requires a
 *       SASL login, SCRAM-SHA-512 or SCRAM-SHA-256, against the cluster's SCRAM credentials ({@link
 *       ClusterCredentials}: the coordinators write the brokers' own; an operator creates the
 *       gateway's and other clients' with AlterUserScramCredentials);
 *   <li>this broker logs in as {@code tributary-broker-<id>} ({@link InternalLogin}) when it fetches
 *       from a leader and when it forwards group requests to the coordinators.
 * </ul>
 *
 * Without either, the listener is {@code PLAINTEXT} and the broker does not log in.
 */
@Configuration(proxyBeanMethods = false)
class InternalAuthConfiguration {

    private static final Logger log = LoggerFactory.getLogger(InternalAuthConfiguration.class);

    /** The mechanisms of the internal listener, SCRAM-SHA-512 (the brokers' own) first. */
    static final List<String> MECHANISMS = List.of("SCRAM-SHA-512", "SCRAM-SHA-256");

    @Bean
    KafkaListenerSecurity internalListenerSecurity(
            BrokerProperties broker, ClusterProperties cluster, ClusterCredentials credentials) {
        Optional<InternalLogin> login = cluster.kafkaLogin(broker.id());
        if (login.isEmpty()) {
            log.warn("the internal Kafka listener (tributary.kafka.*) is open to anyone who reaches it: set"
                    + " tributary.broker.cluster.secret-file or key-file to require SCRAM logins");
            return new KafkaListenerSecurity(ListenerSecurity.PLAINTEXT);
        }
        log.info(
                "the internal Kafka listener requires a SASL login ({}); this broker logs in as {}",
                MECHANISMS,
                login.get().user());
        return new KafkaListenerSecurity(new ListenerSecurity(null, new SaslSettings(MECHANISMS, credentials)));
    }
}
