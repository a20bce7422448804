package io.tributary.broker.app;

import io.tributary.broker.api.AdminApiConfig;
import io.tributary.broker.api.AlterClientQuotasHandler;
import io.tributary.broker.api.AlterConfigsHandler;
import io.tributary.broker.api.AlterUserScramCredentialsHandler;
import io.tributary.broker.api.CreateAclsHandler;
import io.tributary.broker.api.CreatePartitionsHandler;
import io.tributary.broker.api.CreateTopicsHandler;
import io.tributary.broker.api.DelegationTokenHandler;
import io.tributary.broker.api.DeleteAclsHandler;
import io.tributary.broker.api.DeleteTopicsHandler;
import io.tributary.broker.api.DescribeAclsHandler;
import io.tributary.broker.api.DescribeClientQuotasHandler;
import io.tributary.broker.api.DescribeClusterHandler;
import io.tributary.broker.api.DescribeConfigsHandler;
import io.tributary.broker.api.DescribeUserScramCredentialsHandler;
import io.tributary.broker.api.FindCoordinatorHandler;
import io.tributary.broker.api.GroupForwardingHandler;
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
import io.tributary.broker.quota.ControllerMutationQuota;
import io.tributary.broker.security.ClusterCredentials;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.security.internal.InternalClientSecurity;
import java.time.InstantSource;
import java.util.concurrent.Executor;
import org.apache.kafka.common.protocol.ApiKeys;
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
    MetadataHandler metadataHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl accessControl) {
        return new MetadataHandler(metadata, controlPlane, config, accessControl);
    }

    @Bean
    DescribeClusterHandler describeClusterHandler(
            MetadataView metadata, AdminApiConfig config, AccessControl accessControl) {
        return new DescribeClusterHandler(metadata, config, accessControl);
    }

    @Bean
    CreateTopicsHandler createTopicsHandler(
            MetadataView metadata,
            ControlPlane controlPlane,
            AdminApiConfig config,
            AccessControl accessControl,
            ControllerMutationQuota mutationQuota) {
        return new CreateTopicsHandler(metadata, controlPlane, config, accessControl, mutationQuota);
    }

    @Bean
    DeleteTopicsHandler deleteTopicsHandler(
            MetadataView metadata,
            ControlPlane controlPlane,
            AdminApiConfig config,
            AccessControl accessControl,
            ControllerMutationQuota mutationQuota) {
        return new DeleteTopicsHandler(metadata, controlPlane, config, accessControl, mutationQuota);
    }

    @Bean
    CreatePartitionsHandler createPartitionsHandler(
            MetadataView metadata,
            ControlPlane controlPlane,
            AdminApiConfig config,
            AccessControl accessControl,
            ControllerMutationQuota mutationQuota) {
        return new CreatePartitionsHandler(metadata, controlPlane, config, accessControl, mutationQuota);
    }

    @Bean
    DescribeConfigsHandler describeConfigsHandler(
            MetadataView metadata, AdminApiConfig config, AccessControl accessControl) {
        return new DescribeConfigsHandler(metadata, config, accessControl);
    }

    @Bean
    IncrementalAlterConfigsHandler incrementalAlterConfigsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl accessControl) {
        return new IncrementalAlterConfigsHandler(metadata, controlPlane, config, accessControl);
    }

    @Bean
    AlterConfigsHandler alterConfigsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl accessControl) {
        return new AlterConfigsHandler(metadata, controlPlane, config, accessControl);
    }

    @Bean
    GroupCoordinatorLocator groupCoordinatorLocator(ControlPlane controlPlane, ClusterProperties cluster) {
        return new GroupCoordinatorLocator(controlPlane, InstantSource.system(), cluster.groupCoordinatorConfig());
    }

    @Bean
    CoordinatorGroupsClient coordinatorGroupsClient(
            MetadataView metadata, ClusterProperties cluster, InternalClientSecurity internalClients) {
        return new CoordinatorGroupsClient(
                cluster.coordinatorGroupsClientConfig(), metadata.brokerId(), internalClients);
    }

    @Bean
    ListGroupsHandler listGroupsHandler(
            MetadataView metadata,
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl) {
        return new ListGroupsHandler(metadata, locator, coordinatorGroups, accessControl);
    }

    @Bean
    FindCoordinatorHandler findCoordinatorHandler(
            MetadataView metadata, GroupCoordinatorLocator locator, AccessControl accessControl) {
        return new FindCoordinatorHandler(
                locator::lookup, listener -> FindCoordinatorHandler.self(metadata, listener), accessControl);
    }

    // The group APIs, forwarded to the group coordinator (one bean each: the Kafka listener
    // registers every RequestHandler bean).

    @Bean
    GroupForwardingHandler consumerGroupHeartbeatForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.CONSUMER_GROUP_HEARTBEAT, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler consumerGroupDescribeForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.CONSUMER_GROUP_DESCRIBE, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler offsetCommitForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.OFFSET_COMMIT, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler offsetFetchForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.OFFSET_FETCH, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler describeGroupsForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.DESCRIBE_GROUPS, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler deleteGroupsForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.DELETE_GROUPS, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler offsetDeleteForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.OFFSET_DELETE, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler joinGroupForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.JOIN_GROUP, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler syncGroupForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.SYNC_GROUP, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler heartbeatForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.HEARTBEAT, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler leaveGroupForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.LEAVE_GROUP, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler streamsGroupHeartbeatForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.STREAMS_GROUP_HEARTBEAT, locator, coordinatorGroups, accessControl, metadata);
    }

    @Bean
    GroupForwardingHandler streamsGroupDescribeForwarder(
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return forwarder(ApiKeys.STREAMS_GROUP_DESCRIBE, locator, coordinatorGroups, accessControl, metadata);
    }

    private static GroupForwardingHandler forwarder(
            ApiKeys api,
            GroupCoordinatorLocator locator,
            CoordinatorGroupsClient coordinatorGroups,
            AccessControl accessControl,
            MetadataView metadata) {
        return GroupForwardingHandler.of(api, locator, coordinatorGroups, accessControl, metadata::image);
    }

    @Bean
    AlterUserScramCredentialsHandler alterUserScramCredentialsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        return new AlterUserScramCredentialsHandler(metadata, controlPlane, config);
    }

    @Bean
    DescribeUserScramCredentialsHandler describeUserScramCredentialsHandler(MetadataView metadata) {
        return new DescribeUserScramCredentialsHandler(metadata);
    }

    @Bean
    DescribeAclsHandler describeAclsHandler(MetadataView metadata, AccessControl accessControl) {
        return new DescribeAclsHandler(metadata, accessControl);
    }

    @Bean
    CreateAclsHandler createAclsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl accessControl) {
        return new CreateAclsHandler(metadata, controlPlane, config, accessControl);
    }

    @Bean
    AlterClientQuotasHandler alterClientQuotasHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        return new AlterClientQuotasHandler(metadata, controlPlane, config);
    }

    @Bean
    DescribeClientQuotasHandler describeClientQuotasHandler(MetadataView metadata) {
        return new DescribeClientQuotasHandler(metadata);
    }

    /** The delegation-token APIs, refused as Kafka without token authentication refuses them. */
    @Bean
    DelegationTokenHandler createDelegationTokenHandler() {
        return new DelegationTokenHandler(ApiKeys.CREATE_DELEGATION_TOKEN);
    }

    @Bean
    DelegationTokenHandler renewDelegationTokenHandler() {
        return new DelegationTokenHandler(ApiKeys.RENEW_DELEGATION_TOKEN);
    }

    @Bean
    DelegationTokenHandler expireDelegationTokenHandler() {
        return new DelegationTokenHandler(ApiKeys.EXPIRE_DELEGATION_TOKEN);
    }

    @Bean
    DelegationTokenHandler describeDelegationTokenHandler() {
        return new DelegationTokenHandler(ApiKeys.DESCRIBE_DELEGATION_TOKEN);
    }

    @Bean
    DeleteAclsHandler deleteAclsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl accessControl) {
        return new DeleteAclsHandler(metadata, controlPlane, config, accessControl);
    }

    /**
     * The cluster's SCRAM credentials (learnt with the metadata image: a {@code MetadataListener}) as
     * the {@link io.tributary.common.security.sasl.CredentialLookup} SASL listeners authenticate
     * against.
     */
    @Bean
    ClusterCredentials clusterCredentials() {
        return new ClusterCredentials();
    }

    @Bean
    ProducerIdAllocator producerIdAllocator(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        Executor prefetcher =
                task -> Thread.ofVirtual().name("producer-id-prefetch").start(task);
        return new ProducerIdAllocator(controlPlane, metadata::brokerId, config.producerIdBlockSize(), prefetcher);
    }

    @Bean
    InitProducerIdHandler initProducerIdHandler(ProducerIdAllocator producerIds, AccessControl accessControl) {
        return new InitProducerIdHandler(producerIds, accessControl);
    }
}
