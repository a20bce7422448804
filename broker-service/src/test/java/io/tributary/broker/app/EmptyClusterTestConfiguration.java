package io.tributary.broker.app;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.testing.FixedMetadataView;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * A {@link MetadataView} over an empty image, for application tests that need the context to start
 * but not a cluster. Stands in for the metadata follower's view until the cluster wiring provides
 * one; {@code @Primary} so that it also wins over that one in these tests.
 */
@TestConfiguration(proxyBeanMethods = false)
public class EmptyClusterTestConfiguration {

    @Bean
    @Primary
    MetadataView emptyMetadataView(BrokerProperties properties) {
        return new FixedMetadataView(properties.id(), ClusterImage.EMPTY);
    }
}
