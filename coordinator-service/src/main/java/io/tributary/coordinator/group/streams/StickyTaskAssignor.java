package io.tributary.coordinator.group.streams;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The streams group's server-side task assignor (KIP-1071's {@code sticky} assignor, Tributary's
 * own algorithm): every task active on exactly one member, members balanced, tasks staying where
 * they were.
 *
 * <h2>Active tasks</h2>
 *
 * With T tasks and M members each member gets {@code floor(T/M)} or {@code ceil(T/M)} tasks, and
 * exactly {@code T mod M} of them the larger count (so the counts differ by one at most, whatever
 * the previous assignment). Within those quotas:
 *
 * <ol>
 *   <li>a task stays with the member that had it active (member stickiness);
 *   <li>else it goes to the least loaded member of the process that had it (a process restarted
 *       its threads: process stickiness), if that member has room;
 *   <li>else to the least loaded member, preferring one that was its standby (it has the state).
 * </ol>
 *
 * Tasks are taken partition by partition across the subtopologies (0_0, 1_0, 0_1, 1_1...), so each
 * member's share mixes the subtopologies. Ties go to the member id first in order, so the result is
 * a function of the input alone.
 *
 * <h2>Standby tasks</h2>
 *
 * Each task gets up to {@code standbyReplicas} standby copies, each on a member of a different
 * process than the task's active member and than the other copies (a standby in the same process
 * as the active protects nothing); a member that had the task as standby keeps it when it may,
 * else the member with the fewest standby tasks takes it. With too few processes a task gets fewer
 * copies. Warm-up tasks are never assigned.
 *
 * <p>Stateless and thread-safe.
 */
public final class StickyTaskAssignor {

    /** What the assignor knows of a member. */
    public record MemberSpec(String processId, Tasks previous) {
        public MemberSpec {
            Objects.requireNonNull(processId, "processId");
            Objects.requireNonNull(previous, "previous");
        }
    }

    private StickyTaskAssignor() {}

    /**
     * Assigns {@code tasks} to {@code members}.
     *
     * @param members by member id
     * @param tasks every task to assign
     * @param standbyReplicas standby copies wanted per task, 0 or more
     * @return every member's tasks (members without any get {@link Tasks#EMPTY})
     */
    public static SortedMap<String, Tasks> assign(
            SortedMap<String, MemberSpec> members, SortedSet<TaskId> tasks, int standbyReplicas) {
        if (standbyReplicas < 0) {
            throw new IllegalArgumentException("standbyReplicas must be 0 or more, got " + standbyReplicas);
        }
        SortedMap<String, SortedSet<TaskId>> active = new TreeMap<>();
        SortedMap<String, SortedSet<TaskId>> standby = new TreeMap<>();
        for (String member : members.keySet()) {
            active.put(member, new TreeSet<>());
            standby.put(member, new TreeSet<>());
        }
        if (!members.isEmpty()) {
            assignActive(members, tasks, active);
            assignStandby(members, tasks, standbyReplicas, active, standby);
        }
        SortedMap<String, Tasks> result = new TreeMap<>();
        for (String member : members.keySet()) {
            result.put(member, new Tasks(active.get(member), standby.get(member), Collections.emptySortedSet()));
        }
        return result;
    }

