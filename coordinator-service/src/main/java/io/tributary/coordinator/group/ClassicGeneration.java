package io.tributary.coordinator.group;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A group with members handed from one protocol's state machine to the other's (an online upgrade
 * or downgrade): a classic group's current generation as the consumer group coordinator takes it
 * over, or a consumer group's classic members as the classic coordinator takes them over.
 *
 * @param groupId the group
 * @param protocolType the members' protocol type (a consumer group's: {@code consumer})
 * @param generationId the classic generation (upgrade: becomes the group and member epochs;
 *     downgrade: the consumer group's epoch)
 * @param protocolName the generation's protocol (assignor), empty when none was chosen yet
 * @param members the members, in the order the classic group knows them (its first is the leader)
 */
public record ClassicGeneration(
        String groupId, String protocolType, int generationId, Optional<String> protocolName, List<Member> members) {

    public ClassicGeneration {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(protocolType, "protocolType");
        Objects.requireNonNull(protocolName, "protocolName");
        members = List.copyOf(members);
    }

    /**
     * One member.
     *
     * @param assignment its current assignment as {@code consumer} protocol bytes (empty: none yet)
     */
    public record Member(
            String memberId,
            Optional<String> instanceId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            ClassicMemberMetadata classic,
            byte[] assignment) {

        public Member {
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(instanceId, "instanceId");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(clientHost, "clientHost");
            Objects.requireNonNull(classic, "classic");
            assignment = assignment.clone();
        }

        @Override
        public byte[] assignment() {
            return assignment.clone();
        }

        /** The member's subscription for {@code protocol}, or for its preferred one when empty. */
        public byte[] subscription(Optional<String> protocol) {
            for (ClassicProtocol p : classic.protocols()) {
                if (protocol.isEmpty() || p.name().equals(protocol.get())) {
                    return p.metadata();
                }
            }
            return classic.protocols().getFirst().metadata();
        }
    }
}
