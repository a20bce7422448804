package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.FakeCoordinatorServer;
import io.tributary.broker.cluster.MetadataFollower;
import io.tributary.common.app.KafkaListenerLifecycle;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A clean stop of the broker application tells the coordinators first (the controlled shutdown:
 * they fence this incarnation at once, so its leaderships move without waiting for the session
 * timeout), while its Kafka listener still accepts connections, and sends no heartbeat after it.
 * The coordinator is {@link FakeCoordinatorServer}, over the real HTTP control plane.
 */
class ControlledShutdownTest {

    private static final int BROKER_ID = 3;

    @TempDir
    Path dir;

    private FakeControlPlane coordinator;
    private FakeCoordinatorServer server;

    @BeforeEach
    void startCoordinator() throws IOException {
        coordinator = new FakeControlPlane();
        server = new FakeCoordinatorServer(coordinator);
    }

    @AfterEach
    void stopCoordinator() {
        server.close();
    }

    private ConfigurableApplicationContext startBroker(String controlledShutdownTimeout) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(BrokerApplication.class)
                .web(WebApplicationType.NONE)
                .run(
                        "--tributary.kafka.port=0",
                        "--tributary.broker.id=" + BROKER_ID,
                        "--tributary.broker.data-dir=" + dir,
                        "--tributary.broker.coordinators=" + server.address(),
                        "--tributary.broker.cluster.heartbeat-interval=100ms",
                        "--tributary.broker.cluster.metadata-max-wait=1s",
                        "--tributary.broker.cluster.controlled-shutdown-timeout=" + controlledShutdownTimeout);
        MetadataFollower follower = context.getBean(MetadataFollower.class);
        await().atMost(Duration.ofSeconds(30)).until(follower::isActive);
        return context;
    }

    @Test
    void aCleanStopFencesThisIncarnationBeforeTheKafkaListenerCloses() throws Exception {
        ConfigurableApplicationContext context = startBroker("5s");
        Uuid incarnation = context.getBean(MetadataFollower.class).incarnationId();
        int kafkaPort = context.getBean(KafkaListenerLifecycle.class).server().port();
        coordinator.createTopic("led", 2, 1, Map.of());
        var listenerAtShutdown = new AtomicReference<String>("no shutdown request");
        coordinator.onShutdown(() -> listenerAtShutdown.set(accepts(kafkaPort) ? "accepting" : "closed"));

        context.close();

        assertThat(coordinator.shutdownOf(BROKER_ID)).contains(incarnation);
        assertThat(coordinator.broker(BROKER_ID).fenced()).isTrue();
        assertThat(listenerAtShutdown.get())
                .as("the Kafka listener when the coordinators heard of the shutdown")
                .isEqualTo("accepting");
        assertThat(accepts(kafkaPort)).as("the listener after the stop").isFalse();
        assertThat(coordinator.heartbeatsAfterShutdown()).isZero();
    }

    @Test
    void aZeroTimeoutTurnsTheControlledShutdownOff() {
        ConfigurableApplicationContext context = startBroker("0s");

        context.close();

        assertThat(coordinator.shutdownOf(BROKER_ID)).isEmpty();
        assertThat(coordinator.broker(BROKER_ID).fenced())
                .as("left to the session timeout")
                .isFalse();
    }

    private static boolean accepts(int port) {
        try (var socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
