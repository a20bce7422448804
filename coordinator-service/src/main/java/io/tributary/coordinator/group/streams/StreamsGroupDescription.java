package io.tributary.coordinator.group.streams;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of one streams group, for StreamsGroupDescribe, DescribeGroups and ListGroups.
 *
 * @param groupId the group
 * @param state {@code Empty}, {@code NotReady}, {@code Assigning}, {@code Reconciling} or {@code
 *     Stable} (Kafka's names of streams-group states)
 * @param groupEpoch the group epoch
 * @param assignmentEpoch the target assignment's epoch
 * @param topology the group's topology, once a member set it
 * @param resolved what it resolves to against the topics
 * @param members in member-id order
 */
public record StreamsGroupDescription(
        String groupId,
        String state,
        int groupEpoch,
        int assignmentEpoch,
        Optional<StreamsTopology> topology,
        Optional<ResolvedTopology> resolved,
        List<Member> members) {

    public StreamsGroupDescription {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(state, "state");
        members = List.copyOf(members);
    }

    /** One member, as StreamsGroupDescribe shows it. */
    public record Member(
            String memberId,
            int memberEpoch,
            Optional<String> instanceId,
            Optional<String> rackId,
            String clientId,
            String clientHost,
            int topologyEpoch,
            String processId,
            Optional<StreamsHeartbeatRequest.Endpoint> userEndpoint,
            Map<String, String> clientTags,
            List<StreamsHeartbeatRequest.TaskOffset> taskOffsets,
            List<StreamsHeartbeatRequest.TaskOffset> taskEndOffsets,
            StreamsMemberState state,
            Tasks assignment,
            Tasks target) {}
}
