package io.tributary.coordinator.kafka;

import io.tributary.coordinator.group.ClassicGeneration;
import io.tributary.coordinator.group.ClassicJoin;
import io.tributary.coordinator.group.ClassicProtocolMembers;
import io.tributary.coordinator.group.ClassicProtocolMembers.Joined;
import io.tributary.coordinator.group.ConsumerMigrationPolicy;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.GroupMigration;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.LeavingMember;
import io.tributary.coordinator.group.classic.ClassicJoinResult;
import io.tributary.coordinator.group.classic.ClassicSyncResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The classic protocol and KIP-848's meeting in one group id (Kafka 4.4's mixed groups), for {@link
 * GroupService}: a classic request (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) into a consumer
 * group with members is served by its classic members ({@link ClassicProtocolMembers}); a KIP-848
 * join into a classic group with members converts it to a consumer group (an upgrade), and a
 * consumer group left with classic members only converts back (a downgrade), as {@link
 * ConsumerMigrationPolicy} allows.
 *
 * <p>Thread-safety: every method is called under {@link GroupService}'s {@code types} lock (what a
 * group id is does not change meanwhile); the state machines lock themselves.
 */
final class MixedGroups {

    private final GroupCoordinator groups;
    private final ClassicGroupCoordinator classic;
    private final ClassicProtocolMembers members;
    private final GroupMigration migration;
    private final ConsumerMigrationPolicy policy;

    MixedGroups(GroupCoordinator groups, ClassicGroupCoordinator classic, ConsumerMigrationPolicy policy) {
        this.groups = Objects.requireNonNull(groups, "groups");
        this.classic = Objects.requireNonNull(classic, "classic");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.members = new ClassicProtocolMembers(groups);
        this.migration = new GroupMigration(groups);
    }

    ConsumerMigrationPolicy policy() {
        return policy;
    }

    /** Whether a classic request for this group id is the consumer group's (it has members there). */
    boolean servesClassic(String groupId) {
        return !classic.contains(groupId) && groups.hasMembers(groupId);
    }

    /**
     * A KIP-848 join into a classic group with members: converts it (Kafka's {@code
     * validateOnlineUpgrade} and {@code convertToConsumerGroup}). A classic group whose only members still confirm their member id (KIP-394) is empty to Kafka:
     * it is replaced.
     *
     * @throws GroupException GROUP_ID_NOT_FOUND when the policy, the protocol type, the size or the
     *     members' metadata forbid it, or the heartbeat does not join (epoch other than 0)
     */
    void upgrade(String groupId, boolean joining, long nowMs) {
        Optional<ClassicGeneration> generation = classic.generation(groupId);
        if (!joining) {
            throw new GroupException(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " is not a consumer group.");
        }
        if (generation.isEmpty()) {
            // Only members still confirming their member id (KIP-394): an empty group to Kafka,
            // replaced by the joining member whatever the policy; their joins then fail.
            classic.upgraded(groupId);
            return;
        }
        if (!policy.upgradeEnabled()) {
            throw new GroupException(
                    Errors.GROUP_ID_NOT_FOUND,
                    "Cannot upgrade classic group " + groupId
                            + " to consumer group because online upgrade is disabled.");
        }
        if (!ConsumerProtocol.PROTOCOL_TYPE.equals(generation.get().protocolType())) {
            throw new GroupException(
                    Errors.GROUP_ID_NOT_FOUND,
                    "Cannot upgrade classic group " + groupId + " to consumer group because the group does not use"
                            + " the consumer embedded protocol.");
        }
        migration.upgrade(generation.get(), nowMs);
        classic.upgraded(groupId);
    }

    /**
     * Converts the consumer groups left with classic members only back to classic groups, as the
     * policy allows (Kafka's {@code validateOnlineDowngradeWithFencedMembers}: at most the classic
     * group size).
     */
    void downgrade(long nowMs) {
        int maxSize = policy.downgradeEnabled() ? classic.config().maxGroupSize() : 0;
        for (ClassicGeneration generation : migration.takeDowngrades(maxSize)) {
            classic.downgraded(generation, nowMs);
        }
    }

    /** A JoinGroup served by a consumer group's classic members; its answer once durable. */
    ClassicProtocolMembers.Pending<ClassicJoinResult> join(ClassicJoin join, long nowMs) {
        classic.validate(join);
        var pending = members.join(join, Uuid.randomUuid().toString(), nowMs);
        Joined joined = pending.answer();
        ClassicJoinResult result = joined.error() != Errors.NONE
                ? ClassicJoinResult.failed(joined.error(), joined.memberId())
                : new ClassicJoinResult(
                        Errors.NONE,
                        joined.generationId(),
                        Optional.of(ConsumerProtocol.PROTOCOL_TYPE),
                        Optional.of(joined.protocolName()),
                        "",
                        joined.memberId(),
                        false,
                        List.of());
        return new ClassicProtocolMembers.Pending<>(result, pending.written());
    }

    /** A SyncGroup served by a consumer group's classic member; its answer once durable. */
    ClassicProtocolMembers.Pending<ClassicSyncResult> sync(
            String groupId,
            String memberId,
            Optional<String> instanceId,
            int generationId,
            Optional<ClassicGroupCoordinator.ProtocolCheck> protocolCheck,
            long nowMs) {
        var pending = members.sync(
                groupId,
                memberId,
                instanceId,
                generationId,
                protocolCheck.flatMap(ClassicGroupCoordinator.ProtocolCheck::type),
                protocolCheck.flatMap(ClassicGroupCoordinator.ProtocolCheck::name),
                nowMs);
        var synced = pending.answer();
        return new ClassicProtocolMembers.Pending<>(
                new ClassicSyncResult(Errors.NONE, synced.protocolType(), synced.protocolName(), synced.assignment()),
                pending.written());
    }

    void heartbeat(String groupId, String memberId, Optional<String> instanceId, int generationId, long nowMs) {
        members.heartbeat(groupId, memberId, instanceId, generationId, nowMs);
    }

    /** A LeaveGroup served by a consumer group's classic members, then the downgrade it may allow. */
    ClassicProtocolMembers.Pending<List<Errors>> leave(String groupId, List<LeavingMember> leaving, long nowMs) {
        List<ClassicProtocolMembers.Leaving> named = new ArrayList<>();
        leaving.forEach(l -> named.add(new ClassicProtocolMembers.Leaving(l.memberId(), l.instanceId())));
        var pending = members.leave(groupId, named, nowMs);
        downgrade(nowMs);
        return pending;
    }
}
