package io.tributary.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.group.OffsetRetention.ClassicGroupView;
import io.tributary.coordinator.group.OffsetRetention.ClassicPhase;
import io.tributary.coordinator.group.OffsetRetention.ConsumerGroupView;
import io.tributary.coordinator.group.OffsetRetention.Expiry;
import io.tributary.coordinator.group.OffsetRetention.GroupView;
import io.tributary.coordinator.group.OffsetRetention.SimpleGroupView;
import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.metadata.TopicPartition;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Offsets retention's decision, by example (each group type's rule as Kafka 4.4 has it) and over a
 * seeded model: random groups of every type and state, random commit and state timestamps around
 * the retention boundary, a random clock and retention, compared with a reference rule written
 * from the README's sentences, group type by group type.
 */
class OffsetRetentionTest {

    private static final long DAY_MS = Duration.ofDays(1).toMillis();
    private static final long NOW_MS = 1_900_000_000_000L;
    private static final OffsetRetention WEEK = new OffsetRetention(Duration.ofDays(7));

    private static CommittedOffset committedAt(long timestampMs) {
        return new CommittedOffset(10, -1, "", timestampMs);
    }

    private static TopicPartition tp(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }

    private static SortedSet<TopicPartition> set(TopicPartition... partitions) {
        return new TreeSet<>(List.of(partitions));
    }

    // ------------------------------------------------------------------------------------------
    // By example

    @Test
    void aSimpleGroupsOffsetsExpireEachFromItsOwnCommitAndTheGroupGoesWithTheLast() {
        var offsets = Map.of(
                tp("a", 0), committedAt(NOW_MS - 8 * DAY_MS),
                tp("a", 1), committedAt(NOW_MS - DAY_MS));

        Expiry first = WEEK.expire(new SimpleGroupView("g"), offsets, NOW_MS);
        Expiry later =
                WEEK.expire(new SimpleGroupView("g"), Map.of(tp("a", 1), offsets.get(tp("a", 1))), NOW_MS + 6 * DAY_MS);

        assertThat(first).isEqualTo(new Expiry("g", set(tp("a", 0)), false));
        assertThat(later).isEqualTo(new Expiry("g", set(tp("a", 1)), true));
    }

    @Test
    void anOffsetExpiresExactlyWhenTheRetentionHasPassed() {
        var offsets =
                Map.of(tp("a", 0), committedAt(NOW_MS - 7 * DAY_MS), tp("a", 1), committedAt(NOW_MS - 7 * DAY_MS + 1));

        assertThat(WEEK.expire(new SimpleGroupView("g"), offsets, NOW_MS).expired())
                .containsExactly(tp("a", 0));
    }

    @Test
    void anEmptyClassicGroupsOffsetsExpireTogetherFromWhenItBecameEmptyWhateverTheirCommits() {
        var offsets = Map.of(tp("a", 0), committedAt(NOW_MS - 30 * DAY_MS), tp("b", 0), committedAt(NOW_MS - 1));
        var emptyFor6Days = new ClassicGroupView(
                "g", Optional.of("consumer"), ClassicPhase.EMPTY, NOW_MS - 6 * DAY_MS, Optional.of(Set.of()));
        var emptyFor7Days = new ClassicGroupView(
                "g", Optional.of("connect"), ClassicPhase.EMPTY, NOW_MS - 7 * DAY_MS, Optional.of(Set.of()));

        assertThat(WEEK.expire(emptyFor6Days, offsets, NOW_MS).isNothing())
                .as("a 30-day-old commit is kept while the group has not been empty for the retention")
                .isTrue();
        assertThat(WEEK.expire(emptyFor7Days, offsets, NOW_MS))
                .as("a commit made a moment ago goes with the rest")
                .isEqualTo(new Expiry("g", set(tp("a", 0), tp("b", 0)), true));
    }

