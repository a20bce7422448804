package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.chaos.HistoryChecker.Report;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controlled shutdown, end to end, in {@code bin/chaos} (the broker's own {@code
 * ControlledShutdownTest} covers it in the default build): a clean restart ({@code bin/tributary
 * stop}: SIGTERM, then start) of partition 0's leader under load, on a cluster whose coordinator fences a
 * silent broker only after 60 s. As soon as the stopped process has exited, the coordinator already
 * shows another leader in a higher epoch: only the broker's controlled shutdown can have moved it
 * that early (its session had 60 s to run). Then the checker over the history. The full loop is
 * {@link LeaderRestartChaos} ({@code bin/chaos}).
 */
class ControlledShutdownShortChaos {

    @TempDir
    Path work;

    @Test
    void aCleanlyStoppedLeaderHandsItsLeadershipOverBeforeItsSessionExpires() throws Exception {
        var settings = new LeaderKillScenario.Settings(
                "chaos-controlled-shutdown-short",
                LeaderKillScenario.Fault.LEADER_RESTART,
                1,
                Duration.ofSeconds(2),
                Duration.ofSeconds(1),
                Duration.ofSeconds(1),
                Duration.ofSeconds(20),
                3,
                new Workload.Config(2, 1, 20, Duration.ofMillis(5), Duration.ofSeconds(30)),
                Map.of("TRIBUTARY_JAVA_OPTS", "-Xmx1g -Dtributary.coordinator.metadata.session-timeout=60s"));
        var scenario = new LeaderKillScenario(work, settings);

        Report report = scenario.run();

        assertThat(scenario.leaderMovedRounds())
                .as("rounds in which the leadership had moved when the stopped leader's process had exited")
                .isEqualTo(1);
        assertThat(report.acknowledged()).as("acknowledged writes").isPositive();
        assertThat(report.faults()).as("faults injected").isEqualTo(2);
        assertThat(report.lost()).as("acknowledged writes lost").isZero();
        assertThat(report.anomalies()).as(report.summary()).isEmpty();
    }
}
