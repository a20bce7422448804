package io.tributary.systemtests.kafka;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Differential ({@link Differential}): static members (KIP-345, {@code group.instance.id}) of a
 * classic group, eager ({@code RangeAssignor}), as {@link ClassicGroupIT} runs its dynamic members
 * (the same {@link ClassicGroupSteps}: records flowing during each change, every invariant checked
 * after it, nothing lost). One member closes without leaving (a static member's close does not send
 * LeaveGroup) and a new consumer with its instance id takes its place; the child JVM member gets
 * SIGKILL and a new child with its instance id starts within the session timeout ({@link
 * GroupMember#CLASSIC_SESSION_TIMEOUT}). Each time the new incarnation gets exactly the partitions
 * of the old one, in the same generation, and the other members see no rebalance (no rebalance
 * callback, the same generation). Written down and compared with Apache Kafka's: whether the
 * partitions came back, the generation stayed, how many rebalance callbacks the others saw, the
 * client id the group describes each instance with, the committed offsets and how many distinct
 * records were consumed.
 */
@OnSharedTargets
// Alone, after every other class of the run: its static member must be restarted in a new child
// JVM within the 10 s session; beside another class's cluster on two loaded cores that start once
// took longer (the degraded target rebalanced the others).
@Isolated
class ClassicStaticMembersIT {

    private static final GroupMember.Protocol EAGER = GroupMember.Protocol.CLASSIC_EAGER;
    private static final int RECORDS_PER_STEP = ClassicGroupSteps.RECORDS_PER_STEP;

    @Test
    void staticMembersRestartedWithinTheirSessionGetTheirPartitionsBackWithoutARebalance() {
        Differential.assertSameOutcome(ClassicStaticMembersIT::staticRestarts);
    }

    private static void staticRestarts(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        ClassicGroupSteps steps = new ClassicGroupSteps(target, outcome, "classic-static");
        try (steps) {
            steps.producer.limit(RECORDS_PER_STEP);
            steps.producer.start();
            GroupScenario.Running a = steps.start("static-a", "instance-a", EAGER);
            GroupScenario.Running b = steps.start("static-b", "instance-b", EAGER);
            ChildGroupMember c = steps.startChild("static-c", "instance-c", EAGER);
            steps.settle("three static members joined", Set.of("static-a", "static-b", "static-c"));

            // static-a closes (a static member's close does not leave) and comes back at once.
            Set<Integer> partitionsOfA = steps.history.ownedBy("static-a");
            int generation = b.member().generationId();
            ClassicGroupSteps.Quiet others = steps.quiet(List.of(b), "static-b", "static-c");
            steps.producer.limit(2L * RECORDS_PER_STEP);
            a.leave();
            steps.running.remove(a);
            GroupScenario.Running a2 = steps.start("static-a-restarted", "instance-a", EAGER);
            String phase = "static-a closed and restarted with its instance id";
            steps.settle(phase, Set.of("static-a-restarted", "static-b", "static-c"));
            steps.staticReturn(phase, "static-a-restarted", "instance-a", partitionsOfA, others);
            steps.sameGeneration(phase, generation, List.of(a2, b));

            // static-c is killed and a new child with its instance id starts at once.
            Set<Integer> partitionsOfC = steps.history.ownedBy("static-c");
            others = steps.quiet(List.of(a2, b), "static-a-restarted", "static-b");
            steps.producer.limit(3L * RECORDS_PER_STEP);
            c.crash(steps.history);
            steps.startChild("static-c-restarted", "instance-c", EAGER);
            phase = "static-c killed (SIGKILL) and restarted with its instance id";
            steps.settle(phase, Set.of("static-a-restarted", "static-b", "static-c-restarted"));
            steps.staticReturn(phase, "static-c-restarted", "instance-c", partitionsOfC, others);
            steps.sameGeneration(phase, generation, List.of(a2, b));

            steps.finish();
        }
        steps.background.check();
    }
}