    @Test
    void aStableConsumerClassicGroupLosesOnlyOldOffsetsOfTopicsItNoLongerSubscribesTo() {
        var offsets = Map.of(
                tp("subscribed", 0), committedAt(NOW_MS - 30 * DAY_MS),
                tp("dropped", 0), committedAt(NOW_MS - 8 * DAY_MS),
                tp("dropped", 1), committedAt(NOW_MS - DAY_MS));
        var stable = new ClassicGroupView(
                "g",
                Optional.of("consumer"),
                ClassicPhase.STABLE,
                NOW_MS - 40 * DAY_MS,
                Optional.of(Set.of("subscribed")));

        assertThat(WEEK.expire(stable, offsets, NOW_MS)).isEqualTo(new Expiry("g", set(tp("dropped", 0)), false));
    }

    @Test
    void aRebalancingClassicGroupOneOfAnotherProtocolAndOneWithUnreadableSubscriptionsKeepEverything() {
        var offsets = Map.of(tp("a", 0), committedAt(NOW_MS - 30 * DAY_MS));
        long longAgo = NOW_MS - 40 * DAY_MS;
        List<GroupView> keepers = List.of(
                new ClassicGroupView(
                        "g", Optional.of("consumer"), ClassicPhase.REBALANCING, longAgo, Optional.of(Set.of())),
                new ClassicGroupView("g", Optional.of("connect"), ClassicPhase.STABLE, longAgo, Optional.empty()),
                new ClassicGroupView("g", Optional.of("consumer"), ClassicPhase.STABLE, longAgo, Optional.empty()));

        for (GroupView group : keepers) {
            assertThat(WEEK.expire(group, offsets, NOW_MS).isNothing())
                    .as("%s", group)
                    .isTrue();
        }
    }

    @Test
    void aClassicGroupThatNeverHadAMemberIsASimpleGroup() {
        var offsets = Map.of(tp("a", 0), committedAt(NOW_MS - 8 * DAY_MS), tp("a", 1), committedAt(NOW_MS - DAY_MS));
        var neverJoined = new ClassicGroupView(
                "g", Optional.empty(), ClassicPhase.EMPTY, NOW_MS - 30 * DAY_MS, Optional.of(Set.of()));

        assertThat(WEEK.expire(neverJoined, offsets, NOW_MS)).isEqualTo(new Expiry("g", set(tp("a", 0)), false));
    }

    @Test
    void aKip848GroupWithMembersLosesOldOffsetsOfUnsubscribedTopicsButIsNeverDeleted() {
        var offsets = Map.of(
                tp("subscribed", 0),
                committedAt(NOW_MS - 30 * DAY_MS),
                tp("other", 0),
                committedAt(NOW_MS - 8 * DAY_MS));

        assertThat(WEEK.expire(new ConsumerGroupView("g", false, Set.of("subscribed")), offsets, NOW_MS))
                .isEqualTo(new Expiry("g", set(tp("other", 0)), false));
        assertThat(WEEK.expire(
                        new ConsumerGroupView("g", false, Set.of()),
                        Map.of(tp("other", 0), offsets.get(tp("other", 0))),
                        NOW_MS))
                .as("a group with members keeps its membership even when its offsets all expired")
                .isEqualTo(new Expiry("g", set(tp("other", 0)), false));
    }

    @Test
    void anEmptyKip848GroupExpiresByCommitTimestampsAndGoesWithItsLastOffset() {
        var offsets = Map.of(tp("a", 0), committedAt(NOW_MS - 8 * DAY_MS), tp("a", 1), committedAt(NOW_MS - DAY_MS));

        assertThat(WEEK.expire(new ConsumerGroupView("g", true, Set.of()), offsets, NOW_MS))
                .isEqualTo(new Expiry("g", set(tp("a", 0)), false));
        assertThat(WEEK.expire(new ConsumerGroupView("g", true, Set.of()), offsets, NOW_MS + 6 * DAY_MS))
                .isEqualTo(new Expiry("g", set(tp("a", 0), tp("a", 1)), true));
    }

