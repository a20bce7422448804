package io.tributary.coordinator.liveness;

import static io.tributary.coordinator.metadata.Fixtures.createTopic;
import static io.tributary.coordinator.metadata.Fixtures.incarnation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataCommand.ElectLeaders;
import io.tributary.coordinator.metadata.MetadataCommand.ElectionType;
import io.tributary.coordinator.metadata.MetadataCommand.FenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.StaleEpochException;
import io.tributary.coordinator.metadata.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BrokerLivenessTest {

    private final MutableClock clock = new MutableClock();
    private final BrokerLiveness liveness = new BrokerLiveness(LivenessConfig.DEFAULTS, clock);
    private final MetadataImage image = Fixtures.liveBrokers(2, 1);

    @Test
    void aBrokerHeardFromWithinTheSessionTimeoutStaysUnfenced() {
        liveness.tick(image);
        clock.advance(Duration.ofSeconds(5));
        liveness.heartbeat(image, 0, incarnation(0, 0));
        liveness.heartbeat(image, 1, incarnation(1, 0));
        clock.advance(Duration.ofSeconds(5));
        assertThat(liveness.tick(image)).isEmpty();
    }

    @Test
    void aBrokerSilentForLongerThanTheSessionTimeoutIsFencedWithItsIncarnation() {
        liveness.tick(image);
        clock.advance(Duration.ofSeconds(6));
        liveness.heartbeat(image, 1, incarnation(1, 0));
        assertThat(liveness.tick(image))
                .as("exactly the timeout is not past it")
                .isEmpty();
        clock.advance(Duration.ofMillis(1));
        assertThat(liveness.tick(image)).containsExactly(new FenceBroker(0, incarnation(0, 0)));
    }

    @Test
    void aHeartbeatFromAFencedBrokerUnfencesIt() {
        MetadataImage fenced = image.apply(new FenceBroker(0, incarnation(0, 0)));
        assertThat(liveness.heartbeat(fenced, 0, incarnation(0, 0))).contains(new UnfenceBroker(0, incarnation(0, 0)));
        assertThat(liveness.heartbeat(image, 0, incarnation(0, 0))).isEmpty();
    }

    @Test
    void aHeartbeatFromAnOlderIncarnationIsStale() {
        MetadataImage restarted = image.apply(Fixtures.register(0, 1, Optional.of("r0")));
        assertThatThrownBy(() -> liveness.heartbeat(restarted, 0, incarnation(0, 0)))
                .isInstanceOf(StaleEpochException.class);
    }

    @Test
    void preferredLeadershipReturnsOnlyAfterTheDelay() {
        MetadataImage moved = image.apply(createTopic("t", List.of(List.of(0, 1))))
                .apply(new FenceBroker(0, incarnation(0, 0)))
                .apply(new UnfenceBroker(0, incarnation(0, 0)))
                .apply(new MetadataCommand.AlterPartition("t", 0, 1, 1, 1, List.of(0, 1)));
        liveness.heartbeat(moved, 0, incarnation(0, 0));
        liveness.heartbeat(moved, 1, incarnation(1, 0));
        assertThat(liveness.tick(moved)).isEmpty();
        clock.advance(Duration.ofSeconds(29));
        liveness.heartbeat(moved, 0, incarnation(0, 0));
        liveness.heartbeat(moved, 1, incarnation(1, 0));
        assertThat(liveness.tick(moved)).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(liveness.tick(moved))
                .containsExactly(new ElectLeaders(ElectionType.PREFERRED, List.of(new TopicPartition("t", 0))));
    }

    @Test
    void anOfflinePartitionIsElectedUncleanlyOnceItsTopicAllowsIt() {
        MetadataImage offline = image.apply(createTopic("t", List.of(List.of(0, 1))))
                .apply(new MetadataCommand.AlterPartition("t", 0, 0, 0, 0, List.of(0)))
                .apply(new FenceBroker(0, incarnation(0, 0)));
        liveness.heartbeat(offline, 1, incarnation(1, 0));
        assertThat(liveness.tick(offline)).isEmpty();

        MetadataImage allowed = offline.apply(new MetadataCommand.AlterTopicConfigs(
                "t", java.util.Map.of("unclean.leader.election.enable", "true"), List.of()));

        assertThat(liveness.tick(allowed))
                .containsExactly(new ElectLeaders(ElectionType.UNCLEAN, List.of(new TopicPartition("t", 0))));
    }

    @Test
    void aControlledShutdownFencesAtOnceAndLaterHeartbeatsOfThatIncarnationDoNotUnfence() {
        liveness.tick(image);
        liveness.heartbeat(image, 0, incarnation(0, 0));

        assertThat(liveness.shutdown(image, 0, incarnation(0, 0)))
                .as("no session has expired; the shutdown alone fences")
                .contains(new FenceBroker(0, incarnation(0, 0)));

        MetadataImage fenced = image.apply(new FenceBroker(0, incarnation(0, 0)));
        assertThat(liveness.heartbeat(fenced, 0, incarnation(0, 0)))
                .as("a heartbeat sent just before the shutdown")
                .isEmpty();
        assertThat(liveness.shutdown(fenced, 0, incarnation(0, 0)))
                .as("asked again: fenced already")
                .isEmpty();

        MetadataImage restarted = fenced.apply(Fixtures.register(0, 1, Optional.of("r0")));
        liveness.tick(restarted);
        assertThat(liveness.heartbeat(restarted, 0, incarnation(0, 1)))
                .as("the next incarnation unfences as usual")
                .contains(new UnfenceBroker(0, incarnation(0, 1)));
    }

    @Test
    void aControlledShutdownOfAnOlderIncarnationIsStale() {
        MetadataImage restarted = image.apply(Fixtures.register(0, 1, Optional.of("r0")));
        assertThatThrownBy(() -> liveness.shutdown(restarted, 0, incarnation(0, 0)))
                .isInstanceOf(StaleEpochException.class);
    }
}
