package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.streams.StreamsHeartbeatRequest;
import io.tributary.coordinator.group.streams.StreamsHeartbeatResponse;
import io.tributary.coordinator.group.streams.StreamsStatus;
import io.tributary.coordinator.group.streams.StreamsTopology;
import io.tributary.coordinator.group.streams.TaskId;
import io.tributary.coordinator.group.streams.Tasks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatRequest;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;

/**
 * StreamsGroupHeartbeat (API 88), versions 0 and 1 (KIP-1071; v1 adds the response's {@code
 * TopologyDescriptionRequired}, always false here: this coordinator stores no topology
 * descriptions, so clients never send StreamsGroupTopologyDescriptionUpdate), served by {@link
 * io.tributary.coordinator.group.streams.StreamsGroupCoordinator} through {@link
 * GroupService#heartbeatStreams}. Errors are the response's top-level error code and message. The
 * status {@code MISSING_CLIENT_TAGS} (6, v1 only) is never sent: no rack-aware standby assignment.
 *
 * <p>Thread-safe.
 */
public final class StreamsGroupHeartbeatHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.STREAMS_GROUP_HEARTBEAT, 0, 1);

    private final GroupService service;

    public StreamsGroupHeartbeatHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        StreamsGroupHeartbeatRequestData data =
                request.body(StreamsGroupHeartbeatRequest.class).data();
        try {
            service.requireLeader();
            StreamsHeartbeatResponse response = service.heartbeatStreams(new StreamsHeartbeatRequest(
                    data.groupId(),
                    data.memberId(),
                    data.memberEpoch(),
                    data.endpointInformationEpoch(),
                    Optional.ofNullable(data.instanceId()),
                    Optional.ofNullable(data.rackId()),
                    data.rebalanceTimeoutMs(),
                    Optional.ofNullable(data.topology()).map(StreamsGroupHeartbeatHandler::topology),
                    owned(data),
                    Optional.ofNullable(data.processId()),
                    Optional.ofNullable(data.userEndpoint())
                            .map(e -> new StreamsHeartbeatRequest.Endpoint(e.host(), e.port())),
                    Optional.ofNullable(data.clientTags()).map(StreamsGroupHeartbeatHandler::tags),
                    Optional.ofNullable(data.taskOffsets()).map(StreamsGroupHeartbeatHandler::offsets),
                    Optional.ofNullable(data.taskEndOffsets()).map(StreamsGroupHeartbeatHandler::offsets),
                    data.shutdownApplication(),
                    Optional.ofNullable(request.header().clientId()).orElse(""),
                    request.connection().remoteAddress().getHostString()));
            return new StreamsGroupHeartbeatResponse(
                    answer(response, request.header().apiVersion()));
        } catch (GroupException e) {
            return error(e.error(), e.getMessage());
        } catch (IllegalArgumentException e) {
            return error(Errors.INVALID_REQUEST, e.getMessage());
        }
    }

    private StreamsGroupHeartbeatResponseData answer(StreamsHeartbeatResponse response, short version) {
        var out = new StreamsGroupHeartbeatResponseData()
                .setMemberId(response.memberId())
                .setMemberEpoch(response.memberEpoch())
                .setHeartbeatIntervalMs(response.heartbeatIntervalMs())
                .setTaskOffsetIntervalMs(service.streams().taskOffsetIntervalMs())
                .setAcceptableRecoveryLag(service.streams().acceptableRecoveryLag())
                .setEndpointInformationEpoch(response.endpointInformationEpoch());
        if (version == 0) {
            // v0's int32 field; v1 has only the int64 one (writing the other fails).
            out.setAcceptableRecoveryLagLegacy(
                    (int) Math.min(Integer.MAX_VALUE, service.streams().acceptableRecoveryLag()));
        }
        List<StreamsGroupHeartbeatResponseData.Status> statuses = new ArrayList<>();
        for (StreamsStatus status : response.statuses()) {
            statuses.add(new StreamsGroupHeartbeatResponseData.Status()
                    .setStatusCode(status.code().wire())
                    .setStatusDetail(status.detail()));
        }
        out.setStatus(statuses);
        response.assignment()
                .ifPresent(tasks -> out.setActiveTasks(taskIds(tasks.active()))
                        .setStandbyTasks(taskIds(tasks.standby()))
                        .setWarmupTasks(taskIds(tasks.warmup())));
        response.partitionsByUserEndpoint().ifPresent(endpoints -> {
            List<StreamsGroupHeartbeatResponseData.EndpointToPartitions> list = new ArrayList<>();
            for (var endpoint : endpoints) {
                list.add(new StreamsGroupHeartbeatResponseData.EndpointToPartitions()
                        .setUserEndpoint(new StreamsGroupHeartbeatResponseData.Endpoint()
                                .setHost(endpoint.endpoint().host())
                                .setPort(endpoint.endpoint().port()))
                        .setActivePartitions(topicPartitions(endpoint.active()))
                        .setStandbyPartitions(topicPartitions(endpoint.standby())));
            }
            out.setPartitionsByUserEndpoint(list);
        });
        return out;
    }

    private static StreamsGroupHeartbeatResponse error(Errors error, String message) {
        return new StreamsGroupHeartbeatResponse(new StreamsGroupHeartbeatResponseData()
                .setErrorCode(error.code())
                .setErrorMessage(message)
                .setMemberEpoch(-1));
    }

    /** The wire topology as the core's (copartition groups' indexes turned into topic names). */
    static StreamsTopology topology(StreamsGroupHeartbeatRequestData.Topology topology) {
        Map<String, StreamsTopology.Subtopology> subtopologies = new TreeMap<>();
        for (var subtopology : topology.subtopologies()) {
            if (!subtopology.sourceTopicRegex().isEmpty()) {
                throw new IllegalArgumentException("Regular expressions for source topics are not supported yet.");
            }
            List<StreamsTopology.InternalTopic> repartitionSources = internal(subtopology.repartitionSourceTopics());
            List<List<String>> copartition = new ArrayList<>();
            for (var group : subtopology.copartitionGroups()) {
                List<String> names = new ArrayList<>();
                for (short index : group.sourceTopics()) {
                    names.add(at(subtopology.sourceTopics(), index).orElseThrow(() -> badIndex(subtopology)));
                }
                for (short index : group.repartitionSourceTopics()) {
                    names.add(at(repartitionSources, index)
                            .map(StreamsTopology.InternalTopic::name)
                            .orElseThrow(() -> badIndex(subtopology)));
                }
                copartition.add(names);
            }
            if (subtopologies.containsKey(subtopology.subtopologyId())) {
                throw new IllegalArgumentException("subtopology " + subtopology.subtopologyId() + " appears twice");
            }
            subtopologies.put(
                    subtopology.subtopologyId(),
                    new StreamsTopology.Subtopology(
                            subtopology.subtopologyId(),
                            subtopology.sourceTopics(),
                            subtopology.repartitionSinkTopics(),
                            internal(subtopology.stateChangelogTopics()),
                            repartitionSources,
                            copartition));
        }
        return new StreamsTopology(topology.epoch(), new TreeMap<>(subtopologies));
    }

    private static <T> Optional<T> at(List<T> list, short index) {
        return index >= 0 && index < list.size() ? Optional.of(list.get(index)) : Optional.empty();
    }

    private static IllegalArgumentException badIndex(StreamsGroupHeartbeatRequestData.Subtopology subtopology) {
        return new IllegalArgumentException(
                "a copartition group of subtopology " + subtopology.subtopologyId() + " names a topic it lacks");
    }

    private static List<StreamsTopology.InternalTopic> internal(
            List<StreamsGroupHeartbeatRequestData.TopicInfo> infos) {
        List<StreamsTopology.InternalTopic> topics = new ArrayList<>();
        for (var info : infos) {
            topics.add(new StreamsTopology.InternalTopic(
                    info.name(), info.partitions(), info.replicationFactor(), tags(info.topicConfigs())));
        }
        return topics;
    }

    private static Map<String, String> tags(List<StreamsGroupHeartbeatRequestData.KeyValue> pairs) {
        Map<String, String> map = new TreeMap<>();
        for (var pair : pairs) {
            map.put(pair.key(), pair.value());
        }
        return map;
    }

    private static List<StreamsHeartbeatRequest.TaskOffset> offsets(
            List<StreamsGroupHeartbeatRequestData.TaskOffset> offsets) {
        return offsets.stream()
                .map(o -> new StreamsHeartbeatRequest.TaskOffset(o.subtopologyId(), o.partition(), o.offset()))
                .toList();
    }

    /** What the member says it owns: all three lists, or none (null: unchanged). */
    private static Optional<Tasks> owned(StreamsGroupHeartbeatRequestData data) {
        if (data.activeTasks() == null && data.standbyTasks() == null && data.warmupTasks() == null) {
            return Optional.empty();
        }
        if (data.activeTasks() == null || data.standbyTasks() == null || data.warmupTasks() == null) {
            throw new IllegalArgumentException("If one task-type is non-null, all must be non-null.");
        }
        return Optional.of(new Tasks(tasks(data.activeTasks()), tasks(data.standbyTasks()), tasks(data.warmupTasks())));
    }

    private static SortedSet<TaskId> tasks(List<StreamsGroupHeartbeatRequestData.TaskIds> ids) {
        SortedSet<TaskId> tasks = new TreeSet<>();
        for (var id : ids) {
            for (int partition : id.partitions()) {
                tasks.add(new TaskId(id.subtopologyId(), partition));
            }
        }
        return tasks;
    }

    static List<StreamsGroupHeartbeatResponseData.TaskIds> taskIds(SortedSet<TaskId> tasks) {
        List<StreamsGroupHeartbeatResponseData.TaskIds> out = new ArrayList<>();
        Tasks.bySubtopology(tasks)
                .forEach((subtopology, partitions) -> out.add(new StreamsGroupHeartbeatResponseData.TaskIds()
                        .setSubtopologyId(subtopology)
                        .setPartitions(partitions)));
        return out;
    }

    private static List<StreamsGroupHeartbeatResponseData.TopicPartition> topicPartitions(
            Map<String, List<Integer>> byTopic) {
        List<StreamsGroupHeartbeatResponseData.TopicPartition> out = new ArrayList<>();
        byTopic.forEach((topic, partitions) -> out.add(new StreamsGroupHeartbeatResponseData.TopicPartition()
                .setTopic(topic)
                .setPartitions(partitions)));
        return out;
    }
}
