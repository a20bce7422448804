package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.chaos.HistoryChecker.Report;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader-kill scenario at full length, run by {@code bin/chaos} (Maven profile {@code chaos}),
 * never by the default build. Settings (system properties): {@code chaos.kills} (default 20),
 * {@code chaos.downtime.ms} (5000), {@code chaos.between.ms} (3000), {@code chaos.partitions} (3),
 * {@code chaos.producers} (3), {@code chaos.consumers} (2).
 */
class LeaderKillChaos {

    @TempDir
    Path work;

    @Test
    void leaderKillsInALoopLoseNoAcknowledgedWrite() throws Exception {
        int kills = Integer.getInteger("chaos.kills", 20);
        var settings = new LeaderKillScenario.Settings(
                "chaos-leader-kill",
                kills,
                Duration.ofSeconds(3),
                Duration.ofMillis(Long.getLong("chaos.downtime.ms", 5000)),
                Duration.ofMillis(Long.getLong("chaos.between.ms", 3000)),
                Duration.ofSeconds(60),
                Integer.getInteger("chaos.partitions", 3),
                new Workload.Config(
                        Integer.getInteger("chaos.producers", 3),
                        Integer.getInteger("chaos.consumers", 2),
                        20,
                        Duration.ofMillis(5),
                        Duration.ofSeconds(60)));

        Report report = new LeaderKillScenario(work, settings).run();

        assertThat(report.acknowledged()).as("acknowledged writes").isPositive();
        assertThat(report.faults()).as("faults injected").isEqualTo(2 * kills);
        assertThat(report.lost()).as("acknowledged writes lost").isZero();
        assertThat(report.anomalies()).as(report.summary()).isEmpty();
    }
}
