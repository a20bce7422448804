package io.tributary.systemtests.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupTimeline}: the figures {@code bin/bench-groups} reports are read from it, so each
 * rule is shown on a hand-written sequence of member lines (times in nanoseconds).
 */
class GroupTimelineTest {

    private final GroupTimeline timeline = new GroupTimeline();

    @Test
    void anEagerJoinIsSettledOnlyOnceTheNewMemberOwnsPartitionsAndNoneIsOwnedTwice() {
        timeline.add("m1", "A 100 1 0,1,2,3");
        timeline.add("m2", "A 110 1 4,5,6,7");
        timeline.add("m3", "A 120 1 8,9,10,11");
        List<String> four = List.of("m1", "m2", "m3", "m4");
        assertThat(timeline.settled(List.of("m1", "m2", "m3"), 12)).isTrue();
        assertThat(timeline.settled(four, 12)).as("m4 owns nothing yet").isFalse();

        timeline.add("m4", "S 200");
        timeline.add("m1", "R 300 1 0,1,2,3");
        timeline.add("m2", "R 310 1 4,5,6,7");
        timeline.add("m3", "R 320 1 8,9,10,11");
        timeline.add("m1", "A 400 2 0,1,2");
        timeline.add("m2", "A 410 2 3,4,5");
        timeline.add("m3", "A 420 2 6,7,8");
        assertThat(timeline.settled(four, 12)).isFalse();
        timeline.add("m4", "A 430 2 9,10,11");

        assertThat(timeline.settled(four, 12)).isTrue();
        assertThat(timeline.lastOwnershipChangeAfter(200)).hasValue(430);
        assertThat(timeline.generationsAfter(200)).containsExactly(2);
    }

    @Test
    void aCooperativeJoinEndsAtTheSecondRebalanceAndItsEmptyCallbacksMoveNothing() {
        timeline.add("m1", "A 100 1 0,1,2,3");
        timeline.add("m2", "A 110 1 4,5,6,7");
        timeline.add("m3", "A 120 1 8,9,10,11");
        timeline.add("m4", "S 200");
        // First rebalance: each gives up what moves, the newcomer gets nothing yet.
        timeline.add("m1", "R 300 2 3");
        timeline.add("m2", "R 310 2 7");
        timeline.add("m3", "R 320 2 11");
        timeline.add("m4", "A 330 2 -");
        // Second: the newcomer gets them; the others are told of no change.
        timeline.add("m4", "A 500 3 3,7,11");
        timeline.add("m1", "A 510 3 -");

        assertThat(timeline.settled(List.of("m1", "m2", "m3", "m4"), 12)).isTrue();
        assertThat(timeline.lastOwnershipChangeAfter(200)).hasValue(500);
        assertThat(timeline.lastAfter(200, "ARL")).hasValue(510);
        assertThat(timeline.generationsAfter(200)).containsExactly(2, 3);
    }

    @Test
    void aKilledMembersPartitionsCountOnlyOnceTheSurvivorsOwnThem() {
        timeline.add("m1", "A 100 1 0,1");
        timeline.add("m2", "A 110 1 2,3");
        timeline.add("m3", "A 120 1 4,5");
        List<String> survivors = List.of("m1", "m2");
        assertThat(timeline.settled(survivors, 6)).isFalse();

        timeline.add("m1", "A 900 2 4");
        assertThat(timeline.settled(survivors, 6)).isFalse();
        timeline.add("m2", "A 910 2 5");
        assertThat(timeline.settled(survivors, 6)).isTrue();
    }

    @Test
    void partitionsOwnedTwiceAreNotSettled() {
        timeline.add("m1", "A 100 1 0,1,2");
        timeline.add("m2", "A 110 1 2,3");

        assertThat(timeline.settled(List.of("m1", "m2"), 4)).isFalse();
    }

    @Test
    void theLongestGapCountsPairsWhoseLaterDeliveryIsInTheWindowAndOnlyThatMembers() {
        timeline.add("m1", "D 100 0 0 0 1");
        timeline.add("m1", "D 150 0 1 1 1");
        timeline.add("m2", "D 160 1 0 0 1");
        timeline.add("m1", "D 900 0 2 2 1");
        timeline.add("m1", "D 950 0 3 3 1");

        assertThat(timeline.longestGap("m1", 200, Long.MAX_VALUE)).isEqualTo(750);
        assertThat(timeline.longestGap("m1", 0, 200)).isEqualTo(50);
        assertThat(timeline.longestGap("m1", 950, Long.MAX_VALUE)).isZero();
    }

    @Test
    void aRecordDeliveredTwiceCountsOnceInDeliveredOnce() {
        timeline.add("m1", "D 100 0 0 9 10");
        timeline.add("m2", "D 200 0 5 14 10");
        timeline.add("m2", "D 300 1 0 4 5");

        assertThat(timeline.delivered()).isEqualTo(25);
        assertThat(timeline.deliveredOnce()).isEqualTo(20);
    }

    @Test
    void aRebalanceIsNoticedAtTheHeartbeatAnsweredBeforeAMembersJoin() {
        timeline.add("m1", "H 100 1");
        timeline.add("m2", "H 120 1");
        timeline.add("bench", "K 150");
        timeline.add("m1", "H 1100 2");
        timeline.add("m2", "H 1120 2");
        timeline.add("m2", "H 2120 3");
        timeline.add("m1", "H 2100 3");
        timeline.add("m1", "J 2130 2");
        timeline.add("m2", "J 2130 2");
        timeline.add("m1", "H 3100 4");

        assertThat(timeline.noticedAfter(List.of("m1", "m2"), 150)).hasValue(2100);
        assertThat(timeline.noticedAfter(List.of("m1", "m2"), 2130)).isEmpty();
    }

    @Test
    void eventsAfterAKillAreCountedByKind() {
        timeline.add("m3", "H 100 1");
        timeline.add("m1", "A 120 1 0");
        timeline.add("bench", "K 1500");
        timeline.add("m1", "H 2100 3");
        timeline.add("m1", "J 2200 2");
        timeline.add("m1", "R 2300 2 0");

        assertThat(timeline.countAfter(1500, "ARL")).isEqualTo(1);
        assertThat(timeline.countAfter(1500, "J")).isEqualTo(1);
        assertThat(timeline.countAfter(0, "ARL")).isEqualTo(2);
    }
}
