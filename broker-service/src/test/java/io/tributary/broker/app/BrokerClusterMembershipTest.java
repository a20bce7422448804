package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterAcls;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.FakeCoordinatorServer;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.cluster.ScramUsers;
import io.tributary.broker.security.ClusterAuthorizer;
import io.tributary.common.app.KafkaListenerLifecycle;
import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.common.testing.ServiceHttp;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A broker process joins the cluster: it registers its bound Kafka port with a coordinator (a fake
 * one over the real HTTP control plane), becomes ready, and follows topic changes.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "tributary.kafka.port=0",
            "tributary.broker.id=4",
            "tributary.broker.rack=rack-a",
            "tributary.broker.data-dir=target/test-data/broker-membership",
            "tributary.broker.cluster.heartbeat-interval=100ms",
            "tributary.broker.cluster.metadata-max-wait=1s"
        })
class BrokerClusterMembershipTest {

    private static FakeControlPlane coordinator;
    private static FakeCoordinatorServer server;

    @LocalServerPort
    int httpPort;

    @Autowired
    KafkaListenerLifecycle kafkaListener;

    @Autowired
    MetadataView metadata;

    @Autowired
    ControlPlane controlPlane;

    @Autowired
    CredentialLookup credentials;

    @Autowired
    ClusterAuthorizer authorizer;

    ServiceHttp http;

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
        http = new ServiceHttp(httpPort);
        await().atMost(Duration.ofSeconds(30)).until(metadata::isActive);
    }

    @Test
    void theBrokerRegistersItsBoundKafkaPortUnderPlaintext() {
        BrokerInfo registered = coordinator.broker(4);

        assertThat(registered.endpoints())
                .containsExactly(new BrokerEndpoint(
                        "PLAINTEXT", "127.0.0.1", kafkaListener.server().port()));
        assertThat(registered.rack()).isEqualTo("rack-a");
        assertThat(registered.fenced()).isFalse();
    }

    @Test
    void readinessIncludesTheRegistrationWithItsDetails() {
        String readiness = http.getJson("/actuator/health/readiness");

        assertThat(JsonPath.<String>read(readiness, "$.status")).isEqualTo("UP");
        assertThat(JsonPath.<String>read(readiness, "$.components.brokerRegistration.status"))
                .isEqualTo("UP");
        assertThat(JsonPath.<Integer>read(readiness, "$.components.brokerRegistration.details.brokerId"))
                .isEqualTo(4);
        assertThat(JsonPath.<String>read(readiness, "$.components.brokerRegistration.details.incarnationId"))
                .isEqualTo(coordinator.broker(4).incarnationId().toString());
        assertThat(JsonPath.<Number>read(readiness, "$.components.brokerRegistration.details.metadataVersion")
                        .longValue())
                .isPositive();
    }

    @Test
    void aTopicCreatedThroughTheControlPlaneIsInTheBrokersImage() throws Exception {
        ControlPlane.TopicWrite created = controlPlane.createTopic("payments", 2, 1, Map.of("retention.ms", "60000"));

        assertThat(metadata.awaitVersion(created.version(), Duration.ofSeconds(10)))
                .isTrue();
        assertThat(metadata.image().topic("payments").orElseThrow().partitions())
                .hasSize(2);

        long deleted = controlPlane.deleteTopic("payments");

        assertThat(metadata.awaitVersion(deleted, Duration.ofSeconds(10))).isTrue();
        assertThat(metadata.image().topic("payments")).isEmpty();
    }

    @Test
    void scramCredentialsStoredByTheCoordinatorsReachTheCredentialLookup() throws Exception {
        var credential = ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_512, "pw", new byte[] {1}, 4096);
        long version = coordinator.scramCredentials(new ScramUsers(Map.of("alice", Map.of(2, credential))));

        assertThat(metadata.awaitVersion(version, Duration.ofSeconds(10))).isTrue();
        assertThat(credentials.scram("SCRAM-SHA-512", "alice")).contains(credential);
        assertThat(credentials.checkPlain("alice", "pw".toCharArray())).isTrue();

        long removed = coordinator.scramCredentials(ScramUsers.EMPTY);

        assertThat(metadata.awaitVersion(removed, Duration.ofSeconds(10))).isTrue();
        assertThat(credentials.scram("SCRAM-SHA-512", "alice")).isEmpty();
    }

    @Test
    void aclsStoredByTheCoordinatorsReachTheAuthorizer() throws Exception {
        var acl = new AclBinding(
                AclResourceType.TOPIC,
                "orders",
                AclPatternType.PREFIXED,
                "User:alice",
                "*",
                AclOperation.READ,
                AclPermission.ALLOW);
        long version = coordinator.acls(new ClusterAcls(List.of(acl)));

        assertThat(metadata.awaitVersion(version, Duration.ofSeconds(10))).isTrue();
        assertThat(authorizer
                        .get()
                        .allowed(
                                KafkaPrincipal.user("alice"),
                                "10.0.0.1",
                                AclOperation.DESCRIBE,
                                AclResourceType.TOPIC,
                                "orders-eu"))
                .isTrue();

        long removed = coordinator.acls(ClusterAcls.EMPTY);

        assertThat(metadata.awaitVersion(removed, Duration.ofSeconds(10))).isTrue();
        assertThat(authorizer
                        .get()
                        .authorize(
                                KafkaPrincipal.user("alice"),
                                "10.0.0.1",
                                AclOperation.READ,
                                AclResourceType.TOPIC,
                                "orders")
                        .reason())
                .isEqualTo(AclAuthorizer.Reason.NO_ACL_FOUND);
    }

    @Test
    void aBrokerWhoseFenceReachesItIsNoLongerReady() {
        coordinator.partitionHeartbeatsOnly(true);
        try {
            coordinator.fence(4);

            await().atMost(Duration.ofSeconds(30)).until(() -> !metadata.isActive());
            var response = http.get("/actuator/health/readiness", "application/json");
            assertThat(response.statusCode()).isEqualTo(503);
            String readiness = response.body();
            assertThat(JsonPath.<String>read(readiness, "$.components.brokerRegistration.status"))
                    .isEqualTo("OUT_OF_SERVICE");
            assertThat(JsonPath.<Boolean>read(readiness, "$.components.brokerRegistration.details.fenced"))
                    .isTrue();
        } finally {
            coordinator.partitionHeartbeatsOnly(false);
        }
        await().atMost(Duration.ofSeconds(30)).until(metadata::isActive);
    }

    @Test
    void theMembershipMetersAreExposed() {
        String exposition = http.prometheus();

        assertThat(exposition)
                .contains("tributary_broker_active{")
                .contains("tributary_broker_metadata_version{")
                .contains("tributary_broker_heartbeat_failures_total{")
                .contains("tributary_broker_metadata_poll_failures_total{")
                .contains("tributary_broker_registration_failures_total{");
        assertThat(exposition).containsPattern("(?m)^tributary_broker_active\\{[^}]*\\} 1\\.0$");
    }
}
