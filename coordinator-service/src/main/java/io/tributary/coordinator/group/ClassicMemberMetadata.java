package io.tributary.coordinator.group;

import java.util.List;

/**
 * What a member of a consumer group that speaks the classic protocol (JoinGroup, SyncGroup,
 * Heartbeat) sent beyond what a KIP-848 member sends (Kafka's {@code ClassicMemberMetadata} of a
 * {@code ConsumerGroupMemberMetadataValue}): its session timeout and the protocols of its last
 * JoinGroup (assignor names with their {@code consumer} protocol subscriptions). A member without it
 * speaks ConsumerGroupHeartbeat.
 *
 * @param sessionTimeoutMs the session timeout of its last JoinGroup
 * @param protocols its protocols, most preferred first, at least one
 */
public record ClassicMemberMetadata(int sessionTimeoutMs, List<ClassicProtocol> protocols) {

    public ClassicMemberMetadata {
        protocols = List.copyOf(protocols);
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException("a classic member has at least one protocol");
        }
    }

    /** The protocol the member prefers: its JoinGroup and SyncGroup answers name it. */
    public String protocolName() {
        return protocols.getFirst().name();
    }
}
