package io.tributary.coordinator.metadata;

import static io.tributary.coordinator.metadata.Fixtures.createTopic;
import static io.tributary.coordinator.metadata.Fixtures.incarnation;
import static io.tributary.coordinator.metadata.Fixtures.liveBrokers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.metadata.MetadataCommand.AddPartitions;
import io.tributary.coordinator.metadata.MetadataCommand.AllocateProducerIds;
import io.tributary.coordinator.metadata.MetadataCommand.AlterPartition;
import io.tributary.coordinator.metadata.MetadataCommand.AlterTopicConfigs;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTopic;
import io.tributary.coordinator.metadata.MetadataCommand.ElectLeaders;
import io.tributary.coordinator.metadata.MetadataCommand.ElectionType;
import io.tributary.coordinator.metadata.MetadataCommand.FenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MetadataImageTest {

    private final MetadataImage threeBrokers = liveBrokers(3, 3);

    private static PartitionState p0(MetadataImage image, String topic) {
        return image.topic(topic).partitions().getFirst();
    }

    @Test
    void registeredBrokerStartsFencedAndHeartbeatUnfencesIt() {
        MetadataImage image = MetadataImage.EMPTY.apply(Fixtures.register(7, 0, Optional.empty()));
        assertThat(image.broker(7).fenced()).isTrue();
        assertThat(image.version()).isEqualTo(1);
        image = image.apply(new UnfenceBroker(7, incarnation(7, 0)));
        assertThat(image.broker(7).fenced()).isFalse();
        assertThat(image.version()).isEqualTo(2);
    }

    @Test
    void retriedRegistrationChangesNothing() {
        MetadataImage image = MetadataImage.EMPTY.apply(Fixtures.register(7, 0, Optional.empty()));
        assertThat(image.apply(Fixtures.register(7, 0, Optional.empty()))).isSameAs(image);
    }

    @Test
    void unfenceOfAnOlderIncarnationIsStale() {
        MetadataImage image = threeBrokers.apply(Fixtures.register(1, 1, Optional.of("r1")));
        assertThatThrownBy(() -> image.apply(new UnfenceBroker(1, incarnation(1, 0))))
                .isInstanceOf(StaleEpochException.class);
    }

    @Test
    void createdTopicHasFirstReplicaAsLeaderAndAllReplicasInIsr() {
        MetadataImage image = threeBrokers.apply(createTopic("orders", List.of(List.of(1, 2, 0), List.of(2, 0, 1))));
        PartitionState p = p0(image, "orders");
        assertThat(p.leader()).isEqualTo(1);
        assertThat(p.isr()).containsExactly(1, 2, 0);
        assertThat(p.leaderEpoch()).isZero();
        assertThat(p.partitionEpoch()).isZero();
        assertThat(image.version()).isEqualTo(threeBrokers.version() + 1);
    }

    @Test
    void creatingAnExistingTopicFails() {
        MetadataImage image = threeBrokers.apply(createTopic("orders", List.of(List.of(0))));
        assertThatThrownBy(() -> image.apply(createTopic("orders", List.of(List.of(1)))))
                .isInstanceOf(TopicExistsException.class)
                .hasMessageContaining("orders");
    }

    @Test
    void illegalTopicNamesAreRejected() {
        for (String name : List.of("", ".", "..", "a/b", "x".repeat(250))) {
            assertThatThrownBy(() -> threeBrokers.apply(createTopic(name, List.of(List.of(0)))))
                    .as(name)
                    .isInstanceOf(InvalidRequestException.class);
        }
    }

    @Test
    void unknownConfigKeyIsRejectedWithTheAcceptedKeys() {
        assertThatThrownBy(() ->
                        threeBrokers.apply(createTopic("orders", List.of(List.of(0)), Map.of("retention.hours", "1"))))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("retention.hours")
                .hasMessageContaining("retention.ms");
    }

    @Test
    void partitionsWithDifferentReplicaCountsAreRejected() {
        assertThatThrownBy(() -> threeBrokers.apply(createTopic("orders", List.of(List.of(0, 1), List.of(2)))))
                .isInstanceOf(InvalidReplicationFactorException.class);
    }

    @Test
    void replicasOnAnUnknownBrokerAreRejected() {
        assertThatThrownBy(() -> threeBrokers.apply(createTopic("orders", List.of(List.of(0, 9)))))
                .isInstanceOf(UnknownBrokerException.class);
    }

    @Test
    void alterPartitionAtCurrentEpochsShrinksIsrAndBumpsPartitionEpoch() {
        MetadataImage image = threeBrokers.apply(createTopic("t", List.of(List.of(0, 1, 2))));
        image = image.apply(new AlterPartition("t", 0, 0, 0, 0, List.of(0, 2)));
        PartitionState p = p0(image, "t");
        assertThat(p.isr()).containsExactly(0, 2);
        assertThat(p.partitionEpoch()).isEqualTo(1);
        assertThat(p.leaderEpoch()).isZero();
    }

    @Test
    void alterPartitionAtAnOldPartitionEpochIsStale() {
        MetadataImage image = threeBrokers
                .apply(createTopic("t", List.of(List.of(0, 1, 2))))
                .apply(new AlterPartition("t", 0, 0, 0, 0, List.of(0, 2)));
        assertThatThrownBy(() -> image.apply(new AlterPartition("t", 0, 0, 0, 0, List.of(0))))
                .isInstanceOf(StaleEpochException.class);
    }

    @Test
    void alterPartitionFromANonLeaderIsStale() {
        MetadataImage image = threeBrokers.apply(createTopic("t", List.of(List.of(0, 1, 2))));
        assertThatThrownBy(() -> image.apply(new AlterPartition("t", 0, 1, 0, 0, List.of(1))))
                .isInstanceOf(StaleEpochException.class);
    }

    @Test
    void alterPartitionCannotDropTheLeaderOrAddAFencedBroker() {
        MetadataImage image = threeBrokers
                .apply(createTopic("t", List.of(List.of(0, 1, 2))))
                .apply(new AlterPartition("t", 0, 0, 0, 0, List.of(0)));
        assertThatThrownBy(() -> image.apply(new AlterPartition("t", 0, 0, 0, 1, List.of(1))))
                .isInstanceOf(InvalidRequestException.class);
        MetadataImage fenced = image.apply(new FenceBroker(2, incarnation(2, 0)));
        assertThatThrownBy(() -> fenced.apply(new AlterPartition("t", 0, 0, 0, 1, List.of(0, 2))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("fenced");
    }

    @Test
    void fencingTheLeaderMovesLeadershipToTheNextIsrMemberWithABumpedLeaderEpoch() {
        MetadataImage image = threeBrokers.apply(createTopic("t", List.of(List.of(0, 1, 2))));
        image = image.apply(new FenceBroker(0, incarnation(0, 0)));
        PartitionState p = p0(image, "t");
        assertThat(p.leader()).isEqualTo(1);
        assertThat(p.isr()).containsExactly(1, 2);
        assertThat(p.leaderEpoch()).isEqualTo(1);
        assertThat(p.partitionEpoch()).isEqualTo(1);
    }

    @Test
    void fencingTheLastIsrMemberTakesThePartitionOfflineWhenUncleanElectionIsOff() {
        MetadataImage image = threeBrokers
                .apply(createTopic("t", List.of(List.of(0, 1))))
                .apply(new AlterPartition("t", 0, 0, 0, 0, List.of(0)))
                .apply(new FenceBroker(0, incarnation(0, 0)));
        PartitionState p = p0(image, "t");
        assertThat(p.leader()).isEqualTo(PartitionState.NO_LEADER);
        assertThat(p.isr()).containsExactly(0);
        assertThat(image.offlinePartitionCount()).isEqualTo(1);
        assertThatThrownBy(() -> Fixtures.liveBrokers(1, 1)
                        .apply(createTopic("u", List.of(List.of(0))))
                        .apply(new ElectLeaders(ElectionType.UNCLEAN, List.of(new TopicPartition("u", 0)))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("unclean.leader.election.enable");
    }

    @Test
    void theLastIsrMemberReturningLeadsAgain() {
        MetadataImage image = threeBrokers
                .apply(createTopic("t", List.of(List.of(0, 1))))
                .apply(new AlterPartition("t", 0, 0, 0, 0, List.of(0)))
                .apply(new FenceBroker(0, incarnation(0, 0)))
                .apply(new UnfenceBroker(0, incarnation(0, 0)));
        PartitionState p = p0(image, "t");
        assertThat(p.leader()).isZero();
        assertThat(p.leaderEpoch()).isEqualTo(2);
    }

    @Test
    void fencingTheLastIsrMemberElectsAnOutOfSyncReplicaWhenUncleanElectionIsOn() {
        MetadataImage image = threeBrokers
                .apply(createTopic(
                        "t", List.of(List.of(0, 1)), Map.of(TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE, "true")))
                .apply(new AlterPartition("t", 0, 0, 0, 0, List.of(0)))
                .apply(new FenceBroker(0, incarnation(0, 0)));
        PartitionState p = p0(image, "t");
        assertThat(p.leader()).isEqualTo(1);
        assertThat(p.isr()).containsExactly(1);
    }

    @Test
    void preferredElectionRestoresTheFirstReplicaOnceItIsBackInTheIsr() {
        MetadataImage image = threeBrokers
                .apply(createTopic("t", List.of(List.of(0, 1, 2))))
                .apply(new FenceBroker(0, incarnation(0, 0)))
                .apply(new UnfenceBroker(0, incarnation(0, 0)));
        ElectLeaders elect = new ElectLeaders(ElectionType.PREFERRED, List.of(new TopicPartition("t", 0)));
        assertThat(image.apply(elect)).as("0 is not in the ISR yet").isSameAs(image);
        image = image.apply(new AlterPartition("t", 0, 1, 1, 1, List.of(0, 1, 2)))
                .apply(elect);
        PartitionState p = p0(image, "t");
        assertThat(p.leader()).isZero();
        assertThat(p.leaderEpoch()).isEqualTo(2);
    }

    @Test
    void addPartitionsKeepsTheReplicationFactorAndDeleteRemovesTheTopic() {
        MetadataImage image = threeBrokers
                .apply(createTopic("t", List.of(List.of(0, 1))))
                .apply(new AddPartitions("t", 1, List.of(List.of(2, 0))));
        assertThat(image.topic("t").partitions()).hasSize(2);
        assertThatThrownBy(() -> threeBrokers
                        .apply(createTopic("t", List.of(List.of(0, 1))))
                        .apply(new AddPartitions("t", 1, List.of(List.of(2)))))
                .isInstanceOf(InvalidReplicationFactorException.class);
        MetadataImage grown = image;
        assertThatThrownBy(() -> grown.apply(new AddPartitions("t", 1, List.of(List.of(1, 2)))))
                .as("a retried AddPartitions that was applied already")
                .isInstanceOf(InvalidPartitionsException.class)
                .hasMessageContaining("has 2 partitions, not 1");
        image = image.apply(new DeleteTopic("t"));
        assertThat(image.topics()).isEmpty();
        MetadataImage deleted = image;
        assertThatThrownBy(() -> deleted.apply(new DeleteTopic("t"))).isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void addPartitionsOfAnUnknownTopicOrWithNoPartitionIsRejected() {
        MetadataImage image = threeBrokers.apply(createTopic("t", List.of(List.of(0))));
        assertThatThrownBy(() -> image.apply(new AddPartitions("u", 1, List.of(List.of(1)))))
                .isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> image.apply(new AddPartitions("t", 1, List.of())))
                .isInstanceOf(InvalidPartitionsException.class);
        MetadataImage grown = image.apply(new AddPartitions("t", 1, List.of(List.of(1), List.of(2))));
        assertThat(grown.topic("t").partitions())
                .extracting(PartitionState::leader)
                .containsExactly(0, 1, 2);
        assertThat(grown.topic("t").partitions().get(2).isr()).containsExactly(2);
        assertThat(grown.version()).isEqualTo(image.version() + 1);
    }

    @Test
    void producerIdBlocksFollowEachOtherFromZeroAndEachBumpsTheVersion() {
        assertThat(threeBrokers.nextProducerId()).isZero();
        MetadataImage first = threeBrokers.apply(new AllocateProducerIds(0, 1000));
        assertThat(first.nextProducerId()).isEqualTo(1000);
        assertThat(first.version()).isEqualTo(threeBrokers.version() + 1);
        MetadataImage second = first.apply(new AllocateProducerIds(2, 1));
        assertThat(second.nextProducerId()).isEqualTo(1001);
        assertThat(second.version()).isEqualTo(first.version() + 1);
        assertThat(second.brokers()).isEqualTo(threeBrokers.brokers());
        assertThat(second.topics()).isEqualTo(threeBrokers.topics());
    }

    @Test
    void producerIdsSurviveOtherCommands() {
        MetadataImage image = threeBrokers
                .apply(new AllocateProducerIds(0, 10))
                .apply(createTopic("t", List.of(List.of(0, 1))))
                .apply(new FenceBroker(1, incarnation(1, 0)))
                .apply(new AddPartitions("t", 1, List.of(List.of(0, 2))))
                .apply(new ElectLeaders(ElectionType.PREFERRED, List.of(new TopicPartition("t", 0))))
                .apply(new AlterTopicConfigs("t", Map.of("retention.ms", "5"), List.of()))
                .apply(Fixtures.register(1, 1, Optional.of("r1")))
                .apply(new UnfenceBroker(1, incarnation(1, 1)))
                .apply(new DeleteTopic("t"));
        assertThat(image.nextProducerId()).isEqualTo(10);
    }

    @Test
    void aFencedBrokerMayTakeProducerIdsButAnUnknownOneMayNot() {
        MetadataImage fenced = threeBrokers.apply(new FenceBroker(1, incarnation(1, 0)));
        assertThat(fenced.apply(new AllocateProducerIds(1, 5)).nextProducerId()).isEqualTo(5);
        assertThatThrownBy(() -> threeBrokers.apply(new AllocateProducerIds(9, 5)))
                .isInstanceOf(UnknownBrokerException.class)
                .hasMessageContaining("9");
    }

    @Test
    void anEmptyBlockOrOnePastTheLargestIdIsRejected() {
        assertThatThrownBy(() -> threeBrokers.apply(new AllocateProducerIds(0, 0)))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> threeBrokers.apply(new AllocateProducerIds(0, -3)))
                .isInstanceOf(InvalidRequestException.class);
        MetadataImage nearlyExhausted = new MetadataImage(
                threeBrokers.version(), threeBrokers.brokers(), threeBrokers.topics(), Long.MAX_VALUE - 10);
        assertThat(nearlyExhausted.apply(new AllocateProducerIds(0, 10)).nextProducerId())
                .as("the last id handed out is Long.MAX_VALUE - 1")
                .isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> nearlyExhausted.apply(new AllocateProducerIds(0, 11)))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("exhausted");
    }

    @Test
    void alterTopicConfigsSetsNormalizedValuesAndRemovesKeys() {
        MetadataImage image = threeBrokers
                .apply(createTopic("t", List.of(List.of(0)), Map.of("retention.ms", "1000")))
                .apply(new AlterTopicConfigs(
                        "t",
                        Map.of("cleanup.policy", "delete, compact", "segment.ms", "0060"),
                        List.of("retention.ms")));
        assertThat(image.topic("t").configs())
                .containsExactlyEntriesOf(
                        new java.util.TreeMap<>(Map.of("cleanup.policy", "compact,delete", "segment.ms", "60")));
    }

    @Test
    void invalidCommandsLeaveTheImageAsItWas() {
        MetadataImage image = threeBrokers.apply(createTopic("t", List.of(List.of(0))));
        byte[] before = ImageCodec.encode(image);
        assertThatThrownBy(() -> image.apply(new AlterTopicConfigs("t", Map.of("segment.bytes", "12"), List.of())))
                .isInstanceOf(InvalidConfigException.class);
        assertThat(ImageCodec.encode(image)).isEqualTo(before);
    }
}
