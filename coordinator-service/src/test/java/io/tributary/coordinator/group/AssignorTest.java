package io.tributary.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Properties of both assignors over many seeds; a failure names its seed. */
class AssignorTest {

    static LongStream seeds() {
        return LongStream.range(0, 300);
    }

    private record Case(Assignor.Spec spec, List<UUID> topics) {}

    private static Case randomCase(SplittableRandom random, boolean homogeneous) {
        int topicCount = 1 + random.nextInt(4);
        SortedMap<UUID, Integer> counts = new TreeMap<>();
        List<UUID> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) {
            UUID id = new UUID(1, t);
            topics.add(id);
            counts.put(id, 1 + random.nextInt(12));
        }
        int memberCount = 1 + random.nextInt(8);
        SortedMap<String, Assignor.MemberSpec> members = new TreeMap<>();
        for (int m = 0; m < memberCount; m++) {
            Set<UUID> subscribed = new HashSet<>();
            for (UUID topic : topics) {
                if (homogeneous || random.nextInt(3) > 0) {
                    subscribed.add(topic);
                }
            }
            SortedSet<TopicIdPartition> previous = new TreeSet<>();
            for (UUID topic : topics) {
                for (int p = 0; p < counts.get(topic) + 2; p++) {
                    if (random.nextInt(memberCount + 1) == 0) {
                        previous.add(new TopicIdPartition(topic, p)); // may overlap others' or not exist
                    }
                }
            }
            members.put("m" + m, new Assignor.MemberSpec(subscribed, previous));
        }
        return new Case(new Assignor.Spec(members, counts), topics);
    }

    private static void assertValid(
            Assignor.Spec spec, SortedMap<String, SortedSet<TopicIdPartition>> result, long seed) {
        assertThat(result.keySet())
                .as("seed %d: every member has an entry", seed)
                .isEqualTo(spec.members().keySet());
        Map<TopicIdPartition, String> owner = new HashMap<>();
        result.forEach((member, partitions) -> {
            for (TopicIdPartition partition : partitions) {
                assertThat(owner.put(partition, member))
                        .as("seed %d: %s assigned twice", seed, partition)
                        .isNull();
                assertThat(Assignor.exists(spec, partition))
                        .as("seed %d: %s exists", seed, partition)
                        .isTrue();
                assertThat(spec.members().get(member).subscribedTopicIds())
                        .as("seed %d: %s subscribes to %s", seed, member, partition)
                        .contains(partition.topicId());
            }
        });
        spec.partitionCounts().forEach((topic, count) -> {
            boolean subscribed = spec.members().values().stream()
                    .anyMatch(m -> m.subscribedTopicIds().contains(topic));
            for (int p = 0; p < count; p++) {
                assertThat(owner.containsKey(new TopicIdPartition(topic, p)))
                        .as("seed %d: %s-%d assigned iff someone subscribes", seed, topic, p)
                        .isEqualTo(subscribed);
            }
        });
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void uniformAssignsEveryPartitionOnceAndBalancesAsFarAsSubscriptionsAllow(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Case c = randomCase(random, random.nextBoolean());
        var result = new UniformAssignor().assign(c.spec());

        assertValid(c.spec(), result, seed);
        result.forEach((a, aParts) -> result.forEach((b, bParts) -> {
            if (aParts.size() > bParts.size() + 1) {
                Set<UUID> bTopics = c.spec().members().get(b).subscribedTopicIds();
                assertThat(aParts)
                        .as("seed %d: %s (%d) could give one to %s (%d)", seed, a, aParts.size(), b, bParts.size())
                        .noneMatch(p -> bTopics.contains(p.topicId()));
            }
        }));
        assertThat(new UniformAssignor().assign(c.spec()))
                .as("seed %d: deterministic", seed)
                .isEqualTo(result);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void uniformWithIdenticalSubscriptionsIsBalancedAndKeepsWhatItCan(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Case c = randomCase(random, true);
        var first = new UniformAssignor().assign(c.spec());
        int total = c.spec().partitionCounts().values().stream()
                .mapToInt(Integer::intValue)
                .sum();
        int min = first.values().stream().mapToInt(Set::size).min().orElseThrow();
        int max = first.values().stream().mapToInt(Set::size).max().orElseThrow();
        assertThat(max - min).as("seed %d: balanced", seed).isLessThanOrEqualTo(1);

        // One more member: the others keep at least their new fair share of what they had.
        SortedMap<String, Assignor.MemberSpec> members = new TreeMap<>();
        Set<UUID> all = c.spec().partitionCounts().keySet();
        first.forEach((member, partitions) -> members.put(member, new Assignor.MemberSpec(all, partitions)));
        members.put("new", new Assignor.MemberSpec(all, new TreeSet<>()));
        var second =
                new UniformAssignor().assign(new Assignor.Spec(members, c.spec().partitionCounts()));
        int floor = total / members.size();
        first.forEach((member, before) -> {
            Set<TopicIdPartition> kept = new HashSet<>(before);
            kept.retainAll(second.get(member));
            assertThat(kept.size())
                    .as("seed %d: %s kept %s of %s", seed, member, kept, before)
                    .isGreaterThanOrEqualTo(Math.min(before.size(), floor));
        });
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void rangeAssignsContiguousRangesAndCoPartitionsTopicsOfEqualSize(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Case c = randomCase(random, random.nextBoolean());
        var result = new RangeAssignor().assign(c.spec());

        assertValid(c.spec(), result, seed);
        for (UUID topic : c.topics()) {
            List<Integer> sizes = new ArrayList<>();
            result.forEach((member, partitions) -> {
                if (c.spec().members().get(member).subscribedTopicIds().contains(topic)) {
                    List<Integer> mine = partitions.stream()
                            .filter(p -> p.topicId().equals(topic))
                            .map(TopicIdPartition::partition)
                            .toList();
                    sizes.add(mine.size());
                    if (!mine.isEmpty()) {
                        assertThat(mine.getLast() - mine.getFirst() + 1)
                                .as("seed %d: contiguous", seed)
                                .isEqualTo(mine.size());
                    }
                }
            });
            assertThat(sizes.stream().mapToInt(i -> i).max().orElse(0)
                            - sizes.stream().mapToInt(i -> i).min().orElse(0))
                    .as("seed %d: per-topic sizes", seed)
                    .isLessThanOrEqualTo(1);
        }
        // Co-partitioned: topics of equal size and equal subscribers give each member the same indexes.
        for (UUID a : c.topics()) {
            for (UUID b : c.topics()) {
                boolean sameSubscribers = c.spec().members().values().stream()
                        .allMatch(m -> m.subscribedTopicIds().contains(a)
                                == m.subscribedTopicIds().contains(b));
                if (!a.equals(b)
                        && sameSubscribers
                        && c.spec()
                                .partitionCounts()
                                .get(a)
                                .equals(c.spec().partitionCounts().get(b))) {
                    result.forEach((member, partitions) -> assertThat(indexes(partitions, a))
                            .as("seed %d: %s co-partitioned", seed, member)
                            .isEqualTo(indexes(partitions, b)));
                }
            }
        }
    }

    private static List<Integer> indexes(Set<TopicIdPartition> partitions, UUID topic) {
        return partitions.stream()
                .filter(p -> p.topicId().equals(topic))
                .map(TopicIdPartition::partition)
                .sorted()
                .toList();
    }
}