    private static void assignActive(
            SortedMap<String, MemberSpec> members,
            SortedSet<TaskId> tasks,
            SortedMap<String, SortedSet<TaskId>> active) {
        Quotas quotas = new Quotas(tasks.size(), members.size());
        Map<TaskId, String> previousOwner = new HashMap<>();
        Map<TaskId, String> previousProcess = new HashMap<>();
        Map<TaskId, List<String>> previousStandbys = new HashMap<>();
        members.forEach((member, spec) -> {
            for (TaskId task : spec.previous().active()) {
                // Two previous owners cannot happen with this coordinator; keep the first by id.
                previousOwner.putIfAbsent(task, member);
                previousProcess.putIfAbsent(task, spec.processId());
            }
            for (TaskId task : spec.previous().standby()) {
                previousStandbys.computeIfAbsent(task, k -> new ArrayList<>()).add(member);
            }
        });
        // Partition by partition across the subtopologies, so that a member keeping only part of
        // what it had keeps some of each subtopology, and new tasks spread the same way.
        List<TaskId> order = new ArrayList<>(tasks);
        order.sort(java.util.Comparator.comparingInt(TaskId::partition).thenComparing(TaskId::subtopologyId));
        List<TaskId> unassigned = new ArrayList<>();
        // 1. stickiness to the member, within the floor quota first, then the few larger quotas
        for (TaskId task : order) {
            String owner = previousOwner.get(task);
            if (owner != null && active.get(owner).size() < quotas.floor) {
                active.get(owner).add(task);
            } else {
                unassigned.add(task);
            }
        }
        List<TaskId> rest = new ArrayList<>();
        for (TaskId task : unassigned) {
            String owner = previousOwner.get(task);
            if (owner != null && quotas.mayTakeOneMore(active.get(owner).size())) {
                quotas.took(active.get(owner).size());
                active.get(owner).add(task);
            } else {
                rest.add(task);
            }
        }
        // 2. stickiness to the process; 3. the least loaded member (a previous standby first)
        for (TaskId task : rest) {
            String process = previousProcess.get(task);
            String chosen = null;
            if (process != null) {
                chosen = leastLoaded(
                        members, active, quotas, m -> members.get(m).processId().equals(process));
            }
            if (chosen == null) {
                List<String> standbys = previousStandbys.getOrDefault(task, List.of());
                chosen = leastLoaded(members, active, quotas, standbys::contains);
            }
            if (chosen == null) {
                chosen = leastLoaded(members, active, quotas, m -> true);
            }
            if (chosen == null) {
                throw new IllegalStateException("no member has room for task " + task + ": " + active);
            }
            if (active.get(chosen).size() >= quotas.floor) {
                quotas.took(active.get(chosen).size());
            }
            active.get(chosen).add(task);
        }
    }

    /** The member with the fewest active tasks among those {@code eligible} with room, or null. */
    private static String leastLoaded(
            SortedMap<String, MemberSpec> members,
            SortedMap<String, SortedSet<TaskId>> active,
            Quotas quotas,
            java.util.function.Predicate<String> eligible) {
        String best = null;
        int bestLoad = Integer.MAX_VALUE;
        for (String member : members.keySet()) {
            int load = active.get(member).size();
            boolean room = load < quotas.floor || quotas.mayTakeOneMore(load);
            if (room && eligible.test(member) && load < bestLoad) {
                best = member;
                bestLoad = load;
            }
        }
        return best;
    }

    /**
     * The active-task quotas: every member may have {@code floor} tasks; {@code remainder} of them
     * may have one more.
     */
    private static final class Quotas {
        final int floor;
        int largerLeft;

        Quotas(int tasks, int members) {
            this.floor = tasks / members;
            this.largerLeft = tasks % members;
        }

        /** Whether a member holding {@code load} tasks may take one more. */
        boolean mayTakeOneMore(int load) {
            return load == floor && largerLeft > 0;
        }

        /** A member holding {@code load} (the floor) took one more. */
        void took(int load) {
            if (load != floor || largerLeft == 0) {
                throw new IllegalStateException("a member at " + load + " tasks cannot take one more");
            }
            largerLeft--;
        }
    }

    private static void assignStandby(
            SortedMap<String, MemberSpec> members,
            SortedSet<TaskId> tasks,
            int standbyReplicas,
            SortedMap<String, SortedSet<TaskId>> active,
            SortedMap<String, SortedSet<TaskId>> standby) {
        if (standbyReplicas == 0) {
            return;
        }
        Map<TaskId, String> activeProcess = new HashMap<>();
        active.forEach((member, owned) -> {
            for (TaskId task : owned) {
                activeProcess.put(task, members.get(member).processId());
            }
        });
        for (TaskId task : tasks) {
            SortedSet<String> processes = new TreeSet<>();
            processes.add(activeProcess.get(task));
            for (int copy = 0; copy < standbyReplicas; copy++) {
                String chosen = null;
                int chosenLoad = Integer.MAX_VALUE;
                boolean chosenHadIt = false;
                for (Map.Entry<String, MemberSpec> entry : members.entrySet()) {
                    if (processes.contains(entry.getValue().processId())) {
                        continue;
                    }
                    boolean hadIt = entry.getValue().previous().standby().contains(task);
                    int load = standby.get(entry.getKey()).size();
                    if (chosen == null || (hadIt && !chosenHadIt) || (hadIt == chosenHadIt && load < chosenLoad)) {
                        chosen = entry.getKey();
                        chosenLoad = load;
                        chosenHadIt = hadIt;
                    }
                }
                if (chosen == null) {
                    break;
                }
                standby.get(chosen).add(task);
                processes.add(members.get(chosen).processId());
            }
        }
    }
}
