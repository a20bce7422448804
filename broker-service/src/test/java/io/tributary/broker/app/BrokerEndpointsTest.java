package io.tributary.broker.app;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.testing.FixedMetadataView;
import io.tributary.common.testing.KafkaServiceEndpointsContract;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** A broker as operators see it over HTTP; the checks are {@link KafkaServiceEndpointsContract}'s. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"tributary.kafka.port=0", "tributary.broker.data-dir=target/test-data/broker"})
class BrokerEndpointsTest extends KafkaServiceEndpointsContract {

    BrokerEndpointsTest() {
        super("broker");
    }

    /**
     * Stands in for the metadata follower's view until the cluster wiring provides one (remove
     * this when a {@code MetadataView} bean exists in the application).
     */
    @TestConfiguration(proxyBeanMethods = false)
    static class EmptyCluster {
        @Bean
        MetadataView metadataView() {
            return new FixedMetadataView(0, ClusterImage.EMPTY);
        }
    }
}
