package io.tributary.broker.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tributary.broker.cluster.BrokerListeners;
import io.tributary.common.app.KafkaListenerConfiguration;
import io.tributary.common.app.KafkaListenerLifecycle;
import io.tributary.common.app.KafkaListenerProperties;
import io.tributary.common.listeners.KafkaListenersConfig;
import io.tributary.common.listeners.ListenerSecurities;
import io.tributary.common.listeners.ListenerSpec;
import io.tributary.common.listeners.SecurityProtocol;
import io.tributary.common.protocol.ConnectionAdmission;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.RequestAuthorizer;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.protocol.RequestWrapper;
import io.tributary.common.security.sasl.CredentialLookup;
import java.time.InstantSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The broker's optional external Kafka listener ({@code tributary.broker.external-listener.*},
 * {@link ExternalListenerProperties}): when enabled, a second {@link KafkaProtocolServer} with every
 * {@link RequestHandler} bean the internal listener serves, its own connection bound, the {@code
 * listener="external"} tag on the protocol meters, and the health indicator {@code
 * kafkaExternalListener}. The broker registers its endpoint with the coordinators beside the
 * internal one ({@link ClusterConfiguration}).
 *
 * <p>Its security ({@code security-protocol}, and the TLS and SASL settings of a named listener
 * called {@code EXTERNAL}) is built as a named listener's ({@link ListenerSecurities}), with the
 * same credentials ({@link NamedListenersConfiguration}); with TLS it has the named listeners' TLS
 * reload meters, tagged {@code listener="external"}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ExternalListenerProperties.class)
class ExternalListenerConfiguration {

    @Bean
    @ConditionalOnProperty(prefix = "tributary.broker.external-listener", name = "enabled", havingValue = "true")
    ExternalKafkaListener externalKafkaListener(
            ExternalListenerProperties properties,
            KafkaListenerProperties kafka,
            NamedListenersProperties named,
            ObjectProvider<RequestHandler> handlers,
            RequestAuthorizer authorizer,
            ObjectProvider<CredentialLookup> credentials,
            RequestWrapper requestQuota,
            ConnectionAdmission connectionQuota,
            MeterRegistry registry) {
        ListenerSpec spec = KafkaListenersConfig.ownListener(
                named.kafkaConfig(),
                properties.bind(),
                properties.securityProtocol(),
                NamedListenersProperties.PREFIX,
                ExternalListenerProperties.SECURITY_PROTOCOL);
        var server = new KafkaProtocolServer(
                properties.toConfig(kafka),
                requestQuota.wrap(authorizer.guard(handlers.orderedStream().toList())),
                new ProtocolMetrics(registry, BrokerListeners.EXTERNAL_SERVER_NAME),
                ListenerSecurities.of(
                        spec,
                        credentials.getIfAvailable(() -> CredentialLookup.NONE),
                        named.securityFileCheckInterval(),
                        InstantSource.system(),
                        NamedListenersProperties.PREFIX),
                connectionQuota);
        return new ExternalKafkaListener(new KafkaListenerLifecycle(server), spec.protocol());
    }

    /** With TLS: the TLS reload meters of a named listener, tagged {@code listener="external"}. */
    @Bean
    @ConditionalOnProperty(prefix = "tributary.broker.external-listener", name = "enabled", havingValue = "true")
    MeterBinder externalListenerTlsMetrics(ExternalKafkaListener listener) {
        return registry -> {
            if (listener.protocol().usesTls()) {
                NamedListenersConfiguration.tlsMeters(
                        registry, listener.server(), BrokerListeners.EXTERNAL_SERVER_NAME);
            }
        };
    }

    @Bean
    @ConditionalOnProperty(prefix = "tributary.broker.external-listener", name = "enabled", havingValue = "true")
    HealthIndicator kafkaExternalListenerHealthIndicator(ExternalKafkaListener listener) {
        return () -> KafkaListenerConfiguration.health(listener.server());
    }

    /**
     * The external listener's lifecycle. It runs one phase before the internal listener's (which the
     * registration shares): it is bound before the broker registers its endpoint, and it closes
     * after the controlled shutdown and the internal listener.
     */
    static final class ExternalKafkaListener implements SmartLifecycle {

        private final KafkaListenerLifecycle lifecycle;
        private final SecurityProtocol protocol;

        ExternalKafkaListener(KafkaListenerLifecycle lifecycle, SecurityProtocol protocol) {
            this.lifecycle = lifecycle;
            this.protocol = protocol;
        }

        SecurityProtocol protocol() {
            return protocol;
        }

        KafkaProtocolServer server() {
            return lifecycle.server();
        }

        @Override
        public void start() {
            lifecycle.start();
        }

        @Override
        public void stop() {
            lifecycle.stop();
        }

        @Override
        public boolean isRunning() {
            return lifecycle.isRunning();
        }

        @Override
        public int getPhase() {
            return lifecycle.getPhase() - 1;
        }
    }
}
