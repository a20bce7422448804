package io.tributary.broker.app;

import static org.awaitility.Awaitility.await;

import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.FakeCoordinatorServer;
import io.tributary.broker.cluster.MetadataFollower;
import io.tributary.common.testing.KafkaServiceEndpointsContract;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A broker as operators see it over HTTP; the checks are {@link KafkaServiceEndpointsContract}'s.
 * Readiness includes the broker's registration, so the broker registers with a fake coordinator.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"tributary.kafka.port=0", "tributary.broker.data-dir=target/test-data/broker"})
class BrokerEndpointsTest extends KafkaServiceEndpointsContract {

    private static FakeCoordinatorServer coordinator;

    @Autowired
    MetadataFollower follower;

    BrokerEndpointsTest() {
        super("broker");
    }

    @DynamicPropertySource
    static void coordinator(DynamicPropertyRegistry registry) throws IOException {
        coordinator = new FakeCoordinatorServer(new FakeControlPlane());
        registry.add("tributary.broker.coordinators", coordinator::address);
    }

    @AfterAll
    static void stopCoordinator() {
        coordinator.close();
    }

    @BeforeEach
    void awaitRegistration() {
        await().atMost(Duration.ofSeconds(30)).until(follower::isActive);
    }
}
