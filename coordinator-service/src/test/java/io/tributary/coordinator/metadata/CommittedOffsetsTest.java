package io.tributary.coordinator.metadata;

import static io.tributary.coordinator.metadata.Fixtures.createTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteGroupOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTopic;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the image applies the commands on consumer groups' committed offsets. */
class CommittedOffsetsTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);

    private final MetadataImage image = Fixtures.liveBrokers(2, 1)
            .apply(createTopic("a", List.of(List.of(0), List.of(1))))
            .apply(createTopic("b", List.of(List.of(0))));

    private static CommittedOffset at(long offset) {
        return new CommittedOffset(offset, 3, "m" + offset, 1_000 + offset);
    }

    @Test
    void aCommitStoresEveryOffsetOfTheGroupAndKeepsTheMetadataVersion() {
        MetadataImage next = image.apply(new CommitOffsets("g", Map.of(A0, at(5), B0, at(7))));
        assertThat(next.committedOffsets().of("g")).containsExactly(Map.entry(A0, at(5)), Map.entry(B0, at(7)));
        assertThat(next.committedOffsets().groups()).containsExactly("g");
        assertThat(next.committedOffsets().offsetCount()).isEqualTo(2);
        assertThat(next.version())
                .as("brokers' long polls must not wake for commits")
                .isEqualTo(image.version());
        assertThat(next.topics()).isEqualTo(image.topics());
    }

    @Test
    void aLaterCommitReplacesOnlyItsPartitionsAndOtherGroupsAreUntouched() {
        MetadataImage next = image.apply(new CommitOffsets("g", Map.of(A0, at(5), A1, at(6))))
                .apply(new CommitOffsets("h", Map.of(A0, at(1))))
                .apply(new CommitOffsets("g", Map.of(A1, at(9), B0, at(2))));
        assertThat(next.committedOffsets().of("g"))
                .containsExactly(Map.entry(A0, at(5)), Map.entry(A1, at(9)), Map.entry(B0, at(2)));
        assertThat(next.committedOffsets().of("h")).containsExactly(Map.entry(A0, at(1)));
        assertThat(next.committedOffsets().offsetCount()).isEqualTo(4);
    }

    @Test
    void offsetsOfPartitionsThatDoNotExistAreDropped() {
        TopicPartition gone = new TopicPartition("gone", 0);
        TopicPartition a7 = new TopicPartition("a", 7);
        MetadataImage next = image.apply(new CommitOffsets("g", Map.of(A0, at(1), gone, at(2), a7, at(3))));
        assertThat(next.committedOffsets().of("g")).containsOnlyKeys(A0);
        assertThat(image.apply(new CommitOffsets("g", Map.of(gone, at(2)))))
                .as("nothing left to store changes nothing")
                .isSameAs(image);
    }

    @Test
    void anEmptyGroupIdOrNoOffsetIsInvalid() {
        assertThatThrownBy(() -> image.apply(new CommitOffsets("", Map.of(A0, at(1)))))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> image.apply(new CommitOffsets("g", Map.of())))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> image.apply(new DeleteGroupOffsets(""))).isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void deletingAGroupRemovesAllItsOffsetsAndDeletingItAgainChangesNothing() {
        MetadataImage committed = image.apply(new CommitOffsets("g", Map.of(A0, at(1), B0, at(2))))
                .apply(new CommitOffsets("h", Map.of(A0, at(3))));
        MetadataImage deleted = committed.apply(new DeleteGroupOffsets("g"));
        assertThat(deleted.committedOffsets().groups()).containsExactly("h");
        assertThat(deleted.committedOffsets().of("g")).isEmpty();
        assertThat(deleted.committedOffsets().offsetCount()).isEqualTo(1);
        assertThat(deleted.apply(new DeleteGroupOffsets("g"))).isSameAs(deleted);
    }

    @Test
    void deletingSomeOffsetsKeepsTheOthersAndTheLastOneTakesTheGroupAway() {
        MetadataImage committed = image.apply(new CommitOffsets("g", Map.of(A0, at(1), A1, at(2), B0, at(3))));
        MetadataImage some = committed.apply(new DeleteOffsets("g", List.of(A1, new TopicPartition("x", 0))));
        assertThat(some.committedOffsets().of("g")).containsOnlyKeys(A0, B0);
        assertThat(some.apply(new DeleteOffsets("g", List.of(A1)))).isSameAs(some);
        MetadataImage none = some.apply(new DeleteOffsets("g", List.of(A0, B0)));
        assertThat(none.committedOffsets().groups()).isEmpty();
        assertThat(none.committedOffsets()).isEqualTo(CommittedOffsets.EMPTY);
    }

    @Test
    void deletingATopicDropsItsOffsetsInEveryGroup() {
        MetadataImage committed = image.apply(new CommitOffsets("g", Map.of(A0, at(1), B0, at(2))))
                .apply(new CommitOffsets("h", Map.of(A1, at(3))));
        MetadataImage deleted = committed.apply(new DeleteTopic("a"));
        assertThat(deleted.committedOffsets().groups()).containsExactly("g");
        assertThat(deleted.committedOffsets().of("g")).containsOnlyKeys(B0);
        assertThat(deleted.committedOffsets().offsetCount()).isEqualTo(1);
        assertThat(deleted.version()).isEqualTo(committed.version() + 1);
        MetadataImage recreated = deleted.apply(createTopic("a", List.of(List.of(0))));
        assertThat(recreated.committedOffsets().of("h"))
                .as("a topic created again under the old name starts without offsets")
                .isEmpty();
    }

    @Test
    void otherCommandsKeepTheOffsets() {
        MetadataImage committed = image.apply(new CommitOffsets("g", Map.of(A0, at(1))));
        MetadataImage next = committed
                .apply(createTopic("c", List.of(List.of(1))))
                .apply(new MetadataCommand.FenceBroker(1, Fixtures.incarnation(1, 0)))
                .apply(new MetadataCommand.AllocateProducerIds(0, 10));
        assertThat(next.committedOffsets()).isSameAs(committed.committedOffsets());
    }
}
