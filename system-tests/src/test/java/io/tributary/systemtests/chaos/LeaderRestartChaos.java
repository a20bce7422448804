package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.chaos.HistoryChecker.Report;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clean restarts of partition 0's leader in a loop (SIGTERM through {@code bin/tributary stop}, so
 * the broker's controlled shutdown moves its leaderships before it exits, then start). Run by {@code bin/chaos} (Maven profile {@code chaos}), never by the default build;
 * settings: {@link LeaderKillScenario#fromProperties} ({@code chaos.kills} defaults to 5).
 */
class LeaderRestartChaos {

    @TempDir
    Path work;

    @Test
    void cleanLeaderRestartsLoseNoAcknowledgedWrite() throws Exception {
        var settings =
                LeaderKillScenario.fromProperties("chaos-leader-restart", LeaderKillScenario.Fault.LEADER_RESTART, 5);

        var scenario = new LeaderKillScenario(work, settings);
        Report report = scenario.run();

        assertThat(report.acknowledged()).as("acknowledged writes").isPositive();
        assertThat(report.faults()).as("faults injected").isEqualTo(2 * settings.kills());
        assertThat(scenario.leaderMovedRounds())
                .as(
                        "rounds in which the leadership had moved when the stopped process had exited (controlled shutdown)")
                .isEqualTo(settings.kills());
        assertThat(report.lost()).as("acknowledged writes lost").isZero();
        assertThat(report.anomalies()).as(report.summary()).isEmpty();
    }
}
