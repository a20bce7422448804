package io.tributary.broker.app;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerListeners;
import io.tributary.common.app.KafkaListenerConfiguration;
import io.tributary.common.app.KafkaListenerProperties;
import io.tributary.common.listeners.KafkaListenersConfig;
import io.tributary.common.listeners.ListenerSecurities;
import io.tributary.common.listeners.ListenerSpec;
import io.tributary.common.protocol.ConnectionAdmission;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestAuthorizer;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.protocol.RequestWrapper;
import io.tributary.common.security.sasl.CredentialLookup;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The broker's named Kafka listeners ({@code tributary.broker.listeners} and Kafka's other names,
 * {@link NamedListenersProperties}): one {@link KafkaProtocolServer} per listener, each with every
 * {@link RequestHandler} bean, its security protocol (TLS and SASL from common's {@code
 * security}), the {@code listener="<NAME>"} tag on the protocol meters, and its endpoint registered
 * with the coordinators under its name. The health indicator {@code kafkaNamedListeners} is UP
 * while every one accepts.
 *
 * <p>SCRAM credentials, and PLAIN passwords of a listener without {@code sasl.plain.users.file},
 * come from the {@link CredentialLookup} bean (the cluster's credentials, {@code
 * security.ClusterCredentials}); an application without one has no such users and every such
 * login fails.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(NamedListenersProperties.class)
class NamedListenersConfiguration {

    private static final Logger log = LoggerFactory.getLogger(NamedListenersConfiguration.class);

    @Bean
    NamedKafkaListeners namedKafkaListeners(
            NamedListenersProperties properties,
            KafkaListenerProperties kafka,
            ExternalListenerProperties external,
            ObjectProvider<RequestHandler> handlers,
            RequestAuthorizer authorizer,
            RequestWrapper requestQuota,
            ConnectionAdmission connectionQuota,
            ObjectProvider<CredentialLookup> credentials,
            MeterRegistry registry) {
        // The external listener takes its TLS and SASL settings from the same keys (listener.name.external.*).
        List<ListenerSpec> specs = KafkaListenersConfig.parse(
                properties.kafkaConfig(),
                NamedListenersProperties.PREFIX,
                external.enabled() ? Set.of(BrokerListeners.EXTERNAL) : Set.of());
        CredentialLookup users = credentials.getIfAvailable(() -> CredentialLookup.NONE);
        List<RequestHandler> registered =
                requestQuota.wrap(authorizer.guard(handlers.orderedStream().toList()));
        List<NamedKafkaListeners.Named> listeners = new ArrayList<>();
        for (ListenerSpec spec : specs) {
            checkName(spec, external);
            ProtocolServerConfig bounds = kafka.toConfig(spec.name());
            ProtocolServerConfig config = new ProtocolServerConfig(
                    spec.name(),
                    spec.bind().host().isEmpty() ? "0.0.0.0" : spec.bind().host(),
                    spec.bind().port(),
                    bounds.maxFrameBytes(),
                    bounds.maxConnections(),
                    bounds.maxInFlightRequestBytes(),
                    bounds.idleTimeout(),
                    bounds.shutdownTimeout(),
                    bounds.connectionThreads());
            var server = new KafkaProtocolServer(
                    config,
                    registered,
                    new ProtocolMetrics(registry, spec.name()),
                    ListenerSecurities.of(
                            spec,
                            users,
                            properties.securityFileCheckInterval(),
                            InstantSource.system(),
                            NamedListenersProperties.PREFIX),
                    connectionQuota);
            if (!spec.registered()) {
                log.warn(
                        "Kafka listener {} is not in {}advertised.listeners: it is not registered, so its clients are"
                                + " told of no broker (Kafka's rule)",
                        spec.name(),
                        NamedListenersProperties.PREFIX);
            }
            listeners.add(new NamedKafkaListeners.Named(spec, config.host(), server));
        }
        return new NamedKafkaListeners(listeners);
    }

    /** The internal and external listeners' registered names are theirs. */
    private static void checkName(ListenerSpec spec, ExternalListenerProperties external) {
        if (spec.name().equals(BrokerListeners.INTERNAL)) {
            throw new IllegalArgumentException(("%slisteners: %s is the name of the broker's internal listener"
                            + " (tributary.kafka.*, which replication and the gateway use); give this one another"
                            + " name and map it in %slistener.security.protocol.map, e.g. CLIENT:PLAINTEXT")
                    .formatted(
                            NamedListenersProperties.PREFIX,
                            BrokerListeners.INTERNAL,
                            NamedListenersProperties.PREFIX));
        }
        if (spec.name().equals(BrokerListeners.EXTERNAL) && external.enabled()) {
            throw new IllegalArgumentException(("%slisteners: %s is the name of the external listener"
                            + " (tributary.broker.external-listener.enabled=true); give this one another name")
                    .formatted(NamedListenersProperties.PREFIX, BrokerListeners.EXTERNAL));
        }
    }

