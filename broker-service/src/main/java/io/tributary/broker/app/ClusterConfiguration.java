package io.tributary.broker.app;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tributary.broker.app.ExternalListenerConfiguration.ExternalKafkaListener;
import io.tributary.broker.app.NamedListenersConfiguration.NamedKafkaListeners;
import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerListeners;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.HttpControlPlane;
import io.tributary.broker.cluster.MetadataFollower;
import io.tributary.broker.cluster.MetadataListener;
import io.tributary.common.app.KafkaListenerLifecycle;
import io.tributary.common.app.KafkaListenerProperties;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The broker's membership in the cluster (package {@code cluster}): the control-plane client, the
 * metadata follower (the {@link io.tributary.broker.cluster.MetadataView} handlers read), the
 * lifecycle that registers once the Kafka listener is bound, the {@code brokerRegistration} health
 * indicator (in the readiness group) and the membership meters.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ClusterProperties.class)
class ClusterConfiguration {

    @Bean
    HttpControlPlane controlPlane(BrokerProperties broker, ClusterProperties cluster) {
        return new HttpControlPlane(cluster.controlPlaneConfig(broker.id(), broker.coordinators()));
    }

    /** Listener beans (the replica manager...) are resolved when the follower starts, not here. */
    @Bean
    MetadataFollower metadataFollower(
            BrokerProperties broker,
            ClusterProperties cluster,
            ControlPlane controlPlane,
            ObjectProvider<MetadataListener> listeners) {
        return new MetadataFollower(
                cluster.followerConfig(broker.id(), broker.rack()),
                controlPlane,
                () -> listeners.orderedStream().toList(),
                InstantSource.system());
    }

    /**
     * Starts the follower after the Kafka listeners (it depends on the internal listener's lifecycle
     * bean, so Spring starts that first and stops it last; the external one runs a phase earlier):
     * the registered endpoints carry the bound ports.
     */
    @Bean
    ClusterMembershipLifecycle clusterMembershipLifecycle(
            MetadataFollower follower,
            KafkaListenerLifecycle listener,
            KafkaListenerProperties kafka,
            ObjectProvider<ExternalKafkaListener> externalListener,
            ExternalListenerProperties external,
            NamedKafkaListeners named,
            BrokerProperties broker,
            ClusterProperties cluster) {
        return new ClusterMembershipLifecycle(
                follower,
                listener,
                kafka,
                Optional.ofNullable(externalListener.getIfAvailable()).map(l -> new External(l, external, broker.id())),
                named,
                cluster.controlledShutdownTimeout());
    }

    /** The external listener and what its endpoint is made of. */
    record External(ExternalKafkaListener listener, ExternalListenerProperties properties, int brokerId) {

        BrokerEndpoint endpoint() {
            if (!listener.server().isServing()) {
                throw new IllegalStateException(
                        "the external Kafka listener must be bound before the broker registers");
            }
            return properties.endpoint(brokerId, listener.server().port());
        }
    }

    @Bean
    HealthIndicator brokerRegistrationHealthIndicator(MetadataFollower follower, HttpControlPlane controlPlane) {
        return () -> {
            MetadataFollower.Status status = follower.status();
            Health.Builder health = status.active() ? Health.up() : Health.outOfService();
            health.withDetail("brokerId", follower.brokerId())
                    .withDetail("incarnationId", status.incarnationId().toString())
                    .withDetail("registered", status.registered())
                    .withDetail("fenced", status.fenced())
                    .withDetail("metadataVersion", status.metadataVersion())
                    .withDetail(
                            "coordinator", controlPlane.preferredCoordinator().getAuthority());
            status.lastHeartbeat().ifPresent(at -> health.withDetail("lastHeartbeat", at.toString()));
            return health.build();
        };
    }

    /**
     * {@code tributary.broker.metadata.version} (gauge), {@code tributary.broker.active} (gauge,
     * 1 when active), {@code tributary.broker.heartbeat.failures}, {@code
     * tributary.broker.metadata.poll.failures}, {@code tributary.broker.registration.failures}
     * (counters).
     */
    @Bean
    MeterBinder clusterMembershipMetrics(MetadataFollower follower) {
        return registry -> {
            Gauge.builder(
                            "tributary.broker.metadata.version",
                            follower,
                            f -> f.image().version())
                    .description("The metadata version of this broker's cluster image (-1 before the first)")
                    .register(registry);
            Gauge.builder("tributary.broker.active", follower, f -> f.isActive() ? 1 : 0)
                    .description("1 while this broker is registered, unfenced and heartbeating within its session")
                    .register(registry);
            FunctionCounter.builder(
                            "tributary.broker.heartbeat.failures", follower, MetadataFollower::heartbeatFailures)
                    .description("Heartbeats to the coordinators that failed")
                    .register(registry);
            FunctionCounter.builder(
                            "tributary.broker.metadata.poll.failures", follower, MetadataFollower::metadataPollFailures)
                    .description("Metadata long polls that failed")
                    .register(registry);
            FunctionCounter.builder(
                            "tributary.broker.registration.failures", follower, MetadataFollower::registrationFailures)
                    .description("Registrations with the coordinators that failed")
                    .register(registry);
        };
    }

    /**
     * Registers (starts the follower) once the Kafka listeners are bound: the internal endpoint
     * ({@code PLAINTEXT}), when enabled the external one ({@code EXTERNAL}), and one per named
     * listener under its name. At a clean stop, before the
     * listener closes: the controlled shutdown (the coordinators fence this broker and move its
     * leaderships at once, bounded by {@code controlled-shutdown-timeout}), then the follower stops.
     * The replication fetchers and the logs close after the listener (bean destruction).
     */
    static final class ClusterMembershipLifecycle implements SmartLifecycle {

        private final MetadataFollower follower;
        private final KafkaListenerLifecycle listener;
        private final KafkaListenerProperties kafka;
        private final Optional<External> external;
        private final NamedKafkaListeners named;
        private final Duration controlledShutdownTimeout;
        private volatile boolean running;

        ClusterMembershipLifecycle(
                MetadataFollower follower,
                KafkaListenerLifecycle listener,
                KafkaListenerProperties kafka,
                Optional<External> external,
                NamedKafkaListeners named,
                Duration controlledShutdownTimeout) {
            this.follower = follower;
            this.listener = listener;
            this.kafka = kafka;
            this.external = external;
            this.named = named;
            this.controlledShutdownTimeout = controlledShutdownTimeout;
        }

        @Override
        public void start() {
            if (!listener.server().isServing()) {
                throw new IllegalStateException("the Kafka listener must be bound before the broker registers");
            }
            int port = kafka.resolvedAdvertisedPort(listener.server().port());
            List<BrokerEndpoint> endpoints = new ArrayList<>();
            endpoints.add(new BrokerEndpoint(BrokerListeners.INTERNAL, kafka.resolvedAdvertisedHost(), port));
            external.ifPresent(e -> endpoints.add(e.endpoint()));
            endpoints.addAll(named.endpoints());
            follower.start(endpoints);
            running = true;
        }

        @Override
        public void stop() {
            if (controlledShutdownTimeout.isPositive()) {
                follower.controlledShutdown(controlledShutdownTimeout);
            }
            follower.close();
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        /** The Kafka listener's phase; the bean dependency orders the two within it. */
        @Override
        public int getPhase() {
            return listener.getPhase();
        }
    }
}
