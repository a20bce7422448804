package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.cluster.ClusterAcls;
import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.FakeCoordinatorServer;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.app.KafkaListenerLifecycle;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A broker process with the authorizer on ({@code tributary.broker.authorizer.enabled}, no super
 * user): its internal listener's clients ({@code User:ANONYMOUS}) are checked against the ACLs the
 * coordinators store, before the handler (DescribeAcls needs cluster DESCRIBE) and in it.
 */
@SpringBootTest(
        properties = {
            "tributary.kafka.port=0",
            "tributary.broker.id=5",
            "tributary.broker.data-dir=target/test-data/broker-authorizer",
            "tributary.broker.cluster.heartbeat-interval=100ms",
            "tributary.broker.cluster.metadata-max-wait=1s",
            "tributary.broker.authorizer.enabled=true",
            "tributary.broker.super.users=User:admin"
        })
class BrokerAuthorizerTest {

    private static FakeControlPlane coordinator;
    private static FakeCoordinatorServer server;

    @Autowired
    KafkaListenerLifecycle kafkaListener;

    @Autowired
    MetadataView metadata;

    @DynamicPropertySource
    static void coordinator(DynamicPropertyRegistry registry) throws IOException {
        coordinator = new FakeControlPlane();
        server = new FakeCoordinatorServer(coordinator);
        registry.add("tributary.broker.coordinators", server::address);
    }

    @AfterAll
    static void stopCoordinator() {
        server.close();
    }

    @BeforeEach
    void awaitRegistration() {
        await().atMost(Duration.ofSeconds(30)).until(metadata::isActive);
    }

    private Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + kafkaListener.server().port(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                "20000",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                "10000"));
    }

    @Test
    void anAnonymousClientNeedsClusterDescribeToDescribeAclsAndGetsItOnceAnAclAllowsIt() throws Exception {
        try (Admin admin = admin()) {
            assertThatThrownBy(() ->
                            admin.describeAcls(AclBindingFilter.ANY).values().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);

            long version = coordinator.acls(new ClusterAcls(List.of(new AclBinding(
                    AclResourceType.CLUSTER,
                    AclResourceType.CLUSTER_NAME,
                    AclPatternType.LITERAL,
                    "User:ANONYMOUS",
                    "*",
                    AclOperation.DESCRIBE,
                    AclPermission.ALLOW))));
            assertThat(metadata.awaitVersion(version, Duration.ofSeconds(10))).isTrue();

            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get(20, TimeUnit.SECONDS))
                    .singleElement()
                    .satisfies(acl -> assertThat(acl.entry().principal()).isEqualTo("User:ANONYMOUS"));
        }
    }
}