    @Test
    void anEmptyGroupWithoutOffsetsIsDeletedAndOneWithMembersIsNot() {
        assertThat(WEEK.expire(new ConsumerGroupView("g", true, Set.of()), Map.of(), NOW_MS))
                .isEqualTo(new Expiry("g", set(), true));
        assertThat(WEEK.expire(
                        new ClassicGroupView(
                                "g", Optional.of("consumer"), ClassicPhase.EMPTY, NOW_MS, Optional.of(Set.of())),
                        Map.of(),
                        NOW_MS))
                .as("just emptied, nothing to wait for: Kafka deletes it at its next check too")
                .isEqualTo(new Expiry("g", set(), true));
        assertThat(WEEK.expire(new ConsumerGroupView("g", false, Set.of("a")), Map.of(), NOW_MS)
                        .isNothing())
                .isTrue();
    }

    @Test
    void aRetentionThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> new OffsetRetention(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------
    // Seeded model against a reference rule

    /** How often the seeds reached each outcome, checked after the last seed. */
    private static final Map<String, Integer> coverage = new TreeMap<>();

    private static synchronized void count(String what, int n) {
        coverage.merge(what, n, Integer::sum);
    }

    static List<Long> seeds() {
        return java.util.stream.LongStream.range(0, 300).boxed().toList();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theDecisionIsTheReferenceRulesOverRandomGroups(long seed) {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        long retentionMs = 1 + random.nextLong(10 * DAY_MS);
        OffsetRetention retention = new OffsetRetention(Duration.ofMillis(retentionMs));
        long nowMs = NOW_MS + random.nextLong(DAY_MS);
        List<String> topics = List.of("a", "b", "c", "d");
        for (int i = 0; i < 20; i++) {
            GroupView group = randomGroup(random, "g" + i, topics, nowMs, retentionMs);
            Map<TopicPartition, CommittedOffset> offsets = new TreeMap<>();
            int count = random.nextInt(6);
            for (int j = 0; j < count; j++) {
                offsets.put(
                        tp(topics.get(random.nextInt(topics.size())), random.nextInt(3)),
                        committedAt(aroundBoundary(random, nowMs, retentionMs)));
            }

            Expiry actual = retention.expire(group, offsets, nowMs);
            Expiry expected = reference(group, offsets, nowMs, retentionMs);

            assertThat(actual)
                    .as(
                            "seed %d, group %s, offsets %s, now %d, retention %d ms",
                            seed, group, offsets, nowMs, retentionMs)
                    .isEqualTo(expected);
            count("offsets expired", actual.expired().size());
            count("offsets kept", offsets.size() - actual.expired().size());
            count("groups deleted", actual.deleteGroup() ? 1 : 0);
            count("groups deleted with offsets", actual.deleteGroup() && !offsets.isEmpty() ? 1 : 0);
            count(
                    "groups losing some offsets only",
                    !actual.deleteGroup() && !actual.expired().isEmpty() ? 1 : 0);
        }
    }

    @AfterAll
    static void theSeedsReachedEveryOutcome() {
        System.out.println("offsets retention model coverage: " + coverage);
        // about half of what the 300 seeds give
        assertThat(coverage.getOrDefault("offsets expired", 0)).isGreaterThan(2500);
        assertThat(coverage.getOrDefault("offsets kept", 0)).isGreaterThan(3500);
        assertThat(coverage.getOrDefault("groups deleted with offsets", 0)).isGreaterThan(450);
        assertThat(coverage.getOrDefault("groups losing some offsets only", 0)).isGreaterThan(1000);
    }

    /** A timestamp at most twice the retention before now, often within a millisecond of the boundary. */
    private static long aroundBoundary(RandomGenerator random, long nowMs, long retentionMs) {
        if (random.nextInt(4) == 0) {
            return nowMs - retentionMs + random.nextInt(3) - 1;
        }
        return nowMs - random.nextLong(2 * retentionMs + 1);
    }

    /** A group as the coordinator can hold one: consistent type, state and subscriptions. */
    private static GroupView randomGroup(
            RandomGenerator random, String groupId, List<String> topics, long nowMs, long retentionMs) {
        Set<String> subscribed = new HashSet<>();
        for (String topic : topics) {
            if (random.nextBoolean()) {
                subscribed.add(topic);
            }
        }
        return switch (random.nextInt(3)) {
            case 0 -> new SimpleGroupView(groupId);
            case 1 -> {
                boolean empty = random.nextBoolean();
                yield new ConsumerGroupView(groupId, empty, empty ? Set.of() : subscribed);
            }
            default -> {
                long stateSinceMs = aroundBoundary(random, nowMs, retentionMs);
                if (random.nextInt(5) == 0) {
                    // never had a member: no protocol type, Empty
                    yield new ClassicGroupView(
                            groupId, Optional.empty(), ClassicPhase.EMPTY, stateSinceMs, Optional.of(Set.of()));
                }
                String type = random.nextInt(3) == 0 ? "connect" : "consumer";
                ClassicPhase phase = ClassicPhase.values()[random.nextInt(3)];
                Optional<Set<String>> topicsOfMembers;
                if (phase == ClassicPhase.EMPTY) {
                    topicsOfMembers = Optional.of(Set.of());
                } else if (type.equals("consumer") && random.nextInt(5) > 0) {
                    topicsOfMembers = Optional.of(subscribed);
                } else {
                    topicsOfMembers = Optional.empty();
                }
                yield new ClassicGroupView(groupId, Optional.of(type), phase, stateSinceMs, topicsOfMembers);
            }
        };
    }

    /**
     * The README's rule, sentence by sentence: a simple group, each offset from its commit; a KIP-848
     * group, unsubscribed topics from their commits; a classic group without protocol type, as a
     * simple group; an Empty classic group, everything once it has been empty for the retention; a
     * Stable {@code consumer} classic group with known subscriptions, unsubscribed topics from their
     * commits; any other classic group, nothing. The group goes when it has no members and nothing
     * is left.
     */
    private static Expiry reference(
            GroupView group, Map<TopicPartition, CommittedOffset> offsets, long nowMs, long retentionMs) {
        SortedSet<TopicPartition> expired = new TreeSet<>();
        boolean noMembers;
        switch (group) {
            case SimpleGroupView simple -> {
                noMembers = true;
                offsets.forEach((partition, offset) -> {
                    if (nowMs - offset.commitTimestampMs() >= retentionMs) {
                        expired.add(partition);
                    }
                });
            }
            case ConsumerGroupView consumer -> {
                noMembers = consumer.empty();
                offsets.forEach((partition, offset) -> {
                    if (!consumer.subscribedTopics().contains(partition.topic())
                            && nowMs - offset.commitTimestampMs() >= retentionMs) {
                        expired.add(partition);
                    }
                });
            }
            case ClassicGroupView classic -> {
                noMembers = classic.phase() == ClassicPhase.EMPTY;
                if (classic.protocolType().isEmpty()) {
                    offsets.forEach((partition, offset) -> {
                        if (nowMs - offset.commitTimestampMs() >= retentionMs) {
                            expired.add(partition);
                        }
                    });
                } else if (classic.phase() == ClassicPhase.EMPTY) {
                    if (nowMs - classic.stateTimestampMs() >= retentionMs) {
                        expired.addAll(offsets.keySet());
                    }
                } else if (classic.phase() == ClassicPhase.STABLE
                        && classic.protocolType().get().equals("consumer")
                        && classic.subscribedTopics().isPresent()) {
                    offsets.forEach((partition, offset) -> {
                        if (!classic.subscribedTopics().get().contains(partition.topic())
                                && nowMs - offset.commitTimestampMs() >= retentionMs) {
                            expired.add(partition);
                        }
                    });
                }
            }
        }
        return new Expiry(group.groupId(), expired, noMembers && expired.size() == offsets.size());
    }
}
