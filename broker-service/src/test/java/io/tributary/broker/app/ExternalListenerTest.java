package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.app.ExternalListenerConfiguration.ExternalKafkaListener;
import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.FakeCoordinatorServer;
import io.tributary.broker.cluster.MetadataFollower;
import io.tributary.common.app.KafkaListenerLifecycle;
import io.tributary.common.testing.KafkaTestConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A broker process with both Kafka listeners ({@code tributary.kafka.*} and {@code
 * tributary.broker.external-listener.*}), driven by kafka-clients' own producer, consumer and
 * AdminClient: it registers both endpoints with the coordinator ({@link FakeCoordinatorServer}, over
 * the real HTTP control plane), and a client that bootstraps from one listener is told only that
 * listener's addresses, for this broker and for the others of the cluster (broker 5 has both
 * listeners, broker 6 only the internal one; both are registrations made here, with no process
 * behind them), and produces and consumes through it. Both listeners bind 127.0.0.1; the
 * addresses tell them apart by port, and the other brokers' by host name.
 */
class ExternalListenerTest {

    private static final int BROKER_ID = 0;
    private static final String TOPIC = "outside";

    @TempDir
    static Path dir;

    private static FakeControlPlane coordinator;
    private static FakeCoordinatorServer server;
    private static ConfigurableApplicationContext broker;
    private static int internalPort;
    private static int externalPort;

    @BeforeAll
    static void startBrokerWithBothListeners() throws Exception {
        coordinator = new FakeControlPlane();
        server = new FakeCoordinatorServer(coordinator);
        broker = ListenerClients.startBroker(
                server,
                BROKER_ID,
                dir,
                "--tributary.kafka.port=0",
                "--tributary.broker.external-listener.enabled=true",
                "--tributary.broker.external-listener.port=0",
                "--tributary.broker.external-listener.max-connections=50");
        MetadataFollower follower = broker.getBean(MetadataFollower.class);
        await().atMost(Duration.ofSeconds(30)).until(follower::isActive);
        internalPort = broker.getBean(KafkaListenerLifecycle.class).server().port();
        externalPort = broker.getBean(ExternalKafkaListener.class).server().port();

        // The topic first, while this broker is the only one alive: its one partition is here.
        long created = coordinator.createTopic(TOPIC, 1, 1, Map.of()).version();
        long others = 0;
        for (var other : List.of(
                List.of(
                        new BrokerEndpoint("PLAINTEXT", "broker-5.internal.example", 9092),
                        new BrokerEndpoint("EXTERNAL", "kafka.example.com", 31005)),
                List.of(new BrokerEndpoint("PLAINTEXT", "broker-6.internal.example", 9092)))) {
            int id = other.size() == 2 ? 5 : 6;
            Uuid incarnation = Uuid.randomUuid();
            coordinator.register(id, incarnation, null, other);
            others = coordinator.heartbeat(id, incarnation);
        }
        long version = Math.max(created, others);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> follower.image().version() >= version
                        && follower.image().brokers().size() == 3
                        && !follower.image().broker(6).orElseThrow().fenced());
        coordinator.groupCoordinator(Optional.of(new GroupCoordinator(0, "127.0.0.1", 1)));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theBrokerRegistersTheAdvertisedAddressOfEachListener() {
        assertThat(coordinator.broker(BROKER_ID).endpoints())
                .containsExactly(
                        new BrokerEndpoint("PLAINTEXT", "127.0.0.1", internalPort),
                        new BrokerEndpoint("EXTERNAL", "127.0.0.1", externalPort));
    }

    @Test
    void aClientOfTheExternalListenerIsToldOnlyExternalAddressesAndProducesAndConsumesThroughIt() throws Exception {
        String bootstrap = "127.0.0.1:" + externalPort;

        try (Admin admin = Admin.create(adminConfig(bootstrap))) {
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .as("broker 6 has no external listener: left out")
                    .containsExactlyInAnyOrder(
                            new Node(BROKER_ID, "127.0.0.1", externalPort), new Node(5, "kafka.example.com", 31005));
        }
        assertThat(produceAndConsume(bootstrap, "from outside")).containsExactly("from outside-0", "from outside-1");
    }

    @Test
    void aClientOfTheInternalListenerIsToldOnlyInternalAddressesAndProducesAndConsumesThroughIt() throws Exception {
        String bootstrap = "127.0.0.1:" + internalPort;

        try (Admin admin = Admin.create(adminConfig(bootstrap))) {
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .containsExactlyInAnyOrder(
                            new Node(BROKER_ID, "127.0.0.1", internalPort),
                            new Node(5, "broker-5.internal.example", 9092),
                            new Node(6, "broker-6.internal.example", 9092));
        }
        assertThat(produceAndConsume(bootstrap, "from inside")).containsExactly("from inside-0", "from inside-1");
    }

    @Test
    void findCoordinatorOnTheExternalListenerAnswersThisBrokersExternalAddress() throws Exception {
        var request = new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                        .setKeyType(CoordinatorType.GROUP.id())
                        .setCoordinatorKeys(List.of("g")))
                .build((short) 4);
        for (int port : List.of(externalPort, internalPort)) {
            try (var connection = KafkaTestConnection.open(port)) {
                FindCoordinatorResponse response = connection.roundTrip(request, FindCoordinatorResponse.class);

                assertThat(response.data().coordinators()).singleElement().satisfies(c -> {
                    assertThat(c.errorCode()).isEqualTo(Errors.NONE.code());
                    assertThat(c.nodeId()).isEqualTo(BROKER_ID);
                    assertThat(c.host()).isEqualTo("127.0.0.1");
                    assertThat(c.port()).as("the port of the listener asked").isEqualTo(port);
                });
            }
        }
    }

    private static List<String> produceAndConsume(String bootstrap, String prefix) throws Exception {
        Properties client = new Properties();
        client.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return ListenerClients.produceAndConsume(client, TOPIC, prefix, node(bootstrap));
    }

    private static Node node(String bootstrap) {
        int colon = bootstrap.lastIndexOf(':');
        return new Node(BROKER_ID, bootstrap.substring(0, colon), Integer.parseInt(bootstrap.substring(colon + 1)));
    }

    private static Map<String, Object> adminConfig(String bootstrap) {
        return Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                30_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                10_000);
    }
}
