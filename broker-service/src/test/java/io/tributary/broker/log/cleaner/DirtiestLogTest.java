package io.tributary.broker.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.CleanableSection;
import io.tributary.broker.log.CompactionConfig;
import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import io.tributary.broker.log.LogConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class DirtiestLogTest {

    private static final CompactionConfig COMPACT =
            CompactionConfig.defaults().withCleanupPolicy(Set.of(CleanupPolicy.COMPACT));

    private static CleanableSection section(
            CompactionConfig compaction, long cleanBytes, long dirtyBytes, OptionalLong firstDirtyTimestampMs) {
        return new CleanableSection(
                0,
                0,
                0,
                List.of(),
                cleanBytes,
                dirtyBytes,
                firstDirtyTimestampMs,
                Map.of(),
                LogConfig.defaults().withCompaction(compaction));
    }

    private static Optional<String> choose(Map<String, CleanableSection> logs, long nowMs) {
        Function<String, CleanableSection> sectionOf = logs::get;
        return DirtiestLog.choose(List.copyOf(logs.keySet()), sectionOf, nowMs);
    }

    @Test
    void theDirtiestLogAboveTheMinimumRatioIsChosen() {
        Map<String, CleanableSection> logs = Map.of(
                "a", section(COMPACT, 400, 600, OptionalLong.empty()),
                "b", section(COMPACT, 100, 900, OptionalLong.empty()),
                "c", section(COMPACT, 900, 100, OptionalLong.empty()));

        assertThat(choose(logs, 0)).hasValue("b");
    }

    @Test
    void aLogAtOrBelowTheMinimumRatioWaits() {
        Map<String, CleanableSection> logs = Map.of("a", section(COMPACT, 500, 500, OptionalLong.empty()));

        assertThat(choose(logs, 0)).isEmpty();
        assertThat(choose(
                        Map.of("a", section(COMPACT.withMinCleanableDirtyRatio(0.4), 500, 500, OptionalLong.empty())),
                        0))
                .hasValue("a");
    }

    @Test
    void aLogPastMaxCompactionLagIsDueWhateverItsRatio() {
        CompactionConfig lagged = COMPACT.withMaxCompactionLag(Optional.of(Duration.ofSeconds(10)));
        CleanableSection section = section(lagged, 990, 10, OptionalLong.of(1_000));

        assertThat(DirtiestLog.isDue(section, 11_000)).isFalse();
        assertThat(DirtiestLog.isDue(section, 11_001)).isTrue();
    }

    @Test
    void logsWithoutCompactionOrDirtyBytesAreNeverDue() {
        assertThat(DirtiestLog.isDue(section(CompactionConfig.defaults(), 0, 1000, OptionalLong.empty()), 0))
                .isFalse();
        assertThat(DirtiestLog.isDue(section(COMPACT, 1000, 0, OptionalLong.of(0)), Long.MAX_VALUE))
                .isFalse();
    }
}
