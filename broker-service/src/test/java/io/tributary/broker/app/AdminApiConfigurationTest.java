package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import io.tributary.broker.api.AdminApiConfig;
import io.tributary.broker.api.GroupForwardingHandler;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.CoordinatorGroupsClient;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.TopicConfigDefaults;
import io.tributary.broker.quota.ControllerMutationQuota;
import io.tributary.common.app.KafkaListenerLifecycle;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.internal.InternalClientSecurity;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The admin APIs' wiring: one handler per API, configured and validated from properties. */
class AdminApiConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(AdminApiConfiguration.class, AccessControlConfiguration.class)
            .withBean(MetadataView.class, () -> mock(MetadataView.class))
            .withBean(ControlPlane.class, () -> mock(ControlPlane.class))
            .withBean(ControllerMutationQuota.class, ControllerMutationQuota::unlimited)
            .withBean(InternalClientSecurity.class, () -> InternalClientSecurity.PLAINTEXT);

    private ApplicationContextRunner withKafkaDefaults() {
        return runner.withBean(TopicConfigDefaults.class, TopicConfigDefaults::kafka);
    }

    @Test
    void oneHandlerPerAdminApi() {
        withKafkaDefaults()
                .run(context -> assertThat(
                                context.getBeansOfType(RequestHandler.class).values())
                        .extracting(h -> h.versions().apiKey())
                        .containsExactlyInAnyOrder(
                                ApiKeys.METADATA,
                                ApiKeys.DESCRIBE_CLUSTER,
                                ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
                                ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS,
                                ApiKeys.DESCRIBE_ACLS,
                                ApiKeys.CREATE_ACLS,
                                ApiKeys.DELETE_ACLS,
                                ApiKeys.ALTER_CLIENT_QUOTAS,
                                ApiKeys.DESCRIBE_CLIENT_QUOTAS,
                                ApiKeys.CREATE_DELEGATION_TOKEN,
                                ApiKeys.RENEW_DELEGATION_TOKEN,
                                ApiKeys.EXPIRE_DELEGATION_TOKEN,
                                ApiKeys.DESCRIBE_DELEGATION_TOKEN,
                                ApiKeys.CREATE_TOPICS,
                                ApiKeys.DELETE_TOPICS,
                                ApiKeys.CREATE_PARTITIONS,
                                ApiKeys.DESCRIBE_CONFIGS,
                                ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                                ApiKeys.ALTER_CONFIGS,
                                ApiKeys.FIND_COORDINATOR,
                                ApiKeys.LIST_GROUPS,
                                ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                                ApiKeys.CONSUMER_GROUP_DESCRIBE,
                                ApiKeys.OFFSET_COMMIT,
                                ApiKeys.OFFSET_FETCH,
                                ApiKeys.DESCRIBE_GROUPS,
                                ApiKeys.DELETE_GROUPS,
                                ApiKeys.OFFSET_DELETE,
                                ApiKeys.JOIN_GROUP,
                                ApiKeys.SYNC_GROUP,
                                ApiKeys.HEARTBEAT,
                                ApiKeys.LEAVE_GROUP,
                                ApiKeys.STREAMS_GROUP_HEARTBEAT,
                                ApiKeys.STREAMS_GROUP_DESCRIBE,
                                ApiKeys.INIT_PRODUCER_ID));
    }

    @Test
    void everyForwardedGroupApiIsAHandlerAtItsForwardedVersions() {
        withKafkaDefaults()
                .run(context -> assertThat(context.getBeansOfType(GroupForwardingHandler.class)
                                .values())
                        .extracting(GroupForwardingHandler::versions)
                        .containsExactlyInAnyOrderElementsOf(GroupForwardingHandler.FORWARDED));
    }

    @Test
    void theGroupCoordinatorClientsBoundsComeFromTheClusterProperties() {
        withKafkaDefaults()
                .withPropertyValues(
                        "tributary.broker.cluster.group-coordinator-connect-timeout=3s",
                        "tributary.broker.cluster.group-coordinator-request-timeout=7s",
                        "tributary.broker.cluster.group-coordinator-max-rebalance-wait=20m",
                        "tributary.broker.cluster.max-response-size=2MB")
                .run(context -> assertThat(
                                context.getBean(CoordinatorGroupsClient.class).config())
                        .isEqualTo(new CoordinatorGroupsClient.Config(
                                Duration.ofSeconds(3), Duration.ofSeconds(7), 2 << 20, Duration.ofMinutes(20))));
        withKafkaDefaults()
                .run(context -> assertThat(context.getBean(CoordinatorGroupsClient.class)
                                .config()
                                .maxRebalanceWait())
                        .as("the coordinators' default max-rebalance-timeout")
                        .isEqualTo(Duration.ofMinutes(15)));
        for (String bad : new String[] {
            "tributary.broker.cluster.group-coordinator-max-rebalance-wait=0s",
            "tributary.broker.cluster.group-coordinator-max-rebalance-wait=25h"
        }) {
            startupFailsNaming(bad, "group-coordinator-max-rebalance-wait");
        }
    }

    private void startupFailsNaming(String bad, String name) {
        withKafkaDefaults()
                .withPropertyValues(bad)
                .run(context ->
                        assertThat(context).as(bad).hasFailed().getFailure().hasStackTraceContaining(name));
    }

    @Test
    void propertiesBecomeTheCoreConfig() {
        withKafkaDefaults()
                .withPropertyValues(
                        "tributary.broker.admin.cluster-id=prod-1",
                        "tributary.broker.admin.default-partitions=6",
                        "tributary.broker.admin.default-replication-factor=3",
                        "tributary.broker.admin.auto-create-topics=true",
                        "tributary.broker.admin.producer-id-block-size=5000",
                        "tributary.broker.admin.max-metadata-wait=30s")
                .run(context -> assertThat(context.getBean(AdminApiConfig.class))
                        .isEqualTo(new AdminApiConfig(
                                "prod-1",
                                6,
                                (short) 3,
                                AdminApiConfig.AutoCreateTopics.ENABLED,
                                5000,
                                Duration.ofSeconds(30),
                                TopicConfigDefaults.kafka())));
    }

    @Test
    void theApplicationsTopicConfigDefaultsAreUsed() {
        TopicConfigDefaults own = TopicConfigDefaults.of(LogConfig.defaults().withRetentionTime(Optional.empty()), 2);
        runner.withBean(TopicConfigDefaults.class, () -> own)
                .run(context -> assertThat(context.getBean(AdminApiConfig.class).topicDefaults())
                        .isEqualTo(own));
    }

    @Test
    void theDefaultsAreTheCoreDefaults() {
        withKafkaDefaults()
                .run(context ->
                        assertThat(context.getBean(AdminApiConfig.class)).isEqualTo(AdminApiConfig.defaults()));
    }

    @Test
    void invalidValuesStopStartupNamingTheProperty() {
        for (String bad : new String[] {
            "tributary.broker.admin.default-partitions=0",
            "tributary.broker.admin.default-replication-factor=40000",
            "tributary.broker.admin.producer-id-block-size=0",
            "tributary.broker.admin.cluster-id= ",
            "tributary.broker.admin.max-metadata-wait=1h"
        }) {
            String key = bad.substring(0, bad.indexOf('='));
            startupFailsNaming(bad, key.substring("tributary.broker.admin.".length()));
        }
    }

    @Test
    void theBrokerAdvertisesTheAdminApisAndReportsItsOwnLogDefaults() {
        try (var context = new SpringApplicationBuilder(BrokerApplication.class)
                .web(WebApplicationType.NONE)
                .run(
                        "--tributary.kafka.port=0",
                        "--tributary.broker.data-dir=target/test-data/admin-api-configuration",
                        // No coordinator in this test: port 1 refuses, so the broker never registers.
                        "--tributary.broker.coordinators=127.0.0.1:1",
                        "--tributary.broker.log.min-insync-replicas=2")) {
            assertThat(context.getBean(KafkaListenerLifecycle.class).server().advertisedVersions())
                    .extracting(ApiVersionRange::apiKey)
                    .contains(
                            ApiKeys.METADATA,
                            ApiKeys.CREATE_TOPICS,
                            ApiKeys.INIT_PRODUCER_ID,
                            ApiKeys.JOIN_GROUP,
                            ApiKeys.SYNC_GROUP,
                            ApiKeys.HEARTBEAT,
                            ApiKeys.LEAVE_GROUP);
            assertThat(context.getBean(KafkaListenerLifecycle.class).server().advertisedVersions())
                    .as("ApiVersions advertises every forwarded group API at its forwarded versions")
                    .containsAll(GroupForwardingHandler.FORWARDED);
            assertThat(context.getBean(AdminApiConfig.class).topicDefaults())
                    .isEqualTo(TopicConfigDefaults.of(LogConfig.defaults(), 2));
        }
    }
}
