package io.tributary.common.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a seeded simulation's fault generators actually did, summed over its seeds, and the floor
 * each count must reach: a simulation whose failovers, crashes or reopens never happen still passes
 * every invariant, so passing proves nothing unless the faults are shown to have happened.
 *
 * <p>Use: a {@code static final} coverage in the test class, declaring each event with its minimum
 * over all the seeds ({@link #require}); one {@link Tally} per run, counting events as they happen;
 * {@link #completed} when a run finished without failing; {@link #check} in an {@code @AfterAll}.
 * The check prints every count with its minimum, and fails when one is below it. It applies only
 * when every expected run completed: when a run failed, the test is red already; when only some
 * seeds were selected (one pinned to reproduce a failure), the minimums, stated for all the seeds,
 * do not apply, and the printed summary says so.
 *
 * <p>Minimums are chosen well below what the seeds give (about half) and well above zero, so that a
 * change of the random sequence does not fail the check but a generator that stopped does.
 *
 * <p>Thread-safety: {@link #completed}, {@link #summary} and {@link #check} are synchronized; a
 * {@link Tally} belongs to one run's thread.
 */
public final class SimulationCoverage {

    private final String simulation;
    private final long expectedRuns;
    private final Map<String, Long> minimums = new LinkedHashMap<>();
    private final Map<String, Long> totals = new HashMap<>();
    private long completedRuns;

    /**
     * @param simulation the test's name, for the summary
     * @param expectedRuns how many runs (seeds) the full test makes
     */
    public SimulationCoverage(String simulation, long expectedRuns) {
        if (expectedRuns < 1) {
            throw new IllegalArgumentException("expectedRuns must be at least 1: " + expectedRuns);
        }
        this.simulation = simulation;
        this.expectedRuns = expectedRuns;
    }

    /**
     * Declares an event and the least number of times it must happen over all the runs.
     *
     * @param minimum at least 1 (an event that need not happen is not coverage)
     */
    public SimulationCoverage require(String event, long minimum) {
        if (minimum < 1) {
            throw new IllegalArgumentException(event + ": a minimum must be at least 1, got " + minimum);
        }
        if (minimums.putIfAbsent(event, minimum) != null) {
            throw new IllegalArgumentException(event + " is declared twice");
        }
        return this;
    }

    /** A new, empty count for one run. */
    public Tally tally() {
        return new Tally();
    }

    /** Adds the counts of a run that finished without failing. */
    public synchronized void completed(Tally tally) {
        tally.counts.forEach((event, count) -> totals.merge(event, count, Long::sum));
        completedRuns++;
    }

    /** The total of an event over the completed runs. */
    public synchronized long total(String event) {
        known(event);
        return totals.getOrDefault(event, 0L);
    }

    /** Every event with its total and minimum, one line. */
    public synchronized String summary() {
        List<String> parts = new ArrayList<>();
        minimums.forEach((event, minimum) ->
                parts.add(event + " " + totals.getOrDefault(event, 0L) + " (at least " + minimum + ")"));
        return simulation + " coverage over " + completedRuns + " of " + expectedRuns + " runs: "
                + String.join(", ", parts);
    }

    /**
     * Prints the summary and, when every expected run completed, fails if an event stayed below
     * its minimum.
     *
     * @throws AssertionError naming every event below its minimum
     */
    public synchronized void check() {
        String summary = summary();
        if (completedRuns != expectedRuns) {
            System.out.println(summary + "; minimums not checked: they are stated for all " + expectedRuns
                    + " runs (a run failed, or only some seeds were selected)");
            return;
        }
        System.out.println(summary);
        List<String> below = new ArrayList<>();
        minimums.forEach((event, minimum) -> {
            long total = totals.getOrDefault(event, 0L);
            if (total < minimum) {
                below.add(event + ": " + total + " < " + minimum);
            }
        });
        if (!below.isEmpty()) {
            throw new AssertionError(simulation + ": its faults did not happen often enough to prove anything ("
                    + String.join("; ", below) + "). " + summary);
        }
    }

    private void known(String event) {
        if (!minimums.containsKey(event)) {
            throw new IllegalArgumentException(
                    event + " is not an event of " + simulation + "; declared: " + minimums.keySet());
        }
    }

    /** One run's counts. Not thread-safe: one run, one thread. */
    public final class Tally {

        private final Map<String, Long> counts = new HashMap<>();

        private Tally() {}

        /** One more {@code event}. */
        public void count(String event) {
            add(event, 1);
        }

        /** {@code times} more {@code event} (0 or more). */
        public void add(String event, long times) {
            known(event);
            if (times < 0) {
                throw new IllegalArgumentException(event + ": cannot count " + times + " times");
            }
            counts.merge(event, times, Long::sum);
        }

        /** This run's count of {@code event}. */
        public long get(String event) {
            known(event);
            return counts.getOrDefault(event, 0L);
        }

        @Override
        public String toString() {
            List<String> parts = new ArrayList<>();
            minimums.keySet().forEach(event -> parts.add(event + " " + counts.getOrDefault(event, 0L)));
            return String.join(", ", parts);
        }
    }
}
