package io.tributary.broker.log.cleaner;

import io.tributary.broker.log.CleanableSection;
import io.tributary.broker.log.CompactionConfig;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which log a cleaner thread cleans next, by Kafka's rules: among the logs whose {@code
 * cleanup.policy} has {@code compact} and that have dirty bytes, those whose dirty ratio (dirty
 * bytes over cleanable bytes) is above {@code min.cleanable.dirty.ratio}, or whose oldest dirty
 * record is older than {@code max.compaction.lag.ms}; of these, the one with the largest dirty ratio
 * (of equal ones, the first given).
 *
 * <p>Stateless; thread-safe.
 */
public final class DirtiestLog {

    private DirtiestLog() {}

    /**
     * The candidate to clean now, if any needs it at {@code nowMs}: {@code sectionOf} gives each
     * candidate's cleanable section, taken just before choosing.
     */
    public static <T> Optional<T> choose(List<T> candidates, Function<T, CleanableSection> sectionOf, long nowMs) {
        return inOrder(candidates, sectionOf, nowMs).stream().findFirst();
    }

    /**
     * The candidates that need cleaning at {@code nowMs}, the one to clean first first: by dirty ratio,
     * largest first (of equal ones, the first given). A round whose first choice fails goes on with
     * the next.
     */
    public static <T> List<T> inOrder(List<T> candidates, Function<T, CleanableSection> sectionOf, long nowMs) {
        return candidates.stream()
                .map(c -> Map.entry(c, sectionOf.apply(c)))
                .filter(e -> isDue(e.getValue(), nowMs))
                .sorted(Comparator.comparingDouble((Map.Entry<T, CleanableSection> e) ->
                                e.getValue().dirtyRatio())
                        .reversed())
                .map(Map.Entry::getKey)
                .toList();
    }

    /** Whether {@code section} must be cleaned at {@code nowMs}. */
    public static boolean isDue(CleanableSection section, long nowMs) {
        CompactionConfig compaction = section.config().compaction();
        if (!compaction.compacts() || section.dirtyBytes() == 0) {
            return false;
        }
        return pastMaxCompactionLag(section, nowMs) || section.dirtyRatio() > compaction.minCleanableDirtyRatio();
    }

    /**
     * How long past {@code max.compaction.lag.ms} the oldest dirty record of {@code section} is at
     * {@code nowMs} (Kafka's compaction delay); 0 when it is not past it, nothing is dirty, or the
     * topic sets no such lag.
     */
    public static long compactionDelayMs(CleanableSection section, long nowMs) {
        Optional<Duration> maxLag = section.config().compaction().maxCompactionLag();
        if (maxLag.isEmpty()
                || section.dirtyBytes() == 0
                || section.firstDirtyTimestampMs().isEmpty()) {
            return 0;
        }
        return Math.max(
                0,
                nowMs
                        - maxLag.get().toMillis()
                        - section.firstDirtyTimestampMs().getAsLong());
    }

    private static boolean pastMaxCompactionLag(CleanableSection section, long nowMs) {
        Optional<Duration> maxLag = section.config().compaction().maxCompactionLag();
        return maxLag.isPresent()
                && section.firstDirtyTimestampMs().isPresent()
                && nowMs - section.firstDirtyTimestampMs().getAsLong()
                        > maxLag.get().toMillis();
    }
}
