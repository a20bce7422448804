package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.streams.ResolvedTopology;
import io.tributary.coordinator.group.streams.StreamsGroupDescription;
import io.tributary.coordinator.group.streams.StreamsHeartbeatRequest;
import io.tributary.coordinator.group.streams.StreamsTopology;
import io.tributary.coordinator.group.streams.TaskId;
import io.tributary.coordinator.group.streams.Tasks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.StreamsGroupDescribeRequest;
import org.apache.kafka.common.requests.StreamsGroupDescribeResponse;

/**
 * StreamsGroupDescribe (API 89), versions 0 and 1: a streams group's state, epochs, topology (its
 * subtopologies as configured: internal topics with their partition counts, user source topics
 * only; none while the topology is not ready, as Kafka), and members with their assignment and
 * target. Version 1's topology description is never stored here: {@code TopologyDescriptionStatus}
 * is NOT_REQUESTED (0) or NOT_STORED (1); its {@code AssignorName} is {@code sticky}. A group that is
 * not a streams group, or unknown, is GROUP_ID_NOT_FOUND.
 *
 * <p>Thread-safe.
 */
public final class StreamsGroupDescribeHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.STREAMS_GROUP_DESCRIBE, 0, 1);

    /** The assignor this coordinator uses for every streams group. */
    static final String ASSIGNOR = "sticky";

    static final byte TOPOLOGY_DESCRIPTION_NOT_REQUESTED = 0;
    static final byte TOPOLOGY_DESCRIPTION_NOT_STORED = 1;

    private final GroupService service;

    public StreamsGroupDescribeHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        StreamsGroupDescribeRequestData data =
                request.body(StreamsGroupDescribeRequest.class).data();
        var response = new StreamsGroupDescribeResponseData();
        Errors leaderError = Errors.NONE;
        try {
            service.requireLeader();
        } catch (GroupException e) {
            leaderError = e.error();
        }
        for (String groupId : data.groupIds()) {
            var described = new DescribedGroup().setGroupId(groupId);
            Optional<StreamsGroupDescription> group =
                    leaderError == Errors.NONE ? service.streams().describe(groupId) : Optional.empty();
            if (leaderError != Errors.NONE) {
                described.setErrorCode(leaderError.code()).setErrorMessage(leaderError.message());
            } else if (groupId.isEmpty()) {
                described.setErrorCode(Errors.INVALID_GROUP_ID.code()).setErrorMessage("the group id is empty");
            } else if (group.isEmpty()) {
                described
                        .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage(
                                GroupViews.exists(service, groupId)
                                        ? "Group " + groupId + " is not a streams group."
                                        : "Group " + groupId + " not found.");
            } else {
                describe(group.get(), described);
                described.setTopologyDescriptionStatus(
                        data.includeTopologyDescription()
                                ? TOPOLOGY_DESCRIPTION_NOT_STORED
                                : TOPOLOGY_DESCRIPTION_NOT_REQUESTED);
            }
            response.groups().add(described);
        }
        return new StreamsGroupDescribeResponse(response);
    }

    private static void describe(StreamsGroupDescription group, DescribedGroup out) {
        out.setGroupState(group.state())
                .setGroupEpoch(group.groupEpoch())
                .setAssignmentEpoch(group.assignmentEpoch())
                .setAssignorName(ASSIGNOR);
        group.topology().ifPresent(topology -> out.setTopology(topology(topology, group.resolved())));
        for (StreamsGroupDescription.Member member : group.members()) {
            out.members()
                    .add(new StreamsGroupDescribeResponseData.Member()
                            .setMemberId(member.memberId())
                            .setMemberEpoch(member.memberEpoch())
                            .setInstanceId(member.instanceId().orElse(null))
                            .setRackId(member.rackId().orElse(null))
                            .setClientId(member.clientId())
                            .setClientHost(member.clientHost())
                            .setTopologyEpoch(member.topologyEpoch())
                            .setProcessId(member.processId())
                            .setUserEndpoint(member.userEndpoint()
                                    .map(StreamsGroupDescribeHandler::endpoint)
                                    .orElse(null))
                            .setClientTags(keyValues(member.clientTags()))
                            .setTaskOffsets(offsets(member.taskOffsets()))
                            .setTaskEndOffsets(offsets(member.taskEndOffsets()))
                            .setAssignment(assignment(member.assignment()))
                            .setTargetAssignment(assignment(member.target()))
                            .setIsClassic(false));
        }
    }

    private static StreamsGroupDescribeResponseData.Topology topology(
            StreamsTopology topology, Optional<ResolvedTopology> resolved) {
        var out = new StreamsGroupDescribeResponseData.Topology().setEpoch(topology.epoch());
        if (resolved.isEmpty() || !resolved.get().ready()) {
            return out.setSubtopologies(null);
        }
        Map<String, Integer> partitions = resolved.get().internalPartitions();
        List<StreamsGroupDescribeResponseData.Subtopology> subtopologies = new ArrayList<>();
        for (StreamsTopology.Subtopology subtopology : topology.subtopologies().values()) {
            List<String> repartitionSources = subtopology.repartitionSourceTopics().stream()
                    .map(StreamsTopology.InternalTopic::name)
                    .toList();
            subtopologies.add(new StreamsGroupDescribeResponseData.Subtopology()
                    .setSubtopologyId(subtopology.id())
                    .setSourceTopics(subtopology.sourceTopics().stream()
                            .filter(name -> !repartitionSources.contains(name))
                            .toList())
                    .setRepartitionSinkTopics(subtopology.repartitionSinkTopics())
                    .setStateChangelogTopics(topicInfos(subtopology.stateChangelogTopics(), partitions))
                    .setRepartitionSourceTopics(topicInfos(subtopology.repartitionSourceTopics(), partitions)));
        }
        return out.setSubtopologies(subtopologies);
    }

    private static List<StreamsGroupDescribeResponseData.TopicInfo> topicInfos(
            List<StreamsTopology.InternalTopic> topics, Map<String, Integer> partitions) {
        List<StreamsGroupDescribeResponseData.TopicInfo> out = new ArrayList<>();
        for (StreamsTopology.InternalTopic topic : topics) {
            List<StreamsGroupDescribeResponseData.KeyValue> configs = new ArrayList<>();
            topic.configs()
                    .forEach((key, value) -> configs.add(new StreamsGroupDescribeResponseData.KeyValue()
                            .setKey(key)
                            .setValue(value)));
            out.add(new StreamsGroupDescribeResponseData.TopicInfo()
                    .setName(topic.name())
                    .setPartitions(partitions.getOrDefault(topic.name(), topic.partitions()))
                    .setReplicationFactor(topic.replicationFactor())
                    .setTopicConfigs(configs));
        }
        return out;
    }

    private static StreamsGroupDescribeResponseData.Endpoint endpoint(StreamsHeartbeatRequest.Endpoint endpoint) {
        return new StreamsGroupDescribeResponseData.Endpoint()
                .setHost(endpoint.host())
                .setPort(endpoint.port());
    }

    private static List<StreamsGroupDescribeResponseData.KeyValue> keyValues(Map<String, String> tags) {
        List<StreamsGroupDescribeResponseData.KeyValue> out = new ArrayList<>();
        new TreeMap<>(tags)
                .forEach((key, value) -> out.add(new StreamsGroupDescribeResponseData.KeyValue()
                        .setKey(key)
                        .setValue(value)));
        return out;
    }

    private static List<StreamsGroupDescribeResponseData.TaskOffset> offsets(
            List<StreamsHeartbeatRequest.TaskOffset> offsets) {
        return offsets.stream()
                .map(o -> new StreamsGroupDescribeResponseData.TaskOffset()
                        .setSubtopologyId(o.subtopologyId())
                        .setPartition(o.partition())
                        .setOffset(o.offset()))
                .toList();
    }

    private static StreamsGroupDescribeResponseData.Assignment assignment(Tasks tasks) {
        return new StreamsGroupDescribeResponseData.Assignment()
                .setActiveTasks(taskIds(tasks.active()))
                .setStandbyTasks(taskIds(tasks.standby()))
                .setWarmupTasks(taskIds(tasks.warmup()));
    }

    private static List<StreamsGroupDescribeResponseData.TaskIds> taskIds(SortedSet<TaskId> tasks) {
        List<StreamsGroupDescribeResponseData.TaskIds> out = new ArrayList<>();
        Tasks.bySubtopology(tasks)
                .forEach((subtopology, partitions) -> out.add(new StreamsGroupDescribeResponseData.TaskIds()
                        .setSubtopologyId(subtopology)
                        .setPartitions(partitions)));
        return out;
    }
}
