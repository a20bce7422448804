package io.tributary.coordinator.group.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.IntSummaryStatistics;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Properties of the sticky task assignor over many seeds; a failure names its seed. */
class StickyTaskAssignorTest {

    static LongStream seeds() {
        return LongStream.range(0, 500);
    }

    private record Case(
            SortedMap<String, StickyTaskAssignor.MemberSpec> members, SortedSet<TaskId> tasks, int standbys) {}

    /**
     * 1-4 subtopologies of 1-12 partitions, 1-9 members in 1-4 processes, each member with a random
     * previous assignment (tasks that may no longer exist, active on two members, standby anywhere).
     */
    private static Case randomCase(SplittableRandom random) {
        SortedSet<TaskId> tasks = new TreeSet<>();
        int subtopologies = 1 + random.nextInt(4);
        for (int s = 0; s < subtopologies; s++) {
            int partitions = 1 + random.nextInt(12);
            for (int p = 0; p < partitions; p++) {
                tasks.add(new TaskId(Integer.toString(s), p));
            }
        }
        int memberCount = 1 + random.nextInt(9);
        int processes = 1 + random.nextInt(4);
        SortedMap<String, StickyTaskAssignor.MemberSpec> members = new TreeMap<>();
        for (int m = 0; m < memberCount; m++) {
            SortedSet<TaskId> active = new TreeSet<>();
            SortedSet<TaskId> standby = new TreeSet<>();
            for (int s = 0; s < subtopologies + 1; s++) {
                for (int p = 0; p < 14; p++) {
                    int roll = random.nextInt(memberCount * 2 + 1);
                    if (roll == 0) {
                        active.add(new TaskId(Integer.toString(s), p));
                    } else if (roll == 1) {
                        standby.add(new TaskId(Integer.toString(s), p));
                    }
                }
            }
            members.put(
                    "m" + m,
                    new StickyTaskAssignor.MemberSpec(
                            "process-" + random.nextInt(processes), new Tasks(active, standby, new TreeSet<>())));
        }
        return new Case(members, tasks, random.nextInt(3));
    }

