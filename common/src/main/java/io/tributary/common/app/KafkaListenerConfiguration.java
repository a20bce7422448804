package io.tributary.common.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.common.protocol.ConnectionAdmission;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ListenerSecurity;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.RequestAuthorizer;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.protocol.RequestWrapper;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Kafka-protocol listener of a service: every {@link RequestHandler} bean is registered, and
 * ApiVersions advertises exactly those, behind the service's {@link RequestAuthorizer} bean if it
 * has one; its security is the service's {@link KafkaListenerSecurity} bean, or without one TLS
 * from {@code tributary.kafka.ssl.*} when set ({@link KafkaListenerProperties#security}), else
 * {@code PLAINTEXT}.
 * The health indicator {@code kafkaListener} is UP while the
 * listener accepts connections; the services put it in their readiness group.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(KafkaListenerProperties.class)
public class KafkaListenerConfiguration {

    /** The listener's name in logs and in the {@code listener} metric tag. */
    public static final String LISTENER_NAME = "kafka";

    @Bean
    KafkaListenerLifecycle kafkaListenerLifecycle(
            KafkaListenerProperties properties,
            ObjectProvider<RequestHandler> handlers,
            ObjectProvider<RequestAuthorizer> authorizer,
            ObjectProvider<KafkaListenerSecurity> security,
            ObjectProvider<RequestWrapper> wrapper,
            ObjectProvider<ConnectionAdmission> admission,
            MeterRegistry registry) {
        List<RequestHandler> registered = handlers.orderedStream().toList();
        RequestAuthorizer guard = authorizer.getIfAvailable();
        if (guard != null) {
            registered = guard.guard(registered);
        }
        RequestWrapper outer = wrapper.getIfAvailable();
        if (outer != null) {
            registered = outer.wrap(registered);
        }
        ListenerSecurity secured = security.getIfAvailable(
                        () -> new KafkaListenerSecurity(properties.security(Optional.empty())))
                .security();
        var server = new KafkaProtocolServer(
                properties.toConfig(LISTENER_NAME),
                registered,
                new ProtocolMetrics(registry, LISTENER_NAME),
                secured,
                admission.getIfAvailable(() -> ConnectionAdmission.OPEN));
        return new KafkaListenerLifecycle(server);
    }

    @Bean
    HealthIndicator kafkaListenerHealthIndicator(KafkaListenerLifecycle lifecycle) {
        return () -> health(lifecycle.server());
    }

    /**
     * A listener's health: UP with its bound port and open connections while it accepts, else
     * OUT_OF_SERVICE. For a service's further listeners too.
     */
    public static Health health(KafkaProtocolServer server) {
        if (!server.isServing()) {
            return Health.outOfService().build();
        }
        return Health.up()
                .withDetail("port", server.port())
                .withDetail("connections", server.connectionCount())
                .build();
    }
}
