package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.chaos.HistoryChecker.Report;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition 0's leader cut off from the coordinator and the other brokers, in a loop: the
 * coordinator and each broker run in their own network namespace ({@link NetworkLab}), the test's
 * clients in this one, on a bridge. Each round blackholes the traffic between the leader and the
 * other members for {@code chaos.downtime.ms} (10000, against the 6 s session timeout) and until
 * the coordinator has elected another leader in a higher epoch, while the producers and consumers
 * still reach the old leader: a zombie that acknowledged a write alone would show as {@code LOST}
 * or {@code MISPLACED}. Then the cut heals and the old leader must catch up and rejoin the ISR.
 * The second test cuts a follower off the same way until it has left the ISR, heals, and waits
 * until it is back. Run by {@code bin/chaos}; needs root (network namespaces) and fails saying so
 * otherwise; settings: {@link LeaderKillScenario#fromProperties} ({@code chaos.kills} defaults to
 * 5).
 */
class LeaderPartitionChaos {

    private static final List<String> MEMBERS = List.of("coordinator-0", "broker-0", "broker-1", "broker-2");

    @TempDir
    Path work;

    @Test
    void aLeaderCutOffFromTheClusterAcknowledgesNothingAlone() throws Exception {
        var settings = LeaderKillScenario.fromProperties(
                "chaos-leader-partition", LeaderKillScenario.Fault.LEADER_CUT, 5, Duration.ofSeconds(10));
        try (var lab = NetworkLab.create(MEMBERS)) {
            var scenario = new LeaderKillScenario(work, settings, lab);

            Report report = scenario.run();

            assertThat(report.acknowledged()).as("acknowledged writes").isPositive();
            assertThat(report.faults()).as("faults injected").isEqualTo(2 * settings.kills());
            assertThat(scenario.leaderMovedRounds())
                    .as("rounds in which another leader, in a higher epoch, was elected while the old one was cut off")
                    .isEqualTo(settings.kills());
            assertThat(scenario.rejoinedRounds())
                    .as("rounds after which the old leader was back in the ISR")
                    .isEqualTo(settings.kills());
            assertThat(report.lost()).as("acknowledged writes lost").isZero();
            assertThat(report.anomalies()).as(report.summary()).isEmpty();
        }
    }

    @Test
    void aFollowerCutOffLeavesTheIsrAndCatchesUpAfterTheHeal() throws Exception {
        var settings = LeaderKillScenario.fromProperties(
                "chaos-follower-partition", LeaderKillScenario.Fault.FOLLOWER_CUT, 5, Duration.ofSeconds(10));
        try (var lab = NetworkLab.create(MEMBERS)) {
            var scenario = new LeaderKillScenario(work, settings, lab);

            Report report = scenario.run();

            assertThat(report.acknowledged()).as("acknowledged writes").isPositive();
            assertThat(report.faults()).as("faults injected").isEqualTo(2 * settings.kills());
            assertThat(scenario.leftIsrRounds())
                    .as("rounds in which the cut-off follower left partition 0's ISR at the coordinator")
                    .isEqualTo(settings.kills());
            assertThat(scenario.rejoinedRounds())
                    .as("rounds after which the follower was back in the ISR")
                    .isEqualTo(settings.kills());
            assertThat(report.lost()).as("acknowledged writes lost").isZero();
            assertThat(report.anomalies()).as(report.summary()).isEmpty();
        }
    }
}
