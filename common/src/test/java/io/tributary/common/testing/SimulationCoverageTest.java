package io.tributary.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The coverage check the seeded simulations end with. */
class SimulationCoverageTest {

    private static SimulationCoverage twoRuns() {
        return new SimulationCoverage("sim", 2).require("crashes", 3).require("failovers", 1);
    }

    @Test
    void passesWhenEveryEventReachedItsMinimumOverTheRuns() {
        SimulationCoverage coverage = twoRuns();
        SimulationCoverage.Tally first = coverage.tally();
        first.add("crashes", 2);
        first.count("failovers");
        coverage.completed(first);
        SimulationCoverage.Tally second = coverage.tally();
        second.count("crashes");
        coverage.completed(second);

        coverage.check();
        assertThat(coverage.total("crashes")).isEqualTo(3);
        assertThat(coverage.summary())
                .isEqualTo("sim coverage over 2 of 2 runs: crashes 3 (at least 3), failovers 1 (at least 1)");
    }

    @Test
    void failsNamingEachEventBelowItsMinimum() {
        SimulationCoverage coverage = twoRuns();
        SimulationCoverage.Tally first = coverage.tally();
        first.count("crashes");
        coverage.completed(first);
        coverage.completed(coverage.tally());

        assertThatThrownBy(coverage::check)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("crashes: 1 < 3")
                .hasMessageContaining("failovers: 0 < 1");
    }

    @Test
    void minimumsApplyOnlyWhenEveryRunCompleted() {
        SimulationCoverage coverage = twoRuns();
        coverage.completed(coverage.tally());

        coverage.check();
        assertThat(coverage.summary()).startsWith("sim coverage over 1 of 2 runs");
    }

    @Test
    void aFailedRunCountsNothing() {
        SimulationCoverage coverage = twoRuns();
        SimulationCoverage.Tally failed = coverage.tally();
        failed.add("crashes", 5);

        assertThat(failed.get("crashes")).isEqualTo(5);
        assertThat(coverage.total("crashes")).isZero();
    }

    @Test
    void refusesUndeclaredEventsAndMinimumsBelowOne() {
        SimulationCoverage coverage = twoRuns();
        assertThatThrownBy(() -> coverage.tally().count("crahses"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("crahses is not an event of sim");
        assertThatThrownBy(() -> coverage.require("reopens", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> coverage.require("crashes", 4)).isInstanceOf(IllegalArgumentException.class);
    }
}
