package io.tributary.coordinator.group.streams;

import io.tributary.coordinator.group.MemberRules;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One StreamsGroupHeartbeat, as the state machine needs it. An empty optional is the wire's null:
 * "unchanged since the last heartbeat".
 *
 * @param groupId the group (the application id)
 * @param memberId the member id the client generated
 * @param memberEpoch 0 to join, -1 to leave, -2 for a static member leaving for now, else its epoch
 * @param endpointInformationEpoch the endpoint epoch the client last received
 * @param instanceId the static instance id
 * @param rackId the member's rack
 * @param rebalanceTimeoutMs -1 when unchanged
 * @param topology the topology, only when joining
 * @param ownedTasks the tasks the member owns (active, standby, warm-up)
 * @param processId the member's process (one per Kafka Streams instance, shared by its threads)
 * @param userEndpoint its interactive-queries endpoint
 * @param clientTags its client tags
 * @param taskOffsets cumulative changelog offsets of its tasks
 * @param taskEndOffsets cumulative changelog end offsets of its tasks
 * @param shutdownApplication whether it asks every member of the group to shut down
 * @param clientId the request header's client id
 * @param clientHost the client's address
 */
public record StreamsHeartbeatRequest(
        String groupId,
        String memberId,
        int memberEpoch,
        int endpointInformationEpoch,
        Optional<String> instanceId,
        Optional<String> rackId,
        int rebalanceTimeoutMs,
        Optional<StreamsTopology> topology,
        Optional<Tasks> ownedTasks,
        Optional<String> processId,
        Optional<Endpoint> userEndpoint,
        Optional<Map<String, String>> clientTags,
        Optional<List<TaskOffset>> taskOffsets,
        Optional<List<TaskOffset>> taskEndOffsets,
        boolean shutdownApplication,
        String clientId,
        String clientHost) {

    public static final int JOIN_EPOCH = 0;
    public static final int LEAVE_EPOCH = -1;
    public static final int STATIC_LEAVE_EPOCH = MemberRules.STATIC_LEAVE_EPOCH;

    public StreamsHeartbeatRequest {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(rackId, "rackId");
        Objects.requireNonNull(topology, "topology");
        Objects.requireNonNull(ownedTasks, "ownedTasks");
        Objects.requireNonNull(processId, "processId");
        Objects.requireNonNull(userEndpoint, "userEndpoint");
        clientTags = clientTags.map(Map::copyOf);
        taskOffsets = taskOffsets.map(List::copyOf);
        taskEndOffsets = taskEndOffsets.map(List::copyOf);
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(clientHost, "clientHost");
    }

    /** A host and port for interactive queries. */
    public record Endpoint(String host, int port) implements Comparable<Endpoint> {
        public Endpoint {
            Objects.requireNonNull(host, "host");
        }

        @Override
        public int compareTo(Endpoint other) {
            int byHost = host.compareTo(other.host);
            return byHost != 0 ? byHost : Integer.compare(port, other.port);
        }
    }

    /** A task's cumulative changelog offset. */
    public record TaskOffset(String subtopologyId, int partition, long offset) {
        public TaskOffset {
            Objects.requireNonNull(subtopologyId, "subtopologyId");
        }
    }
}
