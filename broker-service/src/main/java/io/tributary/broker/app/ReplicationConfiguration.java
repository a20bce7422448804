package io.tributary.broker.app;

import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.replication.Replication;
import java.time.Clock;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Replication: the follower fetchers and the leaders' ISR changes ({@link Replication}), attached to
 * the replica manager before the first image arrives (the metadata follower starts after every
 * bean is created). It depends on the replica manager, so Spring stops it (every fetcher, the ISR
 * checks) before the logs close.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ReplicationProperties.class)
class ReplicationConfiguration {

    @Bean(destroyMethod = "close")
    Replication replication(
            ReplicaManager replicaManager,
            ControlPlane controlPlane,
            MetadataView metadataView,
            ReplicationProperties properties) {
        return new Replication(
                        replicaManager, controlPlane, metadataView::isActive, properties.toConfig(), Clock.systemUTC())
                .start();
    }
}
