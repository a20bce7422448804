package io.tributary.coordinator.group.classic;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a classic group keeps across a coordinator failover: the last completed generation (Kafka's
 * {@code GroupMetadataValue}). Stored when a generation's assignment is handed out (the leader's
 * SyncGroup) and when the group becomes empty; a new coordinator leader loads it and answers the
 * members' next heartbeat at this generation, so nobody rejoins.
 *
 * @param groupId the group
 * @param protocolType the members' protocol type ({@code consumer}, {@code connect}, ...); empty
 *     for a group that never had members
 * @param protocolName the protocol chosen for this generation (e.g. {@code range}), empty when the
 *     group is empty
 * @param generationId the generation
 * @param leaderId the member id of this generation's leader, empty when the group is empty
 * @param stateTimestampMs when the group entered its current state (milliseconds since the epoch)
 * @param members the generation's members, in member id order
 */
public record ClassicGroupRecord(
        String groupId,
        String protocolType,
        String protocolName,
        int generationId,
        String leaderId,
        long stateTimestampMs,
        List<Member> members) {

    public ClassicGroupRecord {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(protocolType, "protocolType");
        Objects.requireNonNull(protocolName, "protocolName");
        Objects.requireNonNull(leaderId, "leaderId");
        members = List.copyOf(members);
        if (generationId < 0) {
            throw new IllegalArgumentException("generationId must be 0 or more, got " + generationId);
        }
    }

    /**
     * One member of a stored generation.
     *
     * @param memberId the coordinator-generated member id
     * @param instanceId the static member's {@code group.instance.id}, empty for a dynamic member
     * @param clientId the client id of its JoinGroup
     * @param clientHost the address it joined from
     * @param rebalanceTimeoutMs its rebalance timeout
     * @param sessionTimeoutMs its session timeout
     * @param subscription its protocol metadata for {@code protocolName} (opaque bytes)
     * @param assignment what the leader assigned it for this generation (opaque bytes, possibly
     *     empty)
     */
    public record Member(
            String memberId,
            Optional<String> instanceId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            int sessionTimeoutMs,
            byte[] subscription,
            byte[] assignment) {

        public Member {
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(instanceId, "instanceId");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(clientHost, "clientHost");
            subscription = subscription.clone();
            assignment = assignment.clone();
        }

        @Override
        public byte[] subscription() {
            return subscription.clone();
        }

        @Override
        public byte[] assignment() {
            return assignment.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Member m
                    && memberId.equals(m.memberId)
                    && instanceId.equals(m.instanceId)
                    && clientId.equals(m.clientId)
                    && clientHost.equals(m.clientHost)
                    && rebalanceTimeoutMs == m.rebalanceTimeoutMs
                    && sessionTimeoutMs == m.sessionTimeoutMs
                    && java.util.Arrays.equals(subscription, m.subscription)
                    && java.util.Arrays.equals(assignment, m.assignment);
        }

        @Override
        public int hashCode() {
            return Objects.hash(memberId, instanceId, clientId, clientHost, rebalanceTimeoutMs, sessionTimeoutMs) * 31
                    + java.util.Arrays.hashCode(subscription) * 17
                    + java.util.Arrays.hashCode(assignment);
        }

        @Override
        public String toString() {
            return "Member[" + memberId + ", instance=" + instanceId.orElse("-") + ", client=" + clientId + "@"
                    + clientHost + ", rebalance=" + rebalanceTimeoutMs + "ms, session=" + sessionTimeoutMs
                    + "ms, subscription=" + subscription.length + "B, assignment=" + assignment.length + "B]";
        }
    }
}
