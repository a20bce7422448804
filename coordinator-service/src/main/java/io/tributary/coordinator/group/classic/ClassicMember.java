package io.tributary.coordinator.group.classic;

import io.tributary.coordinator.group.ClassicJoin;
import io.tributary.coordinator.group.ClassicProtocol;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;

/**
 * One member of a classic group (mutable; used under {@link ClassicGroupCoordinator}'s lock).
 *
 * <p>A member waits in a JoinGroup ({@link #awaitingJoin}) during PreparingRebalance and in a
 * SyncGroup ({@link #awaitingSync}) until the leader's assignment is stored; while it waits in
 * either it is kept alive (the group's rebalance or sync deadline governs), otherwise it must
 * heartbeat (or join, sync, commit) before {@link #sessionDeadlineMs}.
 */
final class ClassicMember {

    final String memberId;
    final Optional<String> instanceId;
    String clientId;
    String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    List<ClassicProtocol> protocols;
    boolean supportsSkipAssignment;
    byte[] assignment = new byte[0];
    CompletableFuture<ClassicJoinResult> awaitingJoin;
    CompletableFuture<ClassicSyncResult> awaitingSync;
    long sessionDeadlineMs;

    ClassicMember(String memberId, Optional<String> instanceId) {
        this.memberId = memberId;
        this.instanceId = instanceId;
    }

    /** A member taking over a static member's place under a new member id. */
    ClassicMember replacedBy(String newMemberId) {
        ClassicMember next = new ClassicMember(newMemberId, instanceId);
        next.clientId = clientId;
        next.clientHost = clientHost;
        next.sessionTimeoutMs = sessionTimeoutMs;
        next.rebalanceTimeoutMs = rebalanceTimeoutMs;
        next.protocols = protocols;
        next.supportsSkipAssignment = supportsSkipAssignment;
        next.assignment = assignment;
        next.sessionDeadlineMs = sessionDeadlineMs;
        return next;
    }

    void update(ClassicJoin join) {
        clientId = join.clientId();
        clientHost = join.clientHost();
        sessionTimeoutMs = join.sessionTimeoutMs();
        rebalanceTimeoutMs = join.rebalanceTimeoutMs();
        protocols = join.protocols();
        supportsSkipAssignment = join.supportsSkipAssignment();
    }

    /** The metadata of the named protocol; the member supports it (checked on join). */
    ClassicProtocol metadata(String protocolName) {
        for (ClassicProtocol protocol : protocols) {
            if (protocol.name().equals(protocolName)) {
                return protocol;
            }
        }
        throw new IllegalStateException("member " + memberId + " does not support protocol " + protocolName);
    }

    boolean supports(String protocolName) {
        return protocols.stream().anyMatch(p -> p.name().equals(protocolName));
    }

    /** Whether its next JoinGroup with these protocols changes nothing (Kafka's {@code matches}). */
    boolean matches(List<ClassicProtocol> others) {
        return protocols.equals(others);
    }

    boolean isAwaiting() {
        return awaitingJoin != null || awaitingSync != null;
    }

    /** Answers the JoinGroup or SyncGroup it waits in, if any, with {@code error}. */
    void failWaiting(Errors error) {
        if (awaitingJoin != null) {
            awaitingJoin.complete(ClassicJoinResult.failed(error, memberId));
            awaitingJoin = null;
        }
        if (awaitingSync != null) {
            awaitingSync.complete(ClassicSyncResult.failed(error));
            awaitingSync = null;
        }
    }
}
