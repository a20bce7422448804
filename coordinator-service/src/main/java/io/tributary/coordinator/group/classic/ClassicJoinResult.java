package io.tributary.coordinator.group.classic;

import io.tributary.coordinator.group.ClassicProtocol;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;

/**
 * The answer to a JoinGroup.
 *
 * @param error NONE, or the error (MEMBER_ID_REQUIRED carries the member id to join with)
 * @param generationId the generation joined, -1 on error
 * @param protocolType the group's protocol type, empty on error
 * @param protocolName the protocol chosen for the generation, empty on error
 * @param leaderId the generation's leader, empty on error
 * @param memberId the member's id (a new one for a new member), possibly empty on error
 * @param skipAssignment whether the leader must not assign (a static leader that rejoined, v9+)
 * @param members the members with their metadata for the chosen protocol: only for the leader
 */
public record ClassicJoinResult(
        Errors error,
        int generationId,
        Optional<String> protocolType,
        Optional<String> protocolName,
        String leaderId,
        String memberId,
        boolean skipAssignment,
        List<JoinedMember> members) {

    public ClassicJoinResult {
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(protocolType, "protocolType");
        Objects.requireNonNull(protocolName, "protocolName");
        Objects.requireNonNull(leaderId, "leaderId");
        Objects.requireNonNull(memberId, "memberId");
        members = List.copyOf(members);
    }

    /** The same answer naming another leader. */
    ClassicJoinResult withLeader(String leader) {
        return new ClassicJoinResult(
                error, generationId, protocolType, protocolName, leader, memberId, skipAssignment, members);
    }

    /** An error answer, with the member id the client should keep (empty: none). */
    public static ClassicJoinResult failed(Errors error, String memberId) {
        return new ClassicJoinResult(error, -1, Optional.empty(), Optional.empty(), "", memberId, false, List.of());
    }

    /** A member of the generation, as its leader sees it. */
    public record JoinedMember(String memberId, Optional<String> instanceId, ClassicProtocol metadata) {
        public JoinedMember {
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(instanceId, "instanceId");
            Objects.requireNonNull(metadata, "metadata");
        }
    }
}
