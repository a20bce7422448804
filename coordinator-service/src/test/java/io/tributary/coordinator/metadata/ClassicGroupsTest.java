package io.tributary.coordinator.metadata;

import static io.tributary.coordinator.metadata.Fixtures.createTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.group.classic.ClassicGroupRecord;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteGroupOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTopic;
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the image applies the commands on classic groups' generations. */
class ClassicGroupsTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);

    private final MetadataImage image = Fixtures.liveBrokers(2, 1).apply(createTopic("a", List.of(List.of(0))));

    private static ClassicGroupRecord generation(String groupId, int generationId, String... memberIds) {
        return Fixtures.classicGeneration(groupId, generationId, memberIds);
    }

    @Test
    void storingAGroupKeepsTheMetadataVersionAndReadsBack() {
        ClassicGroupRecord g = generation("g", 1, "m1", "m2");
        MetadataImage next = image.apply(new StoreClassicGroup(g));
        assertThat(next.classicGroups().get("g")).contains(g);
        assertThat(next.classicGroups().count()).isEqualTo(1);
        assertThat(next.version())
                .as("brokers' long polls must not wake for classic groups")
                .isEqualTo(image.version());
        assertThat(next.topics()).isEqualTo(image.topics());
        assertThat(next.committedOffsets()).isSameAs(image.committedOffsets());
    }

    @Test
    void aLaterStoreReplacesTheWholeGroupAndOtherGroupsAreUntouched() {
        ClassicGroupRecord h = generation("h", 7, "x");
        MetadataImage next = image.apply(new StoreClassicGroup(generation("g", 1, "m1", "m2")))
                .apply(new StoreClassicGroup(h))
                .apply(new StoreClassicGroup(generation("g", 2, "m3")));
        assertThat(next.classicGroups().get("g")).contains(generation("g", 2, "m3"));
        assertThat(next.classicGroups().get("h")).contains(h);
        assertThat(next.classicGroups().asMap()).containsOnlyKeys("g", "h");
        assertThat(next.version()).isEqualTo(image.version());
    }

    @Test
    void storingTheSameGenerationAgainChangesNothing() {
        MetadataImage stored = image.apply(new StoreClassicGroup(generation("g", 3, "m1")));
        assertThat(stored.apply(new StoreClassicGroup(generation("g", 3, "m1"))))
                .as("a resent command")
                .isSameAs(stored);
    }

    @Test
    void deletingAGroupRemovesItAndDeletingItAgainChangesNothing() {
        MetadataImage stored = image.apply(new StoreClassicGroup(generation("g", 1, "m1")))
                .apply(new StoreClassicGroup(generation("h", 1)));
        MetadataImage deleted = stored.apply(new DeleteClassicGroup("g"));
        assertThat(deleted.classicGroups().get("g")).isEmpty();
        assertThat(deleted.classicGroups().asMap()).containsOnlyKeys("h");
        assertThat(deleted.version()).isEqualTo(image.version());
        assertThat(deleted.apply(new DeleteClassicGroup("g"))).isSameAs(deleted);
        assertThat(deleted.apply(new DeleteClassicGroup("h")).classicGroups()).isEqualTo(ClassicGroups.EMPTY);
    }

    @Test
    void anEmptyGroupIdOrAMemberIdEmptyOrTwiceIsInvalid() {
        assertThatThrownBy(() -> image.apply(new StoreClassicGroup(generation("", 1, "m1"))))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> image.apply(new DeleteClassicGroup(""))).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> image.apply(new StoreClassicGroup(generation("g", 1, "m1", "m1"))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("'m1' is empty or twice");
        assertThatThrownBy(() -> image.apply(new StoreClassicGroup(generation("g", 1, ""))))
                .isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void offsetsAndClassicRecordsAreDeletedEachByTheirOwnCommand() {
        MetadataImage both = image.apply(new StoreClassicGroup(generation("g", 1, "m1")))
                .apply(new CommitOffsets("g", Map.of(A0, new CommittedOffset(5, 0, "", 0))));
        MetadataImage withoutOffsets = both.apply(new DeleteGroupOffsets("g"));
        assertThat(withoutOffsets.committedOffsets().of("g")).isEmpty();
        assertThat(withoutOffsets.classicGroups().get("g"))
                .as("DeleteGroupOffsets keeps the classic record: DeleteGroups sends DeleteClassicGroup too")
                .isPresent();
        MetadataImage withoutRecord = both.apply(new DeleteClassicGroup("g"));
        assertThat(withoutRecord.classicGroups().get("g")).isEmpty();
        assertThat(withoutRecord.committedOffsets()).isSameAs(both.committedOffsets());
    }

    @Test
    void otherCommandsKeepTheClassicGroups() {
        MetadataImage stored = image.apply(new StoreClassicGroup(generation("g", 1, "m1")));
        MetadataImage next = stored.apply(createTopic("c", List.of(List.of(1))))
                .apply(new MetadataCommand.FenceBroker(1, Fixtures.incarnation(1, 0)))
                .apply(new MetadataCommand.AllocateProducerIds(0, 10))
                .apply(new CommitOffsets("g", Map.of(A0, new CommittedOffset(5, 0, "", 0))))
                .apply(new DeleteTopic("a"));
        assertThat(next.classicGroups()).isSameAs(stored.classicGroups());
    }
}
