package io.tributary.coordinator.group.classic;

import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.Store;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.StoreTask;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rebalance mechanics of {@link ClassicGroupCoordinator}: preparing a rebalance (the join
 * deadline, with an empty group's initial delay), the join barrier and its completion (removing
 * dynamic members that did not join, electing a leader among those that did, choosing the protocol,
 * answering the waiting JoinGroups), failing waiting SyncGroups, removing a member, one group's
 * timers (pending member ids, sessions, the join and sync deadlines), and a stored or failed
 * assignment (Stable, or a new rebalance).
 *
 * <p>Used only by {@link ClassicGroupCoordinator} and {@link ClassicJoins}, under the coordinator's
 * lock; not thread-safe by itself.
 */
final class ClassicRebalance {

    /** The coordinator's logger: log settings that name the coordinator keep applying. */
    private static final Logger log = LoggerFactory.getLogger(ClassicGroupCoordinator.class);

    private final ClassicGroupConfig config;
    private final Consumer<StoreTask> stores;

    /** @param stores where writes go (the coordinator's queue of store tasks) */
    ClassicRebalance(ClassicGroupConfig config, Consumer<StoreTask> stores) {
        this.config = Objects.requireNonNull(config, "config");
        this.stores = Objects.requireNonNull(stores, "stores");
    }

    /** Starts a rebalance unless one is preparing. */
    void prepare(ClassicGroup group, String reason, long nowMs) {
        if (group.state == ClassicGroupState.PREPARING_REBALANCE) {
            return;
        }
        if (group.state == ClassicGroupState.COMPLETING_REBALANCE) {
            failSyncs(group, Errors.REBALANCE_IN_PROGRESS);
        }
        boolean wasEmpty = group.state == ClassicGroupState.EMPTY;
        group.pendingSync.clear();
        group.syncDeadlineMs = Long.MAX_VALUE;
        group.storingGeneration = -1;
        group.transition(ClassicGroupState.PREPARING_REBALANCE, nowMs);
        long rebalanceMs = Math.min(
                group.rebalanceTimeoutMs(), config.maxRebalanceTimeout().toMillis());
        long delayMs = config.initialRebalanceDelay().toMillis();
        if (wasEmpty && delayMs > 0) {
            group.initialDelay = true;
            group.newMemberAdded = false;
            group.joinDeadlineMs = nowMs + Math.min(delayMs, rebalanceMs);
            group.initialRemainingMs = Math.max(rebalanceMs - delayMs, 0);
        } else {
            group.initialDelay = false;
            group.joinDeadlineMs = nowMs + rebalanceMs;
        }
        log.info("group {}: preparing a rebalance from generation {}: {}", group.groupId, group.generationId, reason);
    }

    /** Answers the waiting SyncGroups with an error and forgets the assignment being handed out. */
    private static void failSyncs(ClassicGroup group, Errors error) {
        for (ClassicMember member : group.members.values()) {
            member.assignment = new byte[0];
            if (member.awaitingSync != null) {
                member.awaitingSync.complete(ClassicSyncResult.failed(error));
                member.awaitingSync = null;
            }
        }
    }

    /** Completes the join barrier when every member joined again (and no initial delay runs). */
    void maybeCompleteJoin(ClassicGroup group, long nowMs) {
        if (group.state == ClassicGroupState.PREPARING_REBALANCE && group.allMembersJoined() && !group.initialDelay) {
            completeJoin(group, nowMs);
        }
    }

    /**
     * The join barrier: the next generation starts with the members that joined (and static ones),
     * led by one that joined; when none did, it waits another rebalance timeout instead.
     */
    private void completeJoin(ClassicGroup group, long nowMs) {
        for (ClassicMember member : List.copyOf(group.members.values())) {
            if (member.awaitingJoin == null && member.instanceId.isEmpty()) {
                log.info(
                        "group {}: member {} removed: did not join within the rebalance timeout",
                        group.groupId,
                        member.memberId);
                group.remove(member.memberId);
            }
        }
        group.initialDelay = false;
        if (!group.members.isEmpty() && !group.electJoinedLeader()) {
            // Only static members are left and none joined again: a generation nobody is told of
            // would be of no use. Wait for them another rebalance timeout; sessions remove the
            // members that are gone (as Kafka does).
            group.joinDeadlineMs = nowMs
                    + Math.min(
                            group.rebalanceTimeoutMs(),
                            config.maxRebalanceTimeout().toMillis());
            log.info("group {}: no member joined again within the rebalance timeout; waiting for them", group.groupId);
            return;
        }
        group.joinDeadlineMs = Long.MAX_VALUE;
        group.generationId++;
        if (group.members.isEmpty()) {
            group.protocolName = Optional.empty();
            group.leaderId = null;
            group.transition(ClassicGroupState.EMPTY, nowMs);
            stores.accept(new Store(group.record(), false));
            log.info("group {}: empty at generation {}", group.groupId, group.generationId);
            return;
        }
        group.protocolName = Optional.of(group.selectProtocol());
        group.transition(ClassicGroupState.COMPLETING_REBALANCE, nowMs);
        group.pendingSync.clear();
        group.pendingSync.addAll(group.members.keySet());
        group.syncDeadlineMs = nowMs
                + Math.min(
                        group.rebalanceTimeoutMs(), config.maxRebalanceTimeout().toMillis());
        for (ClassicMember member : group.members.values()) {
            if (member.awaitingJoin != null) {
                member.awaitingJoin.complete(group.joinAnswer(member, false, group.isLeader(member.memberId)));
                member.awaitingJoin = null;
                member.sessionDeadlineMs = nowMs + member.sessionTimeoutMs;
            }
        }
        log.info(
                "group {}: generation {} with {} members, protocol {}, leader {}",
                group.groupId,
                group.generationId,
                group.members.size(),
                group.protocolName.get(),
                group.leaderId);
    }