    private static SortedMap<String, Tasks> assign(Case c) {
        return StickyTaskAssignor.assign(c.members(), c.tasks(), c.standbys());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyTaskIsActiveOnExactlyOneMemberAndMembersAreBalanced(long seed) {
        Case c = randomCase(new SplittableRandom(seed));
        SortedMap<String, Tasks> result = assign(c);
        assertThat(result.keySet())
                .as("seed %d: every member has an entry", seed)
                .isEqualTo(c.members().keySet());
        Map<TaskId, String> owner = new HashMap<>();
        result.forEach((member, tasks) -> {
            for (TaskId task : tasks.active()) {
                assertThat(owner.put(task, member))
                        .as("seed %d: %s active twice", seed, task)
                        .isNull();
            }
            assertThat(tasks.warmup()).as("seed %d: no warm-up tasks", seed).isEmpty();
        });
        assertThat(owner.keySet())
                .as("seed %d: the active tasks are the tasks", seed)
                .isEqualTo(c.tasks());
        IntSummaryStatistics counts =
                result.values().stream().mapToInt(t -> t.active().size()).summaryStatistics();
        assertThat(counts.getMax() - counts.getMin())
                .as("seed %d: active counts differ by one at most: %s", seed, counts)
                .isLessThanOrEqualTo(1);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void standbyTasksAreOnOtherProcessesThanTheActiveAndEachOther(long seed) {
        Case c = randomCase(new SplittableRandom(seed));
        SortedMap<String, Tasks> result = assign(c);
        Map<TaskId, String> activeProcess = new HashMap<>();
        result.forEach((member, tasks) -> tasks.active()
                .forEach(task -> activeProcess.put(task, c.members().get(member).processId())));
        long processes = c.members().values().stream()
                .map(StickyTaskAssignor.MemberSpec::processId)
                .distinct()
                .count();
        Map<TaskId, SortedSet<String>> standbyProcesses = new HashMap<>();
        result.forEach((member, tasks) -> {
            String process = c.members().get(member).processId();
            for (TaskId task : tasks.standby()) {
                assertThat(c.tasks())
                        .as("seed %d: standby %s exists", seed, task)
                        .contains(task);
                assertThat(process)
                        .as("seed %d: standby %s on the active's process", seed, task)
                        .isNotEqualTo(activeProcess.get(task));
                assertThat(standbyProcesses
                                .computeIfAbsent(task, k -> new TreeSet<>())
                                .add(process))
                        .as("seed %d: two standbys of %s in %s", seed, task, process)
                        .isTrue();
            }
        });
        for (TaskId task : c.tasks()) {
            int copies = standbyProcesses.getOrDefault(task, new TreeSet<>()).size();
            assertThat(copies).as("seed %d: standby copies of %s", seed, task).isEqualTo((int)
                    Math.min(c.standbys(), processes - 1));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theResultIsTheSameWhateverTheOrderOfComputationAndAgainOnItselfNothingMoves(long seed) {
        Case c = randomCase(new SplittableRandom(seed));
        SortedMap<String, Tasks> first = assign(c);
        assertThat(assign(c)).as("seed %d: deterministic", seed).isEqualTo(first);
        SortedMap<String, StickyTaskAssignor.MemberSpec> again = new TreeMap<>();
        c.members()
                .forEach((member, spec) ->
                        again.put(member, new StickyTaskAssignor.MemberSpec(spec.processId(), first.get(member))));
        SortedMap<String, Tasks> second = StickyTaskAssignor.assign(again, c.tasks(), c.standbys());
        second.forEach((member, tasks) -> assertThat(tasks.active())
                .as("seed %d: a balanced assignment given again stays where it is (%s)", seed, member)
                .isEqualTo(first.get(member).active()));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aJoiningMemberTakesOnlyItsShareFromTheOthers(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Case c = randomCase(random);
        SortedMap<String, Tasks> before = assign(c);
        SortedMap<String, StickyTaskAssignor.MemberSpec> withNew = new TreeMap<>();
        c.members()
                .forEach((member, spec) ->
                        withNew.put(member, new StickyTaskAssignor.MemberSpec(spec.processId(), before.get(member))));
        withNew.put("new", new StickyTaskAssignor.MemberSpec("process-new", Tasks.EMPTY));
        SortedMap<String, Tasks> after = StickyTaskAssignor.assign(withNew, c.tasks(), 0);
        int moved = 0;
        for (String member : c.members().keySet()) {
            SortedSet<TaskId> lost = new TreeSet<>(before.get(member).active());
            lost.removeAll(after.get(member).active());
            moved += lost.size();
            SortedSet<TaskId> gained = new TreeSet<>(after.get(member).active());
            gained.removeAll(before.get(member).active());
            assertThat(gained)
                    .as("seed %d: %s gains nothing when a member joins", seed, member)
                    .isEmpty();
        }
        assertThat(moved)
                .as("seed %d: only the new member's share moves", seed)
                .isEqualTo(after.get("new").active().size());
        assertThat(after.get("new").active().size())
                .as("seed %d: the new member gets its share", seed)
                .isEqualTo(c.tasks().size() / withNew.size());
    }

    @Test
    void twoMembersOfEightTasksGetFourEachAndTheSurvivorAllEight() {
        SortedSet<TaskId> tasks = new TreeSet<>();
        for (String subtopology : new String[] {"0", "1"}) {
            for (int p = 0; p < 4; p++) {
                tasks.add(new TaskId(subtopology, p));
            }
        }
        SortedMap<String, StickyTaskAssignor.MemberSpec> two = new TreeMap<>();
        two.put("a", new StickyTaskAssignor.MemberSpec("pa", Tasks.EMPTY));
        two.put("b", new StickyTaskAssignor.MemberSpec("pb", Tasks.EMPTY));
        SortedMap<String, Tasks> shared = StickyTaskAssignor.assign(two, tasks, 0);
        assertThat(shared.get("a").active()).hasSize(4);
        assertThat(shared.get("b").active()).hasSize(4);
        SortedMap<String, StickyTaskAssignor.MemberSpec> one = new TreeMap<>();
        one.put("b", new StickyTaskAssignor.MemberSpec("pb", shared.get("b")));
        assertThat(StickyTaskAssignor.assign(one, tasks, 0).get("b").active()).isEqualTo(tasks);
    }
}
