package io.tributary.coordinator.group.streams;

import io.tributary.coordinator.group.streams.StreamsGroup.Member;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Moves one streams group member towards its target on each of its heartbeats (the role of Kafka's
 * streams {@code CurrentAssignmentBuilder}; see {@link StreamsGroupCoordinator}'s class comment):
 * revocation first, then the tasks that are released. Used under the coordinator's lock.
 */
final class StreamsReconciler {

    private StreamsReconciler() {}

    /**
     * @param owned what the member says it owns (empty: it did not say)
     * @param ackAllowed whether the heartbeat is at the member's epoch (or a join): only then can it
     *     acknowledge a revocation
     */
    static void reconcile(StreamsGroup group, Member member, Optional<Tasks> owned, boolean ackAllowed, long nowMs) {
        StreamsMemberState stateBefore = member.state;
        Tasks pendingBefore = member.pendingRevocation;
        switch (member.state) {
            case STABLE -> {
                if (member.memberEpoch != group.assignmentEpoch) {
                    computeNext(group, member, owned);
                }
            }
            case UNREVOKED_TASKS -> {
                if (ackAllowed && !ownsAny(owned, member.pendingRevocation)) {
                    group.setOwnership(member, member.assigned, Tasks.EMPTY, member.memberEpoch);
                    computeNext(group, member, owned);
                }
            }
            case UNRELEASED_TASKS -> computeNext(group, member, owned);
        }
        if (member.state == StreamsMemberState.UNREVOKED_TASKS) {
            if (stateBefore != StreamsMemberState.UNREVOKED_TASKS || !pendingBefore.equals(member.pendingRevocation)) {
                member.rebalanceDeadlineMs = nowMs + member.rebalanceTimeoutMs;
            }
        } else {
            member.rebalanceDeadlineMs = Long.MAX_VALUE;
        }
    }

    /**
     * What a heartbeat's owned tasks can be taken to say ({@code reported}; empty: not sent): a
     * list that lacks a task the member was given and keeps ({@code assigned}) acknowledges an older
     * assignment than the one it was last sent (the client reports what it had reconciled when the
     * newer one arrived, and goes on to take the rest), so it is read as "not sent". As {@code
     * Reconciler.trustedOwned} for consumer groups.
     */
    static Optional<Tasks> trustedOwned(Optional<Tasks> reported, Tasks assigned) {
        if (reported.isPresent() && !assigned.minus(reported.get()).isEmpty()) {
            return Optional.empty();
        }
        return reported;
    }

    /** Whether the member still owns any of {@code tasks} (a member that did not say: yes). */
    private static boolean ownsAny(Optional<Tasks> owned, Tasks tasks) {
        return owned.isEmpty() || owned.get().containsAny(tasks);
    }

    private static void computeNext(StreamsGroup group, Member member, Optional<Tasks> owned) {
        Tasks target = group.target.getOrDefault(member.memberId, Tasks.EMPTY);
        Tasks kept = member.assigned.intersection(target);
        Tasks revoke = member.assigned.minus(kept);
        Tasks wanted = target.minus(kept);
        String process = member.processId;
        SortedSet<TaskId> active = released(wanted.active(), task -> {
            String owner = group.activeOwners.get(task);
            return (owner == null || owner.equals(member.memberId)) && !group.standbyInProcess(task, process);
        });
        Predicate<TaskId> freeInProcess =
                task -> !group.activeProcess(task).filter(process::equals).isPresent()
                        && !group.standbyInProcess(task, process);
        SortedSet<TaskId> standby = released(wanted.standby(), freeInProcess);
        SortedSet<TaskId> warmup = released(wanted.warmup(), freeInProcess);
        Tasks toAssign = new Tasks(active, standby, warmup);
        boolean unreleased = !toAssign.equals(wanted);
        if (!revoke.isEmpty() && ownsAny(owned, revoke)) {
            group.setOwnership(member, kept, revoke, member.memberEpoch);
            member.state = StreamsMemberState.UNREVOKED_TASKS;
            return;
        }
        group.setOwnership(member, kept.union(toAssign), Tasks.EMPTY, group.assignmentEpoch);
        member.state = unreleased ? StreamsMemberState.UNRELEASED_TASKS : StreamsMemberState.STABLE;
        member.setEpoch(group.assignmentEpoch);
    }

    private static SortedSet<TaskId> released(SortedSet<TaskId> tasks, Predicate<TaskId> free) {
        SortedSet<TaskId> result = new TreeSet<>();
        for (TaskId task : tasks) {
            if (free.test(task)) {
                result.add(task);
            }
        }
        return result;
    }
}
