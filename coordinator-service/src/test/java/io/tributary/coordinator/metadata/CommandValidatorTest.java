package io.tributary.coordinator.metadata;

import static io.tributary.coordinator.metadata.Fixtures.createTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.metadata.MetadataCommand.AddPartitions;
import io.tributary.coordinator.metadata.MetadataCommand.AllocateProducerIds;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The limits the Raft leader checks before a command is appended, and the dry run on its image. */
class CommandValidatorTest {

    private final CommandValidator validator = new CommandValidator(new MetadataLimits(1 << 20, 3, 100));
    private final MetadataImage image = Fixtures.liveBrokers(3, 3).apply(createTopic("t", List.of(List.of(0))));

    @Test
    void addingPartitionsUpToTheLimitIsAcceptedAndPastItIsInvalidPartitions() {
        assertThat(validator
                        .validate(image, new AddPartitions("t", 1, List.of(List.of(1), List.of(2))))
                        .topic("t")
                        .partitions())
                .hasSize(3);
        assertThatThrownBy(() -> validator.validate(
                        image, new AddPartitions("t", 1, List.of(List.of(1), List.of(2), List.of(0)))))
                .isInstanceOf(InvalidPartitionsException.class)
                .hasMessageContaining("would have 4 partitions; the limit is 3");
    }

    @Test
    void addingPartitionsToAnUnknownTopicIsUnknownTopic() {
        assertThatThrownBy(() -> validator.validate(image, new AddPartitions("u", 1, List.of(List.of(1)))))
                .isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void aProducerIdBlockUpToTheLimitIsAcceptedAndALargerOneIsInvalid() {
        assertThat(validator.validate(image, new AllocateProducerIds(0, 100)).nextProducerId())
                .isEqualTo(100);
        assertThatThrownBy(() -> validator.validate(image, new AllocateProducerIds(0, 101)))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("at most 100");
        assertThatThrownBy(() -> validator.validate(image, new AllocateProducerIds(0, 0)))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> validator.validate(image, new AllocateProducerIds(7, 1)))
                .isInstanceOf(UnknownBrokerException.class);
    }

    @Test
    void theEncodedFormIsValidatedToo() {
        assertThat(validator.validate(image, CommandCodec.encode(new AllocateProducerIds(2, 5))))
                .isEqualTo(new AllocateProducerIds(2, 5));
        assertThatThrownBy(() -> validator.validate(image, CommandCodec.encode(new AllocateProducerIds(2, 500))))
                .isInstanceOf(InvalidRequestException.class);
    }

    private final CommandValidator offsetLimits = new CommandValidator(new MetadataLimits(1 << 20, 10, 100, 2, 3, 4));
    private final MetadataImage twoTopics = image.apply(createTopic("u", List.of(List.of(0), List.of(1), List.of(2))));

    private static CommittedOffset withMetadata(String metadata) {
        return new CommittedOffset(1, -1, metadata, 0);
    }

    private static TopicPartition tp(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }

