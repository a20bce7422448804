package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.chaos.HistoryChecker.Report;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower of partition 0 SIGKILLed while the load goes on, started again far behind (it
 * truncates where its log diverged, asking OffsetForLeaderEpoch, and catches up), and once it is
 * back in the ISR the leader is SIGKILLed; in a loop. Run by {@code bin/chaos}; settings: {@link
 * LeaderKillScenario#fromProperties} ({@code chaos.kills} defaults to 5, {@code chaos.downtime.ms}
 * to 10000: each victim stays down that long).
 */
class FollowerCatchUpChaos {

    @TempDir
    Path work;

    @Test
    void aFollowerBackFromBehindThenTheLeaderKilledLosesNoAcknowledgedWrite() throws Exception {
        var settings = LeaderKillScenario.fromProperties(
                "chaos-follower-catch-up",
                LeaderKillScenario.Fault.FOLLOWER_THEN_LEADER_KILL,
                5,
                Duration.ofSeconds(10));
        var scenario = new LeaderKillScenario(work, settings);

        Report report = scenario.run();

        assertThat(report.acknowledged()).as("acknowledged writes").isPositive();
        assertThat(report.faults()).as("faults injected").isEqualTo(4 * settings.kills());
        assertThat(scenario.followerCaughtUpRounds())
                .as("rounds whose follower was back in the ISR before the leader's kill")
                .isEqualTo(settings.kills());
        assertThat(report.lost()).as("acknowledged writes lost").isZero();
        assertThat(report.anomalies()).as(report.summary()).isEmpty();
    }
}
