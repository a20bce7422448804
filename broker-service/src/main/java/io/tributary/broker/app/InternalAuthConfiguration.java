package io.tributary.broker.app;

import io.tributary.broker.security.ClusterCredentials;
import io.tributary.common.app.KafkaListenerProperties;
import io.tributary.common.app.KafkaListenerSecurity;
import io.tributary.common.protocol.ListenerSecurity;
import io.tributary.common.security.internal.InternalClientSecurity;
import io.tributary.common.security.internal.InternalLogin;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.TlsClient;
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
 *   <li>the internal listener ({@code tributary.kafka.*}, registered under the listener name {@code PLAINTEXT}, whatever its protocol) requires a
 *       SASL login, SCRAM-SHA-512 or SCRAM-SHA-256, against the cluster's SCRAM credentials ({@link
 *       ClusterCredentials}: the coordinators write the brokers' own; an operator creates the
 *       gateway's and other clients' with AlterUserScramCredentials);
 *   <li>this broker logs in as {@code tributary-broker-<id>} ({@link InternalLogin}) when it fetches
 *       from a leader and when it forwards group requests to the coordinators.
 * </ul>
 *
 * Without either, the listener does not require a login and the broker does not log in. With {@code
 * tributary.kafka.ssl.keystore.location} set the listener is TLS too ({@code SASL_SSL}, or {@code
 * SSL} without the secret), and this broker's internal clients speak TLS, trusting {@code
 * tributary.kafka.ssl.truststore.*}.
 */
@Configuration(proxyBeanMethods = false)
class InternalAuthConfiguration {

    private static final Logger log = LoggerFactory.getLogger(InternalAuthConfiguration.class);

    /** The mechanisms of the internal listener, SCRAM-SHA-512 (the brokers' own) first. */
    static final List<String> MECHANISMS = List.of("SCRAM-SHA-512", "SCRAM-SHA-256");

    @Bean
    KafkaListenerSecurity internalListenerSecurity(
            BrokerProperties broker,
            ClusterProperties cluster,
            ClusterCredentials credentials,
            KafkaListenerProperties kafka) {
        Optional<InternalLogin> login = cluster.kafkaLogin(broker.id());
        if (login.isEmpty()) {
            log.warn("the internal Kafka listener (tributary.kafka.*) is open to anyone who reaches it: set"
                    + " tributary.broker.cluster.secret-file or key-file to require SCRAM logins");
        } else {
            log.info(
                    "the internal Kafka listener requires a SASL login ({}); this broker logs in as {}",
                    MECHANISMS,
                    login.get().user());
        }
        ListenerSecurity security = kafka.security(login.map(l -> new SaslSettings(MECHANISMS, credentials)));
        if (security.tls() == null) {
            log.warn("the internal Kafka traffic (replication, group forwarding, the gateway) is not encrypted:"
                    + " set tributary.kafka.ssl.keystore.location to make the internal listener TLS");
        } else {
            log.info("the internal Kafka listener is {}", security.protocolName());
        }
        return new KafkaListenerSecurity(security);
    }

    /**
     * How this broker's own internal clients (the replica fetchers, the group forwarding to the
     * coordinators' Kafka listener) secure their connections: its internal login when set, and TLS
     * ({@link KafkaListenerProperties#tlsClient}: the {@code tributary.kafka.ssl.truststore.*}
     * authorities, host names checked) when its own internal listener is TLS. Internal TLS is a
     * cluster-wide choice, as Kafka's inter-broker listener is: every broker's internal listener
     * and the coordinators' Kafka listeners are TLS, or none is.
     */
    @Bean
    InternalClientSecurity internalClientSecurity(
            BrokerProperties broker, ClusterProperties cluster, KafkaListenerProperties kafka) {
        Optional<TlsClient> tls = kafka.tlsEnabled() ? Optional.of(kafka.tlsClient()) : Optional.empty();
        InternalClientSecurity security = new InternalClientSecurity(cluster.kafkaLogin(broker.id()), tls);
        log.info(
                "this broker's replica fetchers and group forwarding connect with {}{}",
                security.protocolName(),
                tls.map(t -> " (" + t + ")").orElse(""));
        return security;
    }
}
