package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.chaos.HistoryChecker.Report;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of partition 0's leader in a loop, at full length (20 kills). Run by {@code bin/chaos} (Maven profile {@code chaos}), never by the default build;
 * settings: {@link LeaderKillScenario#fromProperties} ({@code chaos.kills} defaults to 20).
 */
class LeaderKillChaos {

    @TempDir
    Path work;

    @Test
    void leaderKillsInALoopLoseNoAcknowledgedWrite() throws Exception {
        var settings = LeaderKillScenario.fromProperties("chaos-leader-kill", LeaderKillScenario.Fault.LEADER_KILL, 20);

        Report report = new LeaderKillScenario(work, settings).run();

        assertThat(report.acknowledged()).as("acknowledged writes").isPositive();
        assertThat(report.faults()).as("faults injected").isEqualTo(2 * settings.kills());
        assertThat(report.lost()).as("acknowledged writes lost").isZero();
        assertThat(report.anomalies()).as(report.summary()).isEmpty();
    }
}