    /**
     * Per named listener with TLS (and the external one, {@link ExternalListenerConfiguration}):
     * {@code tributary.protocol.tls.reloads} (changed TLS files loaded
     * for new connections) and {@code tributary.protocol.tls.reload.failures} (changed files that
     * could not be loaded, the previous ones kept: a rotation gone wrong), tagged {@code listener}.
     */
    @Bean
    MeterBinder namedListenersTlsMetrics(NamedKafkaListeners listeners) {
        return registry -> listeners.listeners().stream()
                .filter(n -> n.spec().protocol().usesTls())
                .forEach(n -> tlsMeters(registry, n.server(), n.spec().name()));
    }

    /** The TLS reload meters of one listener with TLS, tagged {@code listener}. */
    static void tlsMeters(MeterRegistry registry, KafkaProtocolServer server, String listener) {
        FunctionCounter.builder("tributary.protocol.tls.reloads", server, KafkaProtocolServer::tlsReloads)
                .description("Changed TLS files this listener loaded for its new connections")
                .tag("listener", listener)
                .register(registry);
        FunctionCounter.builder(
                        "tributary.protocol.tls.reload.failures", server, KafkaProtocolServer::tlsReloadFailures)
                .description("Changed TLS files this listener could not load (it kept the previous ones)")
                .tag("listener", listener)
                .register(registry);
    }

    @Bean
    HealthIndicator kafkaNamedListenersHealthIndicator(NamedKafkaListeners listeners) {
        return () -> {
            boolean serving =
                    listeners.listeners().stream().allMatch(n -> n.server().isServing());
            Health.Builder health = serving ? Health.up() : Health.outOfService();
            for (NamedKafkaListeners.Named named : listeners.listeners()) {
                health.withDetail(
                        named.spec().name(),
                        KafkaListenerConfiguration.health(named.server()).getDetails());
            }
            return health.build();
        };
    }

    /**
     * The named listeners' lifecycle: bound one phase before the internal listener (as the external
     * one), so their endpoints carry bound ports when the broker registers, and closed after it.
     */
    static final class NamedKafkaListeners implements SmartLifecycle {

        /** One listener: what configured it, the host it bound, its server. */
        record Named(ListenerSpec spec, String bindHost, KafkaProtocolServer server) {

            /** The endpoint registered for it: the advertised address, holes filled from the bound one. */
            BrokerEndpoint endpoint() {
                String host =
                        spec.advertised().map(a -> a.host()).orElse(spec.bind().host());
                int port = spec.advertised().map(a -> a.port()).orElse(0);
                String resolved = KafkaListenerProperties.resolveAdvertisedHost(
                        host.isEmpty() ? null : host,
                        bindHost,
                        NamedListenersProperties.PREFIX + "advertised.listeners (" + spec.name() + ")");
                return new BrokerEndpoint(spec.name(), resolved, port > 0 ? port : server.port());
            }
        }

        private final List<Named> listeners;
        private volatile boolean running;

        NamedKafkaListeners(List<Named> listeners) {
            this.listeners = List.copyOf(listeners);
        }

        List<Named> listeners() {
            return listeners;
        }

        /** The endpoints to register, one per registered listener, in {@code listeners} order. */
        List<BrokerEndpoint> endpoints() {
            for (Named named : listeners) {
                if (!named.server().isServing()) {
                    throw new IllegalStateException(
                            "the Kafka listener " + named.spec().name() + " must be bound before the broker registers");
                }
            }
            return listeners.stream()
                    .filter(n -> n.spec().registered())
                    .map(Named::endpoint)
                    .toList();
        }

        /** Binds every listener; if one cannot bind, closes those already bound and fails. */
        @Override
        public void start() {
            List<KafkaProtocolServer> started = new ArrayList<>();
            try {
                for (Named named : listeners) {
                    named.server().start();
                    started.add(named.server());
                }
            } catch (RuntimeException e) {
                started.forEach(KafkaProtocolServer::close);
                throw e;
            }
            running = true;
        }

        @Override
        public void stop() {
            listeners.forEach(n -> n.server().close());
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return SmartLifecycle.DEFAULT_PHASE - 1;
        }
    }
}
