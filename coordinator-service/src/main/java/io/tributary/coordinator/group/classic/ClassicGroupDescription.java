package io.tributary.coordinator.group.classic;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A classic group as DescribeGroups and ListGroups show it (Kafka's group summary): the protocol
 * and the members' metadata and assignments only while the group is Stable.
 *
 * @param groupId the group
 * @param state its state
 * @param protocolType the members' protocol type (empty for a group that never had members)
 * @param protocolName the generation's protocol while Stable, else empty
 * @param generationId the current generation
 * @param leaderId the leader's member id, empty without members
 * @param members the members, in the order they joined
 */
public record ClassicGroupDescription(
        String groupId,
        ClassicGroupState state,
        String protocolType,
        String protocolName,
        int generationId,
        String leaderId,
        List<Member> members) {

    public ClassicGroupDescription {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(protocolType, "protocolType");
        Objects.requireNonNull(protocolName, "protocolName");
        Objects.requireNonNull(leaderId, "leaderId");
        members = List.copyOf(members);
    }

    /**
     * One member.
     *
     * @param metadata its metadata for the generation's protocol while Stable, else empty
     * @param assignment its assignment while Stable, else empty
     */
    public record Member(
            String memberId,
            Optional<String> instanceId,
            String clientId,
            String clientHost,
            byte[] metadata,
            byte[] assignment) {

        public Member {
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(instanceId, "instanceId");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(clientHost, "clientHost");
            metadata = metadata.clone();
            assignment = assignment.clone();
        }

        @Override
        public byte[] metadata() {
            return metadata.clone();
        }

        @Override
        public byte[] assignment() {
            return assignment.clone();
        }
    }
}
