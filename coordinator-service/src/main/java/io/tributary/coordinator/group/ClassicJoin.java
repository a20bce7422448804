package io.tributary.coordinator.group;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A JoinGroup request, as the state machines need it: a classic group's ({@code
 * classic.ClassicGroupCoordinator}), or a consumer group's classic members' ({@link
 * ClassicProtocolMembers}).
 *
 * @param groupId the group
 * @param memberId the member id, empty on a member's first join
 * @param instanceId {@code group.instance.id} of a static member
 * @param protocolType e.g. {@code consumer}, {@code connect}
 * @param protocols the protocols the member supports, most preferred first
 * @param sessionTimeoutMs the member's session timeout
 * @param rebalanceTimeoutMs the member's rebalance timeout (in JoinGroup v0, its session timeout)
 * @param clientId the request header's client id
 * @param clientHost the address the request came from
 * @param requireKnownMemberId whether a new dynamic member first gets MEMBER_ID_REQUIRED with its id
 *     (KIP-394, JoinGroup v4 and later)
 * @param supportsSkipAssignment whether the client understands {@code SkipAssignment} (v9 and later)
 */
public record ClassicJoin(
        String groupId,
        String memberId,
        Optional<String> instanceId,
        String protocolType,
        List<ClassicProtocol> protocols,
        int sessionTimeoutMs,
        int rebalanceTimeoutMs,
        String clientId,
        String clientHost,
        boolean requireKnownMemberId,
        boolean supportsSkipAssignment) {

    public ClassicJoin {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(protocolType, "protocolType");
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(clientHost, "clientHost");
        protocols = List.copyOf(protocols);
    }
}
