package io.tributary.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import io.tributary.broker.cluster.GroupCoordinatorLocator.Lookup;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The cached, bounded lookup of the group coordinator behind FindCoordinator. */
class GroupCoordinatorLocatorTest {

    private static final GroupCoordinator C0 = new GroupCoordinator(0, "c0", 9191);
    private static final GroupCoordinator C1 = new GroupCoordinator(1, "c1", 9192);
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration RETRY = Duration.ofMillis(200);

    private final FakeControlPlane controlPlane = new FakeControlPlane();
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final InstantSource clock = now::get;
    /** A lookup waits long enough for the fake to answer; the wait is never reached in a passing test. */
    private final GroupCoordinatorLocator locator = new GroupCoordinatorLocator(
            controlPlane,
            clock,
            new GroupCoordinatorLocator.Config(Duration.ofSeconds(2), Duration.ofSeconds(30), WAIT, RETRY));

    private final CountDownLatch release = new CountDownLatch(1);

    /** The locator of the race test, which its clock needs to reach. */
    private GroupCoordinatorLocator racing;

    @AfterEach
    void releaseBlockedLookups() {
        release.countDown();
    }

    private void advance(Duration d) {
        now.set(now.get().plus(d));
    }

    @Test
    void theFirstLookupAsksTheControlPlaneAndLaterOnesWithinTheRefreshIntervalDoNot() {
        controlPlane.groupCoordinator(Optional.of(C0));
        assertThat(locator.lookup()).isEqualTo(new Lookup.Found(C0));
        advance(Duration.ofMillis(1999));
        assertThat(locator.lookup()).isEqualTo(new Lookup.Found(C0));
        assertThat(controlPlane.groupCoordinatorLookups()).isEqualTo(1);
    }

    @Test
    void anOlderAnswerIsServedWhileARefreshRunsAndTheNewLeaderIsSeenAfterIt() {
        controlPlane.groupCoordinator(Optional.of(C0));
        locator.lookup();
        controlPlane.groupCoordinator(Optional.of(C1));
        advance(Duration.ofSeconds(3));
        assertThat(locator.lookup()).as("served stale, refresh started").isEqualTo(new Lookup.Found(C0));
        await().atMost(WAIT).until(() -> controlPlane.groupCoordinatorLookups() == 2);
        await().atMost(WAIT).until(() -> locator.lookup().equals(new Lookup.Found(C1)));
    }

    /**
     * A caller waiting for a lookup gets that lookup's answer even when another connection's
     * {@link GroupCoordinatorLocator#invalidate()} (a forward that failed during a coordinator
     * failover) takes the lock between the lookup's end and the caller's wake-up. The clock the
     * lookup reads under the lock holds it until the invalidating thread is queued on it, so the
     * invalidation runs first, every time. (It was a NullPointerException, which the broker answered
     * UNKNOWN_SERVER_ERROR, and a KIP-848 consumer fails for good on that heartbeat answer: seen by
     * MultiBrokerIT's group coordinator failover.)
     */
    @Test
    void aWaitingCallerGetsTheLookupsAnswerEvenIfAnInvalidationCameFirst() throws Exception {
        controlPlane.groupCoordinator(Optional.of(C0));
        Thread[] invalidator = new Thread[1];
        InstantSource racingClock = () -> {
            if (Thread.currentThread().getName().equals("group-coordinator-lookup") && invalidator[0] == null) {
                invalidator[0] = new Thread(() -> racing.invalidate(), "invalidator");
                invalidator[0].start();
                await().atMost(WAIT).until(() -> invalidator[0].getState() == Thread.State.WAITING);
            }
            return now.get();
        };
        racing = new GroupCoordinatorLocator(
                controlPlane,
                racingClock,
                new GroupCoordinatorLocator.Config(Duration.ofSeconds(2), Duration.ofSeconds(30), WAIT, RETRY));

        assertThat(racing.lookup()).isEqualTo(new Lookup.Found(C0));
        invalidator[0].join(WAIT.toMillis());
        assertThat(invalidator[0].isAlive()).as("the invalidation ran").isFalse();
    }

    @Test
    void anAnswerPastItsMaximumAgeIsNotServed() {
        controlPlane.groupCoordinator(Optional.of(C0));
        locator.lookup();
        controlPlane.groupCoordinator(Optional.empty());
        advance(Duration.ofSeconds(31));
        assertThat(locator.lookup()).isInstanceOf(Lookup.NotAvailable.class);
    }

