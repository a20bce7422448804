package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.chaos.HistoryChecker.Report;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of every broker at once, then all started again, in a loop. Run by {@code bin/chaos} (Maven profile {@code chaos}), never by the default build;
 * settings: {@link LeaderKillScenario#fromProperties} ({@code chaos.kills} defaults to 3).
 */
class AllBrokersKillChaos {

    @TempDir
    Path work;

    @Test
    void killingEveryBrokerAtOnceLosesNoAcknowledgedWrite() throws Exception {
        var settings =
                LeaderKillScenario.fromProperties("chaos-all-brokers-kill", LeaderKillScenario.Fault.ALL_KILL, 3);

        Report report = new LeaderKillScenario(work, settings).run();

        assertThat(report.acknowledged()).as("acknowledged writes").isPositive();
        assertThat(report.faults()).as("faults injected").isEqualTo(6 * settings.kills());
        assertThat(report.lost()).as("acknowledged writes lost").isZero();
        assertThat(report.anomalies()).as(report.summary()).isEmpty();
    }
}
