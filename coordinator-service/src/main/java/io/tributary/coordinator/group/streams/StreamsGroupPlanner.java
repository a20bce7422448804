package io.tributary.coordinator.group.streams;

import io.tributary.coordinator.group.TopicView;
import io.tributary.coordinator.group.streams.StreamsGroup.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a streams group's members are working towards, for {@link StreamsGroupCoordinator} (under its
 * lock): the topology resolved against the topics (bumping the group epoch when that changes), the
 * target assignment computed by {@link StickyTaskAssignor} when the group epoch is ahead, the
 * endpoints members serve interactive queries from, and the statuses a member is told. The
 * coordinator keeps membership, epochs and reconciliation.
 */
final class StreamsGroupPlanner {

    private static final Logger log = LoggerFactory.getLogger(StreamsGroupPlanner.class);

    private final StreamsGroupConfig streamsConfig;
    private final TopicView topics;

    StreamsGroupPlanner(StreamsGroupConfig streamsConfig, TopicView topics) {
        this.streamsConfig = Objects.requireNonNull(streamsConfig, "streamsConfig");
        this.topics = Objects.requireNonNull(topics, "topics");
    }

    static List<StreamsStatus> statuses(StreamsGroup group, Member member, long nowMs) {
        List<StreamsStatus> statuses = new ArrayList<>();
        if (group.topology != null && member.topologyEpoch < group.topology.epoch()) {
            statuses.add(new StreamsStatus(
                    StreamsStatus.Code.STALE_TOPOLOGY,
                    "The member's topology epoch " + member.topologyEpoch + " is behind the group's "
                            + group.topology.epoch() + "."));
        }
        if (group.resolved != null) {
            statuses.addAll(group.resolved.statuses());
        }
        if (assignmentDelayed(group, nowMs)) {
            statuses.add(new StreamsStatus(
                    StreamsStatus.Code.ASSIGNMENT_DELAYED,
                    "Assignment delayed due to the configured initial rebalance delay."));
        }
        group.shutdownRequestedBy.ifPresent(by -> statuses.add(new StreamsStatus(
                StreamsStatus.Code.SHUTDOWN_APPLICATION, "Member " + by + " requested the application to shut down.")));
        return statuses;
    }

    /** Bumps the group epoch when what the topology resolves to changed. */
    /** Whether a new group's first assignment still waits for the initial rebalance delay. */
    static boolean assignmentDelayed(StreamsGroup group, long nowMs) {
        return nowMs < group.assignmentDelayedUntilMs && group.groupEpoch > group.assignmentEpoch;
    }

    void refreshTopology(StreamsGroup group) {
        if (group.topology == null) {
            return;
        }
        ResolvedTopology now = TopologyResolver.resolve(group.topology, topics);
        if (!now.equals(group.resolved)) {
            boolean first = group.resolved == null;
            group.resolved = now;
            if (!first) {
                group.bump("topology resolves differently: " + now.statuses());
            }
        }
    }

    void computeTargetIfNeeded(StreamsGroup group, long nowMs) {
        if (group.groupEpoch <= group.assignmentEpoch || assignmentDelayed(group, nowMs)) {
            return;
        }
        SortedMap<String, StickyTaskAssignor.MemberSpec> specs = new TreeMap<>();
        for (Member member : group.members.values()) {
            specs.put(
                    member.memberId,
                    new StickyTaskAssignor.MemberSpec(
                            member.processId, group.target.getOrDefault(member.memberId, Tasks.EMPTY)));
        }
        SortedSet<TaskId> tasks = group.resolved == null ? new TreeSet<>() : group.resolved.allTasks();
        group.target = new TreeMap<>(StickyTaskAssignor.assign(specs, tasks, streamsConfig.standbyReplicas()));
        group.assignmentEpoch = group.groupEpoch;
        log.debug("streams group {}: target assignment at epoch {}", group.groupId, group.assignmentEpoch);
    }

    /** Recomputes who serves which partitions (interactive queries); bumps the endpoint epoch on change. */
    void refreshEndpoints(StreamsGroup group) {
        List<StreamsHeartbeatResponse.EndpointPartitions> now = new ArrayList<>();
        if (group.topology != null && group.resolved != null) {
            for (Member member : group.members.values()) {
                if (member.userEndpoint != null) {
                    now.add(new StreamsHeartbeatResponse.EndpointPartitions(
                            member.userEndpoint,
                            partitions(group, member.assigned.active()),
                            partitions(group, member.assigned.standby())));
                }
            }
        }
        if (!now.equals(group.endpoints)) {
            group.endpoints = List.copyOf(now);
            group.endpointInformationEpoch++;
        }
    }

    /** The source partitions (user and repartition topics) of {@code tasks}, by topic. */
    private SortedMap<String, List<Integer>> partitions(StreamsGroup group, SortedSet<TaskId> tasks) {
        SortedMap<String, SortedSet<Integer>> byTopic = new TreeMap<>();
        for (TaskId task : tasks) {
            StreamsTopology.Subtopology subtopology =
                    group.topology.subtopologies().get(task.subtopologyId());
            if (subtopology == null) {
                continue;
            }
            for (String topic : TopologyResolver.sources(subtopology)) {
                int count = group.resolved.internalPartitions().containsKey(topic)
                        ? group.resolved.internalPartitions().get(topic)
                        : topics.byName(topic)
                                .map(TopicView.TopicInfo::partitionCount)
                                .orElse(0);
                if (task.partition() < count) {
                    byTopic.computeIfAbsent(topic, k -> new TreeSet<>()).add(task.partition());
                }
            }
        }
        SortedMap<String, List<Integer>> result = new TreeMap<>();
        byTopic.forEach((topic, partitions) -> result.put(topic, List.copyOf(partitions)));
        return result;
    }
}
