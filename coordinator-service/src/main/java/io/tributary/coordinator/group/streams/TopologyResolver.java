package io.tributary.coordinator.group.streams;

import io.tributary.coordinator.group.TopicView;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Resolves a streams topology against the topics that exist (KIP-1071's "configured topology"):
 *
 * <ol>
 *   <li>every user source topic must exist, else {@code MISSING_SOURCE_TOPICS} (and nothing else is
 *       derived: partition counts come from the sources);
 *   <li>a repartition topic without a partition count in the topology gets the largest partition
 *       count among the source topics of the subtopologies writing it, repeated until nothing
 *       changes (a repartition topic fed by another); one that still has none is {@code
 *       INCORRECTLY_PARTITIONED_TOPICS};
 *   <li>each copartition group: its user topics must agree on their partition count (else {@code
 *       INCORRECTLY_PARTITIONED_TOPICS}), and its repartition topics without a fixed count take
 *       that count (the group's largest repartition count when it has no user topic);
 *   <li>a subtopology has as many tasks as its source topics' largest partition count; its
 *       changelog topics have that many partitions;
 *   <li>an internal topic that exists with another partition count is {@code
 *       INCORRECTLY_PARTITIONED_TOPICS}; one that does not exist is to be created, and {@code
 *       MISSING_INTERNAL_TOPICS} until it does.
 * </ol>
 *
 * The topology is ready (tasks may be assigned) when none of these statuses applies.
 *
 * <p>Stateless and thread-safe.
 */
public final class TopologyResolver {

    private TopologyResolver() {}

    public static ResolvedTopology resolve(StreamsTopology topology, TopicView topics) {
        Map<String, StreamsTopology.InternalTopic> repartition = new LinkedHashMap<>();
        for (StreamsTopology.Subtopology subtopology : topology.subtopologies().values()) {
            for (StreamsTopology.InternalTopic topic : subtopology.repartitionSourceTopics()) {
                repartition.putIfAbsent(topic.name(), topic);
            }
        }
        SortedMap<String, SortedSet<String>> bySource = new TreeMap<>();
        SortedSet<String> missing = new TreeSet<>();
        Map<String, Integer> partitions = new TreeMap<>();
        for (StreamsTopology.Subtopology subtopology : topology.subtopologies().values()) {
            for (String source : sources(subtopology)) {
                bySource.computeIfAbsent(source, k -> new TreeSet<>()).add(subtopology.id());
                if (repartition.containsKey(source)) {
                    continue;
                }
                Optional<TopicView.TopicInfo> info = topics.byName(source);
                if (info.isEmpty()) {
                    missing.add(source);
                } else {
                    partitions.put(source, info.get().partitionCount());
                }
            }
        }
        if (!missing.isEmpty()) {
            return notReady(
                    new StreamsStatus(
                            StreamsStatus.Code.MISSING_SOURCE_TOPICS, "Source topics " + missing + " are missing."),
                    bySource);
        }
        List<String> problems = new ArrayList<>();
        Set<String> fixed = new HashSet<>();
        repartition.values().stream().filter(t -> t.partitions() > 0).forEach(t -> {
            partitions.put(t.name(), t.partitions());
            fixed.add(t.name());
        });
        deriveRepartitionCounts(topology, repartition, partitions);
        enforceCopartitioning(topology, repartition, fixed, partitions, problems);
        for (String name : repartition.keySet()) {
            if (!partitions.containsKey(name)) {
                problems.add("the partition count of repartition topic " + name + " cannot be derived");
            }
        }
        SortedMap<String, Integer> taskCounts = new TreeMap<>();
        SortedMap<String, Integer> internal = new TreeMap<>();
        List<StreamsTopology.InternalTopic> wanted = new ArrayList<>();
        for (StreamsTopology.Subtopology subtopology : topology.subtopologies().values()) {
            int tasks = 0;
            for (String source : sources(subtopology)) {
                tasks = Math.max(tasks, partitions.getOrDefault(source, 0));
            }
            taskCounts.put(subtopology.id(), tasks);
            for (StreamsTopology.InternalTopic changelog : subtopology.stateChangelogTopics()) {
                if (tasks > 0 && internal.putIfAbsent(changelog.name(), tasks) == null) {
                    wanted.add(withPartitions(changelog, tasks));
                }
            }
        }
        for (StreamsTopology.InternalTopic topic : repartition.values()) {
            Integer count = partitions.get(topic.name());
            if (count != null && internal.putIfAbsent(topic.name(), count) == null) {
                wanted.add(withPartitions(topic, count));
            }
        }
        List<StreamsTopology.InternalTopic> toCreate = new ArrayList<>();
        for (StreamsTopology.InternalTopic topic : wanted) {
            Optional<TopicView.TopicInfo> info = topics.byName(topic.name());
            if (info.isEmpty()) {
                toCreate.add(topic);
            } else if (info.get().partitionCount() != topic.partitions()) {
                problems.add("internal topic " + topic.name() + " has "
                        + info.get().partitionCount() + " partitions, not " + topic.partitions());
            }
        }
        List<StreamsStatus> statuses = new ArrayList<>();
        if (!problems.isEmpty()) {
            statuses.add(new StreamsStatus(
                    StreamsStatus.Code.INCORRECTLY_PARTITIONED_TOPICS, String.join("; ", problems) + "."));
        }
        if (!toCreate.isEmpty()) {
            statuses.add(new StreamsStatus(
                    StreamsStatus.Code.MISSING_INTERNAL_TOPICS,
                    "Internal topics are missing: "
                            + toCreate.stream()
                                    .map(StreamsTopology.InternalTopic::name)
                                    .sorted()
                                    .toList()
                            + "."));
        }
        return new ResolvedTopology(
                statuses.isEmpty() ? taskCounts : new TreeMap<>(), statuses, toCreate, internal, bySource);
    }

    private static ResolvedTopology notReady(StreamsStatus status, SortedMap<String, SortedSet<String>> bySource) {
        return new ResolvedTopology(new TreeMap<>(), List.of(status), List.of(), new TreeMap<>(), bySource);
    }

    /** A subtopology's source topics: its user topics and the repartition topics it reads. */
    static SortedSet<String> sources(StreamsTopology.Subtopology subtopology) {
        SortedSet<String> sources = new TreeSet<>(subtopology.sourceTopics());
        for (StreamsTopology.InternalTopic topic : subtopology.repartitionSourceTopics()) {
            sources.add(topic.name());
        }
        return sources;
    }

    private static StreamsTopology.InternalTopic withPartitions(StreamsTopology.InternalTopic topic, int count) {
        return new StreamsTopology.InternalTopic(topic.name(), count, topic.replicationFactor(), topic.configs());
    }

    /**
     * Gives each repartition topic without a count the largest source partition count of the
     * subtopologies writing it, as long as that makes progress (a chain of repartition topics is
     * resolved in as many rounds as it is long).
     */
    private static void deriveRepartitionCounts(
            StreamsTopology topology,
            Map<String, StreamsTopology.InternalTopic> repartition,
            Map<String, Integer> partitions) {
        boolean progress = true;
        while (progress) {
            progress = false;
            for (String name : repartition.keySet()) {
                if (partitions.containsKey(name)) {
                    continue;
                }
                int count = 0;
                for (StreamsTopology.Subtopology writer :
                        topology.subtopologies().values()) {
                    if (!writer.repartitionSinkTopics().contains(name)) {
                        continue;
                    }
                    for (String source : sources(writer)) {
                        count = Math.max(count, partitions.getOrDefault(source, 0));
                    }
                }
                if (count > 0) {
                    partitions.put(name, count);
                    progress = true;
                }
            }
        }
    }

    private static void enforceCopartitioning(
            StreamsTopology topology,
            Map<String, StreamsTopology.InternalTopic> repartition,
            Set<String> fixed,
            Map<String, Integer> partitions,
            List<String> problems) {
        for (StreamsTopology.Subtopology subtopology : topology.subtopologies().values()) {
            for (List<String> group : subtopology.copartitionGroups()) {
                SortedSet<Integer> userCounts = new TreeSet<>();
                int largestRepartition = 0;
                for (String topic : group) {
                    Integer count = partitions.get(topic);
                    if (!repartition.containsKey(topic)) {
                        if (count != null) {
                            userCounts.add(count);
                        }
                    } else if (count != null) {
                        largestRepartition = Math.max(largestRepartition, count);
                    }
                }
                if (userCounts.size() > 1) {
                    problems.add("copartitioned topics " + group + " have different partition counts " + userCounts);
                    continue;
                }
                int count = userCounts.isEmpty() ? largestRepartition : userCounts.first();
                if (count == 0) {
                    continue;
                }
                for (String topic : group) {
                    if (!repartition.containsKey(topic)) {
                        continue;
                    }
                    if (!fixed.contains(topic)) {
                        partitions.put(topic, count);
                    } else if (partitions.get(topic) != count) {
                        problems.add("repartition topic " + topic + " has " + partitions.get(topic)
                                + " partitions but is copartitioned with topics of " + count);
                    }
                }
            }
        }
    }
}
