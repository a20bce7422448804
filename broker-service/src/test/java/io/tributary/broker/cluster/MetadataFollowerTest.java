package io.tributary.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The broker's membership and metadata following, against an in-memory coordinator. */
class MetadataFollowerTest {

    private static final int BROKER_ID = 1;
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(6);
    private static final List<BrokerEndpoint> ENDPOINTS = List.of(new BrokerEndpoint("PLAINTEXT", "127.0.0.1", 19092));

    private final FakeControlPlane coordinator = new FakeControlPlane();
    private final ManualClock clock = new ManualClock();
    private final List<long[]> notified = new CopyOnWriteArrayList<>();
    private final MetadataListener recorder =
            (previous, next) -> notified.add(new long[] {previous.version(), next.version()});
    private MetadataFollower follower;

    @AfterEach
    void stop() {
        if (follower != null) {
            follower.close();
        }
    }

    @Test
    void registersWithItsEndpointsAndBecomesActiveOnceAHeartbeatUnfencesIt() {
        follower = start();

        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);
        BrokerInfo registered = coordinator.broker(BROKER_ID);
        assertThat(registered.incarnationId()).isEqualTo(follower.incarnationId());
        assertThat(registered.endpoints()).isEqualTo(ENDPOINTS);
        assertThat(registered.rack()).isEqualTo("r1");
        assertThat(follower.image().broker(BROKER_ID).orElseThrow().fenced()).isFalse();
        assertThat(follower.status().registered()).isTrue();
    }

    @Test
    void registrationIsRetriedUntilACoordinatorAnswers() {
        coordinator.partition(true);
        follower = start();
        await().atMost(Duration.ofSeconds(10)).until(() -> follower.registrationFailures() >= 2);
        assertThat(follower.isActive()).isFalse();

        coordinator.partition(false);

        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);
    }

    @Test
    void aCreatedTopicIsInTheImageOnceAwaitVersionReturnsAndADeletedOneIsGone() throws Exception {
        follower = start();
        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);

        ControlPlane.TopicWrite created = coordinator.createTopic("orders", 3, 1, Map.of("retention.ms", "1000"));
        assertThat(follower.awaitVersion(created.version(), Duration.ofSeconds(10)))
                .isTrue();
        TopicInfo topic = follower.image().topic("orders").orElseThrow();
        assertThat(topic.id()).isEqualTo(created.topic().id());
        assertThat(topic.partitions()).hasSize(3);
        assertThat(topic.partition(0).orElseThrow().leader()).isEqualTo(BROKER_ID);

        long deleted = coordinator.deleteTopic("orders");
        assertThat(follower.awaitVersion(deleted, Duration.ofSeconds(10))).isTrue();
        assertThat(follower.image().topic("orders")).isEmpty();
        assertThat(follower.image().version()).isGreaterThanOrEqualTo(deleted);
    }

    @Test
    void listenersSeeEveryImageInVersionOrderBeforeWaitersWake() throws Exception {
        follower = start();
        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);
        long last = 0;
        for (int i = 0; i < 5; i++) {
            last = coordinator.createTopic("t" + i, 1, 1, Map.of()).version();
        }

        assertThat(follower.awaitVersion(last, Duration.ofSeconds(10))).isTrue();

        assertThat(notified).isNotEmpty();
        assertThat(notified.getLast()[1]).isGreaterThanOrEqualTo(last);
        for (int i = 0; i < notified.size(); i++) {
            long[] step = notified.get(i);
            assertThat(step[1]).as("step %d goes forward", i).isGreaterThan(step[0]);
            if (i > 0) {
                assertThat(step[0])
                        .as("step %d starts where %d ended", i, i - 1)
                        .isEqualTo(notified.get(i - 1)[1]);
            }
        }
    }

    @Test
    void awaitVersionGivesUpAfterItsTimeout() throws Exception {
        follower = start();

        assertThat(follower.awaitVersion(1_000_000, Duration.ofMillis(50))).isFalse();
    }

    @Test
    void aFenceSeenInTheImageMakesTheBrokerInactive() {
        follower = start();
        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);

        // heartbeats fail (they would unfence it), the metadata poll still answers
        coordinator.partitionHeartbeatsOnly(true);
        coordinator.fence(BROKER_ID);

        await().atMost(Duration.ofSeconds(10)).until(() -> !follower.isActive());
        assertThat(follower.image().broker(BROKER_ID).orElseThrow().fenced()).isTrue();
        assertThat(follower.status().fenced()).isTrue();

        coordinator.partitionHeartbeatsOnly(false);

        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);
    }

    @Test
    void aBrokerCutOffFromTheCoordinatorsStopsBeingActiveAfterTheSessionTimeout() {
        follower = start();
        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);

        coordinator.partition(true);
        int failures = (int) follower.heartbeatFailures();
        await().atMost(Duration.ofSeconds(10)).until(() -> follower.heartbeatFailures() > failures);
        clock.advance(SESSION_TIMEOUT.minusMillis(1));
        assertThat(follower.isActive()).as("within the session timeout").isTrue();

        clock.advance(Duration.ofMillis(1));

        assertThat(follower.isActive()).as("the session timeout passed").isFalse();
        assertThat(follower.image().broker(BROKER_ID).orElseThrow().fenced())
                .as("it cannot have heard of a fence")
                .isFalse();
    }

    @Test
    void aBrokerTheCoordinatorsForgotRegistersAgainWithTheSameIncarnation() throws Exception {
        follower = start();
        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);
        long created = 0;
        for (int i = 0; i < 5; i++) {
            created = coordinator.createTopic("t" + i, 1, 1, Map.of()).version();
        }
        assertThat(follower.awaitVersion(created, Duration.ofSeconds(10))).isTrue();

        coordinator.startOver();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> coordinator.registrations() >= 2
                        && coordinator.broker(BROKER_ID) != null
                        && follower.image().topics().isEmpty()
                        && follower.isActive());
        assertThat(coordinator.broker(BROKER_ID).incarnationId()).isEqualTo(follower.incarnationId());
        assertThat(follower.image().version())
                .as("the image was replaced whole by the coordinators' new one, at a lower version")
                .isLessThan(created);
    }

    @Test
    void aStaleIncarnationRegistersAgain() {
        follower = start();
        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);

        // another process registered broker 1 (a misconfiguration): this one's heartbeats are stale
        coordinator.register(BROKER_ID, org.apache.kafka.common.Uuid.randomUuid(), null, ENDPOINTS);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> coordinator.broker(BROKER_ID).incarnationId().equals(follower.incarnationId())
                        && follower.isActive());
    }

    @Test
    void closeEndsTheLoopsAndTheirCallsInFlight() {
        follower = start();
        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);

        follower.close();

        assertThat(coordinator.callsInFlight()).isZero();
        assertThat(follower.isActive()).isFalse();
    }

    @Test
    void aControlledShutdownStopsHeartbeatingThenHasTheCoordinatorsFenceThisIncarnation() throws Exception {
        follower = start();
        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);
        coordinator.createTopic("before", 1, 1, Map.of());
        var heartbeatsAtTheShutdown = new java.util.concurrent.atomic.AtomicInteger(-1);
        coordinator.onShutdown(() -> heartbeatsAtTheShutdown.set(coordinator.heartbeats()));

        boolean fenced = follower.controlledShutdown(Duration.ofSeconds(10));

        assertThat(fenced).isTrue();
        assertThat(coordinator.shutdownOf(BROKER_ID)).contains(follower.incarnationId());
        assertThat(coordinator.broker(BROKER_ID).fenced()).isTrue();
        assertThat(follower.image().broker(BROKER_ID).orElseThrow().fenced())
                .as("the fence is in this broker's image when the call returns")
                .isTrue();
        assertThat(follower.isActive()).isFalse();
        // Heartbeats every 20 ms: had the membership thread gone on, more would have arrived by now.
        Thread.sleep(200);
        assertThat(coordinator.heartbeats())
                .as("no heartbeat after the shutdown request")
                .isEqualTo(heartbeatsAtTheShutdown.get());
        assertThat(coordinator.heartbeatsAfterShutdown()).isZero();

        long deleted = coordinator.deleteTopic("before");
        assertThat(follower.awaitVersion(deleted, Duration.ofSeconds(10)))
                .as("the metadata thread goes on until close")
                .isTrue();
        assertThat(follower.controlledShutdown(Duration.ofSeconds(1)))
                .as("only once")
                .isFalse();
    }

    @Test
    void aControlledShutdownThatReachesNoCoordinatorFailsAndFencesNothing() {
        follower = start();
        await().atMost(Duration.ofSeconds(10)).until(follower::isActive);
        coordinator.partition(true);

        assertThat(follower.controlledShutdown(Duration.ofMillis(300))).isFalse();

        assertThat(coordinator.shutdownOf(BROKER_ID)).isEmpty();
    }

    @Test
    void aBrokerThatNeverRegisteredHasNothingToHandOver() {
        coordinator.partition(true);
        follower = start();

        assertThat(follower.controlledShutdown(Duration.ofSeconds(5))).isFalse();

        coordinator.partition(false);
        assertThat(coordinator.shutdownOf(BROKER_ID)).isEmpty();
    }

    private MetadataFollower start() {
        var config = new MetadataFollower.Config(
                BROKER_ID,
                Optional.of("r1"),
                Duration.ofMillis(20),
                SESSION_TIMEOUT,
                Duration.ofMillis(500),
                Duration.ofMillis(20),
                Duration.ofSeconds(10));
        MetadataFollower f = new MetadataFollower(config, coordinator, () -> List.of(recorder), clock);
        f.start(ENDPOINTS);
        return f;
    }

    /** A clock tests move by hand. */
    static final class ManualClock implements InstantSource {
        private volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }
    }
}