    @Test
    void offsetMetadataUpToTheLimitInUtf8BytesIsAcceptedAndLongerIsInvalid() {
        assertThat(offsetLimits.validate(twoTopics, new CommitOffsets("g", Map.of(tp("t", 0), withMetadata("abcd")))))
                .isNotNull();
        assertThatThrownBy(() -> offsetLimits.validate(
                        twoTopics, new CommitOffsets("g", Map.of(tp("t", 0), withMetadata("abcé")))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("5 bytes; the limit is 4");
    }

    @Test
    void aGroupMayHoldUpToTheLimitOfOffsetsCountingThoseItAlreadyHas() {
        MetadataImage two = offsetLimits.validate(
                twoTopics, new CommitOffsets("g", Map.of(tp("t", 0), withMetadata(""), tp("u", 0), withMetadata(""))));
        assertThat(offsetLimits.validate(
                        two,
                        new CommitOffsets("g", Map.of(tp("t", 0), withMetadata(""), tp("u", 1), withMetadata("")))))
                .extracting(i -> i.committedOffsets().of("g").size())
                .isEqualTo(3);
        assertThatThrownBy(() -> offsetLimits.validate(
                        two,
                        new CommitOffsets("g", Map.of(tp("u", 1), withMetadata(""), tp("u", 2), withMetadata("")))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("would hold 4 committed offsets; the limit is 3");
    }

    @Test
    void aNewGroupPastTheLimitOfGroupsIsInvalidButKnownGroupsStillCommit() {
        MetadataImage full = twoTopics
                .apply(new CommitOffsets("g1", Map.of(tp("t", 0), withMetadata(""))))
                .apply(new CommitOffsets("g2", Map.of(tp("t", 0), withMetadata(""))));
        assertThatThrownBy(() ->
                        offsetLimits.validate(full, new CommitOffsets("g3", Map.of(tp("t", 0), withMetadata("")))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("2 groups hold committed offsets; the limit is 2");
        assertThat(offsetLimits.validate(full, new CommitOffsets("g2", Map.of(tp("u", 0), withMetadata("")))))
                .isNotNull();
        MetadataImage oneGone = full.apply(new MetadataCommand.DeleteGroupOffsets("g1"));
        assertThat(offsetLimits
                        .validate(oneGone, new CommitOffsets("g3", Map.of(tp("t", 0), withMetadata(""))))
                        .committedOffsets()
                        .groups())
                .containsExactly("g2", "g3");
    }

    private final CommandValidator classicLimit =
            new CommandValidator(new MetadataLimits(1 << 20, 10, 100, 2, 3, 4, 2));

    private static StoreClassicGroup store(String groupId, long seed) {
        return new StoreClassicGroup(Fixtures.classicGroup(new java.util.SplittableRandom(seed), groupId));
    }

    @Test
    void aNewClassicGroupPastTheLimitIsInvalidButStoredGroupsStillChange() {
        MetadataImage full = classicLimit.validate(classicLimit.validate(image, store("g1", 1)), store("g2", 2));
        assertThatThrownBy(() -> classicLimit.validate(full, store("g3", 3)))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("2 classic groups are stored; the limit is 2");
        assertThat(classicLimit.validate(full, store("g2", 4)).classicGroups().get("g2"))
                .as("replacing a stored group is not a new one")
                .contains(store("g2", 4).group());
        MetadataImage oneGone = classicLimit.validate(full, new DeleteClassicGroup("g1"));
        assertThat(classicLimit
                        .validate(oneGone, store("g3", 3))
                        .classicGroups()
                        .asMap())
                .containsOnlyKeys("g2", "g3");
    }

    @Test
    void aClassicGroupLargerThanTheLargestCommandIsInvalid() {
        CommandValidator small = new CommandValidator(new MetadataLimits(64, 10, 100));
        var member = new io.tributary.coordinator.group.classic.ClassicGroupRecord.Member(
                "m", java.util.Optional.empty(), "c", "h", 1, 1, new byte[30], new byte[30]);
        byte[] encoded =
                CommandCodec.encode(new StoreClassicGroup(new io.tributary.coordinator.group.classic.ClassicGroupRecord(
                        "g", "consumer", "range", 1, "m", 0, List.of(member))));
        assertThatThrownBy(() -> small.validate(image, encoded))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("larger than the limit of 64 bytes");
    }

    private final CommandValidator consumerLimit =
            new CommandValidator(new MetadataLimits(1 << 20, 10, 100, 2, 3, 4, 2, 2));

    private static MetadataCommand.UpdateConsumerGroup update(String groupId, String memberId) {
        return new MetadataCommand.UpdateConsumerGroup(
                groupId, List.of(io.tributary.coordinator.group.ConsumerGroupRecord.MemberMetadata.empty(memberId)));
    }

    @Test
    void aNewConsumerGroupPastTheLimitIsInvalidButStoredGroupsStillChange() {
        MetadataImage full =
                consumerLimit.validate(consumerLimit.validate(image, update("g1", "a")), update("g2", "a"));
        assertThatThrownBy(() -> consumerLimit.validate(full, update("g3", "a")))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("2 consumer groups are stored; the limit is 2");
        assertThat(consumerLimit
                        .validate(full, update("g2", "b"))
                        .consumerGroups()
                        .get("g2")
                        .orElseThrow()
                        .members())
                .as("records of a stored group are not a new group")
                .containsOnlyKeys("a", "b");
        MetadataImage oneGone = consumerLimit.validate(full, new MetadataCommand.DeleteConsumerGroup("g1"));
        assertThat(consumerLimit
                        .validate(oneGone, update("g3", "a"))
                        .consumerGroups()
                        .asMap())
                .containsOnlyKeys("g2", "g3");
    }

    @Test
    void theLimitsMustBePositive() {
        assertThatThrownBy(() -> new MetadataLimits(1 << 20, 3, 100, 0, 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MetadataLimits(1 << 20, 3, 100, 1, 0, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MetadataLimits(1 << 20, 3, 100, 1, 1, -1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MetadataLimits(1 << 20, 3, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MetadataLimits(1 << 20, 3, 100, 1, 1, 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MetadataLimits(1 << 20, 3, 100, 1, 1, 1, 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(MetadataLimits.DEFAULTS.maxClassicGroups()).isEqualTo(10_000);
        assertThat(MetadataLimits.DEFAULTS.maxConsumerGroups()).isEqualTo(10_000);
    }
}
