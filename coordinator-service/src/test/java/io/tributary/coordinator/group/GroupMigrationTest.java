package io.tributary.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The consumer group coordinator's side of a group changing protocol ({@link GroupMigration}). */
class GroupMigrationTest {

    private final FakeTopics topics = new FakeTopics();
    private final TopicView.TopicInfo t = topics.create("t", 2);
    private final GroupCoordinator coordinator = new GroupCoordinator(GroupConfig.DEFAULTS, topics);
    private final GroupMigration migration = new GroupMigration(coordinator);

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        return out;
    }

    /** A classic generation 7 of one member owning both partitions of t. */
    private static ClassicGeneration generation(String memberId) {
        byte[] subscription = bytes(ConsumerProtocol.serializeSubscription(new Subscription(List.of("t"))));
        byte[] assignment = bytes(ConsumerProtocol.serializeAssignment(
                new Assignment(List.of(new TopicPartition("t", 0), new TopicPartition("t", 1)))));
        return new ClassicGeneration(
                Heartbeats.GROUP,
                "consumer",
                7,
                Optional.of("range"),
                List.of(new ClassicGeneration.Member(
                        memberId,
                        Optional.empty(),
                        "client",
                        "/h",
                        30_000,
                        new ClassicMemberMetadata(10_000, List.of(new ClassicProtocol("range", subscription))),
                        assignment)));
    }

    @Test
    void anUpgradedGroupIsAtTheGenerationWithEachMemberOwningItsClassicAssignment() {
        migration.upgrade(generation("a"), 0);

        GroupDescription group = coordinator.describe(Heartbeats.GROUP).orElseThrow();
        assertThat(group.groupEpoch()).isEqualTo(7);
        assertThat(group.members()).singleElement().satisfies(member -> {
            assertThat(member.memberEpoch()).isEqualTo(7);
            assertThat(member.assigned()).isEqualTo(Heartbeats.all(t.id(), 2));
            assertThat(member.target()).isEqualTo(Heartbeats.all(t.id(), 2));
            assertThat(member.classic()).isPresent();
        });
        assertThat(coordinator.drainWrites())
                .as("the converted group's records")
                .isNotEmpty();
        coordinator.checkInvariants();
    }

    @Test
    void anUpgradeReplacesAConsumerGroupLeftStoredBesideTheClassicGroup() {
        coordinator.heartbeat(Heartbeats.join("stale", List.of("t")), 0);

        migration.upgrade(generation("a"), 0);

        assertThat(coordinator.describe(Heartbeats.GROUP).orElseThrow().members())
                .extracting(GroupDescription.Member::memberId)
                .containsExactly("a");
        coordinator.checkInvariants();
    }

    @Test
    void aGroupIsHandedOverOnlyWhenEveryMemberLeftSpeaksTheClassicProtocolWithinTheClassicSize() {
        migration.upgrade(generation("a"), 0);
        coordinator.heartbeat(Heartbeats.join("x", List.of("t")), 0);
        int epochBeforeLeave =
                coordinator.describe(Heartbeats.GROUP).orElseThrow().groupEpoch();

        assertThat(migration.takeDowngrades(10)).as("no member left yet").isEmpty();
        coordinator.heartbeat(Heartbeats.leave("x", HeartbeatRequest.LEAVE_EPOCH, Optional.empty()), 0);
        assertThat(migration.takeDowngrades(0))
                .as("more members than a classic group may have")
                .isEmpty();
        assertThat(coordinator.hasMembers(Heartbeats.GROUP)).isTrue();

        coordinator.heartbeat(Heartbeats.join("y", List.of("t")), 0);
        int epoch = coordinator.describe(Heartbeats.GROUP).orElseThrow().groupEpoch();
        coordinator.heartbeat(Heartbeats.leave("y", HeartbeatRequest.LEAVE_EPOCH, Optional.empty()), 0);
        List<ClassicGeneration> handedOver = migration.takeDowngrades(10);

        assertThat(handedOver).singleElement().satisfies(generation -> {
            assertThat(generation.generationId()).as("the epoch before y left").isEqualTo(epoch);
            assertThat(generation.members())
                    .extracting(ClassicGeneration.Member::memberId)
                    .containsExactly("a");
            assertThat(ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(
                                    generation.members().getFirst().assignment()))
                            .partitions())
                    .as("its target as last computed, with y (Kafka converts it as it is: the group rebalances)")
                    .hasSize(1);
        });
        assertThat(coordinator.contains(Heartbeats.GROUP)).isFalse();
    }
}
