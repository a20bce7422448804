package io.tributary.broker.app;

import static org.awaitility.Awaitility.await;

import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.FakeCoordinatorServer;
import io.tributary.broker.cluster.MetadataFollower;
import io.tributary.common.testing.KafkaServiceEndpointsContract;
import io.tributary.common.testing.ServiceHttp;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A broker as operators see it over HTTP; the checks are {@link KafkaServiceEndpointsContract}'s.
 * Readiness includes the broker's registration, so the broker registers with a fake coordinator.
 * The broker leads one partition of a compacted topic ({@value #COMPACTED_TOPIC}) and its cleaner
 * runs every {@value #CLEANER_BACKOFF}, so the exposition the contract checks (promtool included)
 * has the cleaner's per-partition gauges.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "tributary.kafka.port=0",
            "tributary.broker.data-dir=target/test-data/broker",
            "tributary.broker.log-cleaner.backoff=" + BrokerEndpointsTest.CLEANER_BACKOFF
        })
class BrokerEndpointsTest extends KafkaServiceEndpointsContract {

    static final String COMPACTED_TOPIC = "compacted";

    /** The cleaner's pause between rounds: a round measures every compacted partition. */
    static final String CLEANER_BACKOFF = "100ms";

    /** The compacted partition's dirty-ratio gauge, registered with its other per-partition gauges. */
    private static final Pattern MEASURED =
            Pattern.compile("(?m)^tributary_broker_log_cleaner_dirty_ratio\\{[^}]*topic=\"" + COMPACTED_TOPIC + "\"");

    private static FakeControlPlane controlPlane;
    private static FakeCoordinatorServer coordinator;
    private static boolean compactedTopicCreated;

    @Autowired
    MetadataFollower follower;

    @LocalServerPort
    int port;

    BrokerEndpointsTest() {
        super("broker");
    }

    @DynamicPropertySource
    static void coordinator(DynamicPropertyRegistry registry) throws IOException {
        controlPlane = new FakeControlPlane();
        coordinator = new FakeCoordinatorServer(controlPlane);
        registry.add("tributary.broker.coordinators", coordinator::address);
    }

    @AfterAll
    static void stopCoordinator() {
        coordinator.close();
    }

    /**
     * Waits for the broker's registration; the first time, creates the compacted topic (its one
     * partition led by this broker, the only one) and waits until a cleaner round measured it.
     */
    @BeforeEach
    void awaitRegistrationAndACompactedPartition() {
        await().atMost(Duration.ofSeconds(30)).until(follower::isActive);
        if (!compactedTopicCreated) {
            controlPlane.createTopic(COMPACTED_TOPIC, 1, 1, Map.of("cleanup.policy", "compact"));
            compactedTopicCreated = true;
        }
        ServiceHttp http = new ServiceHttp(port);
        await().atMost(Duration.ofSeconds(30))
                .until(
                        http::prometheus,
                        exposition -> MEASURED.matcher(exposition).find());
    }
}
