package io.tributary.broker.app;

import io.tributary.broker.api.AdminApiConfig;
import io.tributary.broker.api.AlterConfigsHandler;
import io.tributary.broker.api.CreatePartitionsHandler;
import io.tributary.broker.api.CreateTopicsHandler;
import io.tributary.broker.api.DeleteTopicsHandler;
import io.tributary.broker.api.DescribeClusterHandler;
import io.tributary.broker.api.DescribeConfigsHandler;
import io.tributary.broker.api.FindCoordinatorHandler;
import io.tributary.broker.api.IncrementalAlterConfigsHandler;
import io.tributary.broker.api.InitProducerIdHandler;
import io.tributary.broker.api.ListGroupsHandler;
import io.tributary.broker.api.MetadataHandler;
import io.tributary.broker.api.ProducerIdAllocator;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.CoordinatorGroupsClient;
import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.log.TopicConfigDefaults;
import java.time.InstantSource;
import java.util.concurrent.Executor;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The broker's metadata and admin Kafka APIs: one {@link io.tributary.common.protocol.RequestHandler}
 * bean per API, which the Kafka listener registers, built on the cluster's {@link MetadataView} and
 * {@link ControlPlane} beans ({@link ClusterConfiguration}) and the broker's topic-config defaults
 * ({@link ReplicaConfiguration}, from {@code tributary.broker.log.*}).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({AdminApiProperties.class, ClusterProperties.class})
public class AdminApiConfiguration {

    @Bean
    AdminApiConfig adminApiConfig(AdminApiProperties properties, TopicConfigDefaults topicDefaults) {
        return properties.toConfig(topicDefaults);
    }

    @Bean
    MetadataHandler metadataHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        return new MetadataHandler(metadata, controlPlane, config);
    }

    @Bean
    DescribeClusterHandler describeClusterHandler(MetadataView metadata, AdminApiConfig config) {
        return new DescribeClusterHandler(metadata, config);
    }

    @Bean
    CreateTopicsHandler createTopicsHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        return new CreateTopicsHandler(metadata, controlPlane, config);
    }

    @Bean
    DeleteTopicsHandler deleteTopicsHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        return new DeleteTopicsHandler(metadata, controlPlane, config);
    }

    @Bean
    CreatePartitionsHandler createPartitionsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        return new CreatePartitionsHandler(metadata, controlPlane, config);
    }

    @Bean
    DescribeConfigsHandler describeConfigsHandler(MetadataView metadata, AdminApiConfig config) {
        return new DescribeConfigsHandler(metadata, config);
    }

    @Bean
    IncrementalAlterConfigsHandler incrementalAlterConfigsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        return new IncrementalAlterConfigsHandler(metadata, controlPlane, config);
    }

    @Bean
    AlterConfigsHandler alterConfigsHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        return new AlterConfigsHandler(metadata, controlPlane, config);
    }

    @Bean
    GroupCoordinatorLocator groupCoordinatorLocator(ControlPlane controlPlane, ClusterProperties cluster) {
        return new GroupCoordinatorLocator(controlPlane, InstantSource.system(), cluster.groupCoordinatorConfig());
    }

    @Bean
    ListGroupsHandler listGroupsHandler(
            MetadataView metadata, GroupCoordinatorLocator locator, ClusterProperties cluster) {
        return new ListGroupsHandler(
                metadata,
                locator,
                new CoordinatorGroupsClient(cluster.coordinatorGroupsClientConfig(), metadata.brokerId()));
    }

    @Bean
    FindCoordinatorHandler findCoordinatorHandler(GroupCoordinatorLocator locator) {
        return new FindCoordinatorHandler(locator::lookup);
    }

    @Bean
    ProducerIdAllocator producerIdAllocator(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        Executor prefetcher =
                task -> Thread.ofVirtual().name("producer-id-prefetch").start(task);
        return new ProducerIdAllocator(controlPlane, metadata::brokerId, config.producerIdBlockSize(), prefetcher);
    }

    @Bean
    InitProducerIdHandler initProducerIdHandler(ProducerIdAllocator producerIds) {
        return new InitProducerIdHandler(producerIds);
    }
}
