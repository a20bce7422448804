package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.chaos.HistoryChecker.Report;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short version of the leader-kill scenario, in the default build: 2 SIGKILLs of partition 0's
 * leader under a few seconds of load, then the checker. The full run is {@link LeaderKillChaos}
 * ({@code bin/chaos}).
 */
class LeaderKillShortIT {

    @TempDir
    Path work;

    @Test
    void twoLeaderKillsLoseNoAcknowledgedWrite() throws Exception {
        var settings = new LeaderKillScenario.Settings(
                "chaos-leader-kill-short",
                LeaderKillScenario.Fault.LEADER_KILL,
                2,
                Duration.ofSeconds(2),
                Duration.ofSeconds(2),
                Duration.ofSeconds(1),
                Duration.ofSeconds(20),
                3,
                new Workload.Config(2, 1, 20, Duration.ofMillis(5), Duration.ofSeconds(30)));

        Report report = new LeaderKillScenario(work, settings).run();

        assertThat(report.acknowledged()).as("acknowledged writes").isPositive();
        assertThat(report.faults()).as("faults injected").isEqualTo(4);
        assertThat(report.lost()).as("acknowledged writes lost").isZero();
        assertThat(report.anomalies()).as(report.summary()).isEmpty();
    }
}
