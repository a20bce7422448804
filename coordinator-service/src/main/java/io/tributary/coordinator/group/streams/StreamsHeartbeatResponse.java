package io.tributary.coordinator.group.streams;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;

/**
 * What the state machine answers a StreamsGroupHeartbeat.
 *
 * @param memberId the member id
 * @param memberEpoch the member's epoch now (-1 after leaving, -2 after a static leave)
 * @param heartbeatIntervalMs when to heartbeat next
 * @param assignment the member's tasks, when they changed (or it joined, or its owned tasks differ)
 * @param statuses the group's statuses this member is told
 * @param endpointInformationEpoch the group's endpoint epoch
 * @param partitionsByUserEndpoint every member's endpoint and partitions, when the client's endpoint
 *     epoch is behind the group's
 * @param topicsToCreate internal topics the caller must create (they do not exist yet)
 */
public record StreamsHeartbeatResponse(
        String memberId,
        int memberEpoch,
        int heartbeatIntervalMs,
        Optional<Tasks> assignment,
        List<StreamsStatus> statuses,
        int endpointInformationEpoch,
        Optional<List<EndpointPartitions>> partitionsByUserEndpoint,
        List<StreamsTopology.InternalTopic> topicsToCreate) {

    public StreamsHeartbeatResponse {
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(assignment, "assignment");
        statuses = List.copyOf(statuses);
        partitionsByUserEndpoint = partitionsByUserEndpoint.map(List::copyOf);
        topicsToCreate = List.copyOf(topicsToCreate);
    }

    /**
     * One member's endpoint and the source partitions of its tasks.
     *
     * @param endpoint the member's interactive-queries endpoint
     * @param active partitions of its active tasks, by topic name
     * @param standby partitions of its standby and warm-up tasks, by topic name
     */
    public record EndpointPartitions(
            StreamsHeartbeatRequest.Endpoint endpoint,
            SortedMap<String, List<Integer>> active,
            SortedMap<String, List<Integer>> standby) {}
}