    /** Removes a member (left or expired); a Stable or completing group rebalances. */
    void removeMember(ClassicGroup group, ClassicMember member, String why, long nowMs) {
        log.info("group {}: member {} {}", group.groupId, member.memberId, why);
        member.failWaiting(Errors.UNKNOWN_MEMBER_ID);
        group.remove(member.memberId);
        prepare(group, "member " + member.memberId + " " + why, nowMs);
        maybeCompleteJoin(group, nowMs);
    }

    /**
     * Removes the members whose session ran out (past their deadline, not waiting for a JoinGroup
     * or SyncGroup answer).
     *
     * @return how many were removed
     */
    int expireSessions(ClassicGroup group, long nowMs) {
        int removed = 0;
        for (ClassicMember member : List.copyOf(group.members.values())) {
            if (group.members.containsKey(member.memberId)
                    && !member.isAwaiting()
                    && nowMs > member.sessionDeadlineMs) {
                removeMember(group, member, "removed: session timeout", nowMs);
                removed++;
            }
        }
        return removed;
    }

    /**
     * Enforces one group's timers: members that did not confirm their member id, sessions, the
     * join barrier's deadline (with the initial delay's extensions) and the SyncGroup deadline.
     *
     * @return how many members were removed
     */
    int tick(ClassicGroup group, long nowMs) {
        int removed = 0;
        for (var pending : List.copyOf(group.pendingMembers.entrySet())) {
            if (nowMs > pending.getValue()) {
                group.pendingMembers.remove(pending.getKey());
                log.info(
                        "group {}: member id {} dropped: not confirmed by a join within its session timeout",
                        group.groupId,
                        pending.getKey());
                maybeCompleteJoin(group, nowMs);
            }
        }
        removed += expireSessions(group, nowMs);
        if (group.state == ClassicGroupState.PREPARING_REBALANCE && nowMs >= group.joinDeadlineMs) {
            if (group.initialDelay && group.newMemberAdded && group.initialRemainingMs > 0) {
                long stepMs = Math.min(config.initialRebalanceDelay().toMillis(), group.initialRemainingMs);
                group.initialRemainingMs = Math.max(
                        group.initialRemainingMs
                                - config.initialRebalanceDelay().toMillis(),
                        0);
                group.newMemberAdded = false;
                group.joinDeadlineMs = nowMs + stepMs;
            } else {
                int before = group.members.size();
                completeJoin(group, nowMs);
                removed += before - group.members.size();
            }
        }
        if ((group.state == ClassicGroupState.COMPLETING_REBALANCE || group.state == ClassicGroupState.STABLE)
                && nowMs >= group.syncDeadlineMs) {
            group.syncDeadlineMs = Long.MAX_VALUE;
            if (!group.pendingSync.isEmpty()) {
                for (String memberId : List.copyOf(group.pendingSync)) {
                    ClassicMember member = group.members.get(memberId);
                    log.info(
                            "group {}: member {} removed: no SyncGroup within the rebalance timeout",
                            group.groupId,
                            memberId);
                    if (member.awaitingSync != null) {
                        member.awaitingSync.complete(ClassicSyncResult.failed(Errors.UNKNOWN_MEMBER_ID));
                    }
                    group.remove(memberId);
                    removed++;
                }
                prepare(group, "members did not sync", nowMs);
                maybeCompleteJoin(group, nowMs);
            }
        }
        return removed;
    }

    /**
     * A leader's assignment of generation {@code generation} was stored ({@code failure} empty) or
     * storing it failed: a stored one makes the group Stable and answers the waiting SyncGroups; a
     * failed one answers them with the error and rebalances, as Kafka does. A store of another
     * generation than the one being handed out changes nothing.
     */
    void assignmentStored(ClassicGroup group, int generation, Optional<Errors> failure, long nowMs) {
        if (group.state != ClassicGroupState.COMPLETING_REBALANCE
                || group.generationId != generation
                || group.storingGeneration != generation) {
            return;
        }
        group.storingGeneration = -1;
        if (failure.isEmpty()) {
            group.transition(ClassicGroupState.STABLE, nowMs);
            for (ClassicMember member : group.members.values()) {
                if (member.awaitingSync != null) {
                    member.awaitingSync.complete(group.syncAnswer(member));
                    member.awaitingSync = null;
                }
            }
            log.info("group {}: generation {} is stable", group.groupId, generation);
            return;
        }
        log.warn(
                "group {}: storing generation {} failed ({}): rebalancing",
                group.groupId,
                generation,
                failure.get().exceptionName());
        failSyncs(group, failure.get());
        prepare(group, "storing the assignment failed", nowMs);
        maybeCompleteJoin(group, nowMs);
    }
}
