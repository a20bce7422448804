package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.kafka.GroupHistory.Assigned;
import io.tributary.systemtests.kafka.GroupHistory.CommitFailed;
import io.tributary.systemtests.kafka.GroupHistory.Committed;
import io.tributary.systemtests.kafka.GroupHistory.Crashed;
import io.tributary.systemtests.kafka.GroupHistory.Delivered;
import io.tributary.systemtests.kafka.GroupHistory.Event;
import io.tributary.systemtests.kafka.GroupHistory.Lost;
import io.tributary.systemtests.kafka.GroupHistory.Revoked;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupHistory}'s checks on hand-made histories, one anomaly each, so that {@code
 * ConsumerGroupIT} passing means something; and the child member's line format round trip.
 */
class GroupHistoryTest {

    @Test
    void aCleanHandOverWithCommitsHasNoViolation() {
        GroupHistory history = history(
                new Assigned("a", Set.of(0, 1)),
                new Delivered("a", 0, 0, 100),
                new Delivered("a", 1, 0, 101),
                new Committed("a", Map.of(0, 1L, 1, 1L)),
                new Revoked("a", Set.of(1)),
                new Assigned("b", Set.of(1)),
                new Delivered("b", 1, 1, 103));

        assertThat(history.ownershipViolations()).isEmpty();
        assertThat(history.redeliveryViolations()).isEmpty();
        assertThat(history.owners()).isEqualTo(Map.of(0, "a", 1, "b"));
        assertThat(history.deliveredValues()).containsExactlyInAnyOrder(100L, 101L, 103L);
        assertThat(history.deliveredOffsets()).isEqualTo(Map.of(0, Set.of(0L), 1, Set.of(0L, 1L)));
    }

    @Test
    void aPartitionAssignedBeforeItsOwnerGaveItUpIsAViolation() {
        GroupHistory history =
                history(new Assigned("a", Set.of(0, 1)), new Assigned("b", Set.of(1)), new Revoked("a", Set.of(1)));

        assertThat(history.ownershipViolations())
                .singleElement()
                .asString()
                .contains("partition 1 assigned to b while a still owns it");
    }

    @Test
    void aRecordOfAPartitionTheMemberDoesNotOwnIsAViolation() {
        GroupHistory history =
                history(new Assigned("a", Set.of(0)), new Revoked("a", Set.of(0)), new Delivered("a", 0, 5, 5));

        assertThat(history.ownershipViolations()).singleElement().asString().contains("owned by null");
    }

    @Test
    void aRecordBelowTheCommittedOffsetDeliveredAgainIsAViolationEvenAfterACrash() {
        GroupHistory history = history(
                new Assigned("a", Set.of(0)),
                new Delivered("a", 0, 0, 10),
                new Delivered("a", 0, 1, 11),
                new Committed("a", Map.of(0, 2L)),
                new Crashed("a"),
                new Assigned("b", Set.of(0)),
                new Delivered("b", 0, 1, 11));

        assertThat(history.ownershipViolations()).isEmpty();
        assertThat(history.redeliveryViolations()).singleElement().asString().contains("below its committed offset 2");
    }

    @Test
    void uncommittedRecordsOfACrashedMemberMayBeDeliveredAgainButNotAfterACleanHandOver() {
        List<Event> handOver = List.of(
                new Assigned("a", Set.of(0, 1)),
                new Delivered("a", 0, 0, 10),
                new Delivered("a", 1, 0, 20),
                new Committed("a", Map.of(0, 1L, 1, 1L)),
                new Delivered("a", 0, 1, 11));
        GroupHistory crashed = history(handOver);
        crashed.add(new Crashed("a"));
        crashed.add(new Assigned("b", Set.of(0, 1)));
        crashed.add(new Delivered("b", 0, 1, 11));
        assertThat(crashed.redeliveryViolations()).isEmpty();
        assertThat(crashed.ownershipViolations()).isEmpty();

        GroupHistory revoked = history(handOver);
        revoked.add(new Revoked("a", Set.of(0, 1)));
        revoked.add(new Assigned("b", Set.of(0, 1)));
        revoked.add(new Delivered("b", 0, 1, 11));
        assertThat(revoked.redeliveryViolations())
                .singleElement()
                .asString()
                .contains("again, with no crash, lost partition or failed commit");
    }

    @Test
    void aLostPartitionOrAFailedCommitExplainsARepeat() {
        GroupHistory lost = history(
                new Assigned("a", Set.of(0)),
                new Delivered("a", 0, 0, 10),
                new Lost("a", Set.of(0)),
                new Assigned("b", Set.of(0)),
                new Delivered("b", 0, 0, 10));
        assertThat(lost.redeliveryViolations()).isEmpty();

        GroupHistory failed = history(
                new Assigned("a", Set.of(0)),
                new Delivered("a", 0, 0, 10),
                new CommitFailed("a", Map.of(0, 1L), "CommitFailedException"),
                new Delivered("a", 0, 0, 10));
        assertThat(failed.redeliveryViolations()).isEmpty();
    }

    @Test
    void aCommitLowerThanOneBeforeIsARegressionButAFailedOneIsNot() {
        GroupHistory history = history(
                new Committed("a", Map.of(0, 5L, 1, 3L)),
                new CommitFailed("b", Map.of(0, 2L), "CommitFailedException"),
                new Committed("b", Map.of(1, 3L)),
                new Committed("b", Map.of(0, 4L)));

        assertThat(history.commitRegressions())
                .singleElement()
                .asString()
                .contains("b committed 4 for partition 0 after 5 was committed");
        assertThat(history(new Committed("a", Map.of(0, 5L)), new Committed("b", Map.of(0, 5L)))
                        .commitRegressions())
                .isEmpty();
    }

    @Test
    void aCrashedMemberOwnsNothingAndAssignmentsSinceAPositionAreFound() {
        GroupHistory history = history(new Assigned("a", Set.of(0, 1)), new Assigned("b", Set.of(2)));
        int mark = history.size();
        history.add(new Crashed("a"));
        history.add(new Assigned("c", Set.of(1)));

        assertThat(history.owners()).isEqualTo(Map.of(1, "c", 2, "b"));
        assertThat(history.ownedBy("a")).isEmpty();
        assertThat(history.assignedSince(mark, Set.of(0, 1))).containsExactly("c");
        assertThat(history.assignedSince(0, Set.of(2))).containsExactly("b");
    }

    @Test
    void theChildMembersLinesRoundTrip() {
        List<Event> events = List.of(
                new Assigned("m", Set.of(0, 3, 11)),
                new Revoked("m", Set.of(3)),
                new Lost("m", Set.of(0)),
                new Delivered("m", 3, 41, 1207),
                new Committed("m", Map.of(3, 42L, 7, 10L)),
                new CommitFailed("m", Map.of(3, 42L), "org.apache.kafka.clients.consumer.CommitFailedException: x y"));
        for (Event event : events) {
            assertThat(ChildGroupMember.parse("m", ChildGroupMember.format(event)))
                    .as(ChildGroupMember.format(event))
                    .isEqualTo(event);
        }
    }

    private static GroupHistory history(Event... events) {
        return history(List.of(events));
    }

    private static GroupHistory history(List<Event> events) {
        GroupHistory history = new GroupHistory();
        events.forEach(history::add);
        return history;
    }
}