    @Test
    void noLeaderAndAnUnreachableControlPlaneAreNotAvailableAndRememberedForTheRetryInterval() {
        assertThat(locator.lookup())
                .isInstanceOfSatisfying(
                        Lookup.NotAvailable.class, n -> assertThat(n.reason()).contains("no leader"));
        controlPlane.partition(true);
        advance(RETRY.minusMillis(1));
        locator.lookup();
        assertThat(controlPlane.groupCoordinatorLookups()).as("remembered").isEqualTo(1);
        advance(Duration.ofMillis(1));
        assertThat(locator.lookup())
                .isInstanceOfSatisfying(
                        Lookup.NotAvailable.class, n -> assertThat(n.reason()).contains("cannot be reached"));
        locator.lookup();
        assertThat(controlPlane.groupCoordinatorLookups()).isEqualTo(2);
    }

    /**
     * After a coordinator failover the lookup made during the election fails; the new leader is
     * found one retry interval later, not a refresh interval (which held members' commits back 2 s).
     */
    @Test
    void theLeaderElectedAfterAFailedLookupIsFoundOneRetryIntervalLater() {
        assertThat(locator.lookup()).isInstanceOf(Lookup.NotAvailable.class);
        controlPlane.groupCoordinator(Optional.of(C1));
        advance(RETRY);
        assertThat(locator.lookup()).isEqualTo(new Lookup.Found(C1));
        advance(RETRY);
        assertThat(locator.lookup())
                .as("a found coordinator keeps the refresh interval")
                .isEqualTo(new Lookup.Found(C1));
        assertThat(controlPlane.groupCoordinatorLookups()).isEqualTo(2);
    }

    @Test
    void aRequestWaitsNoLongerThanItsBoundForALookupThatHangs() throws Exception {
        ControlPlane hanging = new ControlPlane() {
            @Override
            public Optional<GroupCoordinator> groupCoordinator() {
                try {
                    release.await(1, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Optional.of(C0);
            }

            // the rest is not called
            @Override
            public long register(
                    int brokerId,
                    org.apache.kafka.common.Uuid incarnationId,
                    String rack,
                    java.util.List<BrokerEndpoint> endpoints) {
                throw new UnsupportedOperationException();
            }

            @Override
            public long heartbeat(int brokerId, org.apache.kafka.common.Uuid incarnationId) {
                throw new UnsupportedOperationException();
            }

            @Override
            public long shutdown(int brokerId, org.apache.kafka.common.Uuid incarnationId, Duration timeout) {
                throw new UnsupportedOperationException();
            }

            @Override
            public MetadataDelta fetchMetadata(java.util.OptionalLong after, Duration maxWait) {
                throw new UnsupportedOperationException();
            }

            @Override
            public TopicWrite createTopic(
                    String name, int partitions, int replicationFactor, java.util.Map<String, String> configs) {
                throw new UnsupportedOperationException();
            }

            @Override
            public long deleteTopic(String name) {
                throw new UnsupportedOperationException();
            }

            @Override
            public TopicWrite alterConfigs(
                    String topic, java.util.Map<String, String> set, java.util.Collection<String> remove) {
                throw new UnsupportedOperationException();
            }

            @Override
            public TopicWrite createPartitions(String topic, int totalCount) {
                throw new UnsupportedOperationException();
            }

            @Override
            public ProducerIdBlock allocateProducerIds(int brokerId, int count) {
                throw new UnsupportedOperationException();
            }

            @Override
            public PartitionWrite alterPartition(
                    String topic,
                    int partition,
                    int leaderId,
                    int leaderEpoch,
                    int partitionEpoch,
                    java.util.List<Integer> isr) {
                throw new UnsupportedOperationException();
            }
        };
        GroupCoordinatorLocator bounded = new GroupCoordinatorLocator(
                hanging,
                clock,
                new GroupCoordinatorLocator.Config(
                        Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ZERO, RETRY));

        assertThat(bounded.lookup())
                .isInstanceOfSatisfying(
                        Lookup.NotAvailable.class, n -> assertThat(n.reason()).contains("within 0 ms"));
        release.countDown();
        await().atMost(WAIT).until(() -> bounded.lookup().equals(new Lookup.Found(C0)));
    }
}
