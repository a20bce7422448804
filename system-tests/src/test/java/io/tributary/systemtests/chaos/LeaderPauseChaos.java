package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.chaos.HistoryChecker.Report;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGSTOP of partition 0's leader for longer than the coordinator's session timeout (6 s), then
 * SIGCONT, in a loop: the paused broker is fenced and another ISR member elected in a higher
 * epoch; the zombie wakes believing it leads and must acknowledge nothing (an acknowledgement it
 * gave alone would be LOST or MISPLACED). Run by {@code bin/chaos}; settings: {@link
 * LeaderKillScenario#fromProperties} ({@code chaos.kills} defaults to 5, {@code chaos.downtime.ms},
 * the pause, to 10000).
 */
class LeaderPauseChaos {

    @TempDir
    Path work;

    @Test
    void aPausedLeaderAcknowledgesNothingAfterItsFence() throws Exception {
        var settings = LeaderKillScenario.fromProperties(
                "chaos-leader-pause", LeaderKillScenario.Fault.LEADER_PAUSE, 5, Duration.ofSeconds(10));
        var scenario = new LeaderKillScenario(work, settings);

        Report report = scenario.run();

        assertThat(report.acknowledged()).as("acknowledged writes").isPositive();
        assertThat(report.faults()).as("faults injected").isEqualTo(2 * settings.kills());
        assertThat(scenario.leaderMovedRounds())
                .as("rounds in which another leader, in a higher epoch, was elected while the old one was paused")
                .isEqualTo(settings.kills());
        assertThat(report.lost()).as("acknowledged writes lost").isZero();
        assertThat(report.anomalies()).as(report.summary()).isEmpty();
    }
}
