package io.tributary.coordinator.metadata;

import static io.tributary.coordinator.metadata.Fixtures.createTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.group.ConsumerGroupRecord;
import io.tributary.coordinator.group.ConsumerGroupRecord.GroupMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberAssignment;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberRemoved;
import io.tributary.coordinator.group.ConsumerGroupRecord.TargetMember;
import io.tributary.coordinator.group.ConsumerGroupRecord.TargetMetadata;
import io.tributary.coordinator.group.MemberState;
import io.tributary.coordinator.group.StoredConsumerGroup;
import io.tributary.coordinator.group.TopicIdPartition;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteConsumerGroup;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteGroupOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTopic;
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.UpdateConsumerGroup;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** How the image applies the commands on KIP-848 consumer groups. */
class ConsumerGroupsTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicIdPartition P0 = new TopicIdPartition(new UUID(0, 1), 0);
    private static final TopicIdPartition P1 = new TopicIdPartition(new UUID(0, 1), 1);

    private final MetadataImage image = Fixtures.liveBrokers(2, 1).apply(createTopic("a", List.of(List.of(0))));

    private static MemberMetadata metadata(String memberId, String topic) {
        return new MemberMetadata(
                memberId,
                Optional.empty(),
                Optional.empty(),
                "client",
                "/127.0.0.1",
                300_000,
                List.of(topic),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }

    private static MemberAssignment assignment(String memberId, int epoch, TopicIdPartition... owned) {
        TreeMap<TopicIdPartition, Integer> assigned = new TreeMap<>();
        for (TopicIdPartition p : owned) {
            assigned.put(p, epoch);
        }
        return new MemberAssignment(memberId, epoch, epoch - 1, MemberState.STABLE, assigned, new TreeMap<>());
    }

    private static UpdateConsumerGroup update(String groupId, ConsumerGroupRecord... records) {
        return new UpdateConsumerGroup(groupId, List.of(records));
    }

    @Test
    void recordsFoldIntoTheGroupAndKeepTheMetadataVersion() {
        MetadataImage next = image.apply(update(
                "g",
                metadata("m", "a"),
                new GroupMetadata(5, "uniform", 42),
                new TargetMember("m", new TreeSet<>(List.of(P0, P1))),
                new TargetMetadata(5),
                assignment("m", 5, P0, P1)));
        StoredConsumerGroup g = next.consumerGroups().get("g").orElseThrow();
        assertThat(g.groupEpoch()).isEqualTo(5);
        assertThat(g.assignmentEpoch()).isEqualTo(5);
        assertThat(g.assignor()).isEqualTo("uniform");
        assertThat(g.metadataHash()).isEqualTo(42);
        assertThat(g.members().get("m").metadata()).isEqualTo(metadata("m", "a"));
        assertThat(g.members().get("m").assignment()).isEqualTo(assignment("m", 5, P0, P1));
        assertThat(g.target()).containsOnlyKeys("m");
        assertThat(next.version())
                .as("brokers' long polls must not wake for consumer groups")
                .isEqualTo(image.version());
        assertThat(next.committedOffsets()).isSameAs(image.committedOffsets());
        assertThat(next.classicGroups()).isSameAs(image.classicGroups());
    }

    @Test
    void aRecordReplacesOnlyWhatItNamesAndAMemberComesFromEitherOfItsRecords() {
        MetadataImage first = image.apply(update("g", metadata("m", "a"), assignment("m", 3, P0)));
        MetadataImage next = first.apply(update("g", assignment("m", 4, P0, P1), assignment("n", 4)));
        StoredConsumerGroup g = next.consumerGroups().get("g").orElseThrow();
        assertThat(g.members().get("m").metadata()).as("kept").isEqualTo(metadata("m", "a"));
        assertThat(g.members().get("m").assignment()).isEqualTo(assignment("m", 4, P0, P1));
        assertThat(g.members().get("n").metadata())
                .as("an assignment of a member without metadata, as Kafka's replay creates one")
                .isEqualTo(MemberMetadata.empty("n"));
        MetadataImage renamed = next.apply(update("g", metadata("n", "b")));
        assertThat(renamed.consumerGroups()
                        .get("g")
                        .orElseThrow()
                        .members()
                        .get("n")
                        .assignment())
                .isEqualTo(assignment("n", 4));
    }

    @Test
    void aRemovedMemberTakesItsTargetAlong() {
        MetadataImage next = image.apply(update(
                        "g",
                        metadata("m", "a"),
                        metadata("n", "a"),
                        new TargetMember("m", new TreeSet<>(List.of(P0))),
                        new TargetMember("n", new TreeSet<>(List.of(P1)))))
                .apply(update("g", new MemberRemoved("m")));
        StoredConsumerGroup g = next.consumerGroups().get("g").orElseThrow();
        assertThat(g.members()).containsOnlyKeys("n");
        assertThat(g.target()).containsOnlyKeys("n");
    }

    @Test
    void theSameCommandAgainChangesNothing() {
        UpdateConsumerGroup command = update("g", metadata("m", "a"), assignment("m", 3, P0));
        MetadataImage stored = image.apply(command);
        assertThat(stored.apply(command)).as("a resent command").isSameAs(stored);
    }

    @Test
    void deletingAGroupRemovesItAndKeepsItsOffsetsAndClassicRecord() {
        MetadataImage stored = image.apply(update("g", metadata("m", "a")))
                .apply(update("h", metadata("m", "a")))
                .apply(new CommitOffsets("g", Map.of(A0, new CommittedOffset(5, 0, "", 0))))
                .apply(new StoreClassicGroup(Fixtures.classicGeneration("g", 1)));
        MetadataImage deleted = stored.apply(new DeleteConsumerGroup("g"));
        assertThat(deleted.consumerGroups().asMap()).containsOnlyKeys("h");
        assertThat(deleted.committedOffsets()).isSameAs(stored.committedOffsets());
        assertThat(deleted.classicGroups()).isSameAs(stored.classicGroups());
        assertThat(deleted.version()).isEqualTo(stored.version());
        assertThat(deleted.apply(new DeleteConsumerGroup("g"))).isSameAs(deleted);
        MetadataImage others = stored.apply(new DeleteGroupOffsets("g")).apply(new DeleteClassicGroup("g"));
        assertThat(others.consumerGroups()).isSameAs(stored.consumerGroups());
    }

    @Test
    void otherCommandsKeepTheConsumerGroups() {
        MetadataImage stored = image.apply(update("g", metadata("m", "a"), assignment("m", 3, P0)));
        MetadataImage next = stored.apply(createTopic("c", List.of(List.of(1))))
                .apply(new MetadataCommand.FenceBroker(1, Fixtures.incarnation(1, 0)))
                .apply(new MetadataCommand.AllocateProducerIds(0, 10))
                .apply(new CommitOffsets("g", Map.of(A0, new CommittedOffset(5, 0, "", 0))))
                .apply(new DeleteTopic("a"));
        assertThat(next.consumerGroups()).isSameAs(stored.consumerGroups());
    }

    @Test
    void anEmptyGroupOrMemberIdOrNoRecordIsInvalidAndChangesNothing() {
        assertThatThrownBy(() -> image.apply(update("", metadata("m", "a"))))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> image.apply(update("g", metadata("m", "a"), new MemberRemoved(""))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("empty member id");
        assertThatThrownBy(() -> image.apply(update("g"))).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> image.apply(new DeleteConsumerGroup(""))).isInstanceOf(InvalidRequestException.class);
    }

    static LongStream seeds() {
        return LongStream.range(0, 100);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void recordsAppliedInOneCommandOrSplitAcrossSeveralGiveTheSameGroup(long seed) {
        RandomGenerator r = new java.util.SplittableRandom(seed);
        List<ConsumerGroupRecord> records = ConsumerGroupFixtures.records(r);
        MetadataImage once = image.apply(new UpdateConsumerGroup("g", records));
        MetadataImage split = image;
        int from = 0;
        while (from < records.size()) {
            int to = r.nextInt(from + 1, records.size() + 1);
            split = split.apply(new UpdateConsumerGroup("g", records.subList(from, to)));
            from = to;
        }
        assertThat(split.consumerGroups()).as("seed %d", seed).isEqualTo(once.consumerGroups());
    }
}
