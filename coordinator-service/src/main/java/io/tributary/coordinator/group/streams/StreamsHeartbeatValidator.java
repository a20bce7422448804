package io.tributary.coordinator.group.streams;

import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.MemberRules;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;

/**
 * The checks of a StreamsGroupHeartbeat before the state machine looks at the group, in Kafka 4.4's
 * order and with its messages (INVALID_REQUEST), then Tributary's bounds (id lengths, topic names
 * per topology) and the topology's own consistency (STREAMS_INVALID_TOPOLOGY).
 */
final class StreamsHeartbeatValidator {

    private final GroupConfig config;
    private final StreamsGroupConfig streamsConfig;

    StreamsHeartbeatValidator(GroupConfig config, StreamsGroupConfig streamsConfig) {
        this.config = config;
        this.streamsConfig = streamsConfig;
    }

    void validate(StreamsHeartbeatRequest request) {
        if (request.memberId().isBlank()) {
            throw invalid("MemberId can't be empty.");
        }
        if (request.groupId().isBlank()) {
            throw invalid("GroupId can't be empty.");
        }
        if (request.instanceId().filter(String::isBlank).isPresent()) {
            throw invalid("InstanceId can't be empty.");
        }
        if (request.rackId().filter(String::isBlank).isPresent()) {
            throw invalid("RackId can't be empty.");
        }
        int epoch = request.memberEpoch();
        if (epoch == StreamsHeartbeatRequest.JOIN_EPOCH) {
            if (request.rebalanceTimeoutMs() == -1) {
                throw invalid("RebalanceTimeoutMs must be provided in first request.");
            }
            if (request.ownedTasks().filter(tasks -> !tasks.isEmpty()).isPresent()) {
                throw invalid("ActiveTasks, StandbyTasks and WarmupTasks must be empty when (re-)joining.");
            }
            if (request.topology().isEmpty()) {
                throw invalid("Topology must be non-null when (re-)joining.");
            }
            checkTopology(request.topology().get());
        } else if (epoch == StreamsHeartbeatRequest.STATIC_LEAVE_EPOCH) {
            if (request.instanceId().isEmpty()) {
                throw invalid("InstanceId can't be null.");
            }
        } else if (epoch < StreamsHeartbeatRequest.STATIC_LEAVE_EPOCH) {
            throw invalid("MemberEpoch is " + epoch + ", but must be greater than or equal to -2.");
        }
        if (epoch != StreamsHeartbeatRequest.JOIN_EPOCH && request.topology().isPresent()) {
            throw invalid("Topology can only be provided when (re-)joining.");
        }
        if (request.rebalanceTimeoutMs() < -1) {
            throw invalid("RebalanceTimeoutMs must be -1 or more.");
        }
        checkLength("GroupId", request.groupId());
        checkLength("MemberId", request.memberId());
        request.instanceId().ifPresent(id -> checkLength("InstanceId", id));
        request.rackId().ifPresent(id -> checkLength("RackId", id));
        request.processId().ifPresent(id -> checkLength("ProcessId", id));
    }

    private void checkTopology(StreamsTopology topology) {
        int names = 0;
        Set<String> changelogs = new HashSet<>();
        for (StreamsTopology.Subtopology subtopology : topology.subtopologies().values()) {
            names += subtopology.sourceTopics().size()
                    + subtopology.repartitionSinkTopics().size()
                    + subtopology.stateChangelogTopics().size()
                    + subtopology.repartitionSourceTopics().size();
            for (StreamsTopology.InternalTopic changelog : subtopology.stateChangelogTopics()) {
                if (changelog.partitions() != 0) {
                    throw new GroupException(
                            Errors.STREAMS_INVALID_TOPOLOGY,
                            "Changelog topic " + changelog.name()
                                    + " must have an undefined partition count, but it is set to "
                                    + changelog.partitions() + ".");
                }
                if (!changelogs.add(changelog.name())) {
                    throw new GroupException(
                            Errors.STREAMS_INVALID_TOPOLOGY,
                            "Changelog topic " + changelog.name() + " belongs to more than one subtopology.");
                }
            }
            if (subtopology.sourceTopics().isEmpty()
                    && subtopology.repartitionSourceTopics().isEmpty()) {
                throw new GroupException(
                        Errors.STREAMS_INVALID_TOPOLOGY, "Subtopology " + subtopology.id() + " has no source topics.");
            }
        }
        if (names > streamsConfig.maxTopologyTopics()) {
            throw new GroupException(
                    Errors.STREAMS_INVALID_TOPOLOGY,
                    "the topology names " + names + " topics, more than " + streamsConfig.maxTopologyTopics()
                            + " (tributary.coordinator.groups.streams.max-topology-topics)");
        }
    }

    private void checkLength(String field, String value) {
        MemberRules.checkIdLength(config, field, value);
    }

    private static GroupException invalid(String message) {
        return MemberRules.invalid(message);
    }
}
