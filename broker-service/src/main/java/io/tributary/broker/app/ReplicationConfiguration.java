package io.tributary.broker.app;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.replication.Replication;
import io.tributary.broker.replication.ReplicationMetrics;
import io.tributary.common.security.internal.InternalClientSecurity;
import java.time.Clock;
import java.util.Collection;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Replication: the follower fetchers and the leaders' ISR changes ({@link Replication}), attached to
 * the replica manager before the first image arrives (the metadata follower starts after every
 * bean is created), and its meters. It depends on the replica manager, so Spring stops it (every
 * fetcher, the ISR checks) before the logs close.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ReplicationProperties.class)
class ReplicationConfiguration {

    @Bean(destroyMethod = "close")
    Replication replication(
            ReplicaManager replicaManager,
            ControlPlane controlPlane,
            MetadataView metadataView,
            ReplicationProperties properties,
            InternalClientSecurity internalClients,
            MeterRegistry registry) {
        Replication replication = new Replication(
                        replicaManager,
                        controlPlane,
                        metadataView::isActive,
                        properties.toConfig(),
                        Clock.systemUTC(),
                        new MicrometerReplicationMetrics(registry),
                        internalClients)
                .start();
        Gauge.builder(
                        "tributary.broker.replica.fetchers",
                        replication,
                        r -> r.fetchers().assignments().size())
                .description("Follower fetchers running: one per broker this broker follows partitions from")
                .register(registry);
        Gauge.builder(
                        "tributary.broker.replica.fetched.partitions",
                        replication,
                        r -> r.fetchers().assignments().values().stream()
                                .mapToInt(Collection::size)
                                .sum())
                .description("Partitions this broker fetches as a follower")
                .register(registry);
        return replication;
    }

    /** Replication's counters. */
    static final class MicrometerReplicationMetrics implements ReplicationMetrics {
        private final Counter shrinks;
        private final Counter expands;
        private final Counter alterFailures;
        private final Counter fetchFailures;
        private final Counter truncations;

        MicrometerReplicationMetrics(MeterRegistry registry) {
            shrinks = isrChanges(registry, "shrink");
            expands = isrChanges(registry, "expand");
            alterFailures = Counter.builder("tributary.broker.alter.partition.failures")
                    .description("AlterPartition proposals refused by the coordinators or failed")
                    .register(registry);
            fetchFailures = Counter.builder("tributary.broker.replica.fetch.failures")
                    .description("Follower fetch requests or connections that failed")
                    .register(registry);
            truncations = Counter.builder("tributary.broker.replica.truncations")
                    .description("Follower log truncations (divergence from the leader, or a restart at its log start)")
                    .register(registry);
        }

        private static Counter isrChanges(MeterRegistry registry, String kind) {
            return Counter.builder("tributary.broker.isr.changes")
                    .description("Committed ISR changes of partitions this broker leads")
                    .tag("kind", kind)
                    .register(registry);
        }

        @Override
        public void isrShrunk() {
            shrinks.increment();
        }

        @Override
        public void isrExpanded() {
            expands.increment();
        }

        @Override
        public void alterPartitionFailed() {
            alterFailures.increment();
        }

        @Override
        public void fetchFailed() {
            fetchFailures.increment();
        }

        @Override
        public void truncated() {
            truncations.increment();
        }
    }
}
