package io.tributary.systemtests.kafka;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The differential comparison every test of this package makes: one scenario runs on every enabled
 * target, Apache Kafka first (or on all at once, for light scenarios that mostly wait: {@link
 * #assertSameOutcomeAtOnce}), and writes down what a client observed as an {@link Outcome} (lines
 * of text, normalised at the source: no topic names, topic ids, broker ids or times the cluster
 * chose). Each Tributary target's outcome must equal Kafka's line for line; Kafka's is the
 * reference, so a scenario whose own assertions fail on Kafka fails as "the expectation is not
 * Kafka's", whatever Tributary did.
 *
 * <p>Without the Kafka target a comparison has no reference: {@link KafkaTargets#enabledList()}
 * refuses such a run, so this class never compares Tributary with itself.
 */
final class Differential {

    private Differential() {}

    /** One scenario on one target: it may assert what it expects, and writes down what it saw. */
    @FunctionalInterface
    interface Scenario {
        void run(KafkaTarget target, Outcome outcome) throws Exception;
    }

    /** What a scenario observed on one target, line by line. */
    static final class Outcome {
        private final List<String> lines = new ArrayList<>();

        /** Writes down one observation: {@code label: value}. */
        synchronized Outcome add(String label, Object value) {
            lines.add(label + ": " + value);
            return this;
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }
    }

    /**
     * Runs {@code scenario} on every enabled target, Kafka first, and fails unless it completed on
     * each and every Tributary target's outcome equals Kafka's. The failure names every target's
     * outcome, the first line where each differs, and where the targets' logs are.
     */
    static void assertSameOutcome(Scenario scenario) {
        List<KafkaTargets.Kind> kinds = KafkaTargets.enabledList();
        Map<KafkaTargets.Kind, Run> runs = new LinkedHashMap<>();
        for (KafkaTargets.Kind kind : kinds) {
            runs.put(kind, Run.on(kind, scenario));
        }
        compare(runs);
    }

    /**
     * {@link #assertSameOutcome}, with the scenario running on every enabled target at the same
     * time, each on its own virtual thread (and its own cluster): for light scenarios, a few
     * requests around waits (for a coordinator's session or rebalance timeout, for metadata to
     * spread), so that the targets' waits overlap instead of adding up. Not for scenarios that load
     * the machine (child JVMs, record streams), whose timing would then depend on the other
     * targets'.
     */
    static void assertSameOutcomeAtOnce(Scenario scenario) {
        List<KafkaTargets.Kind> kinds = KafkaTargets.enabledList();
        Map<KafkaTargets.Kind, Future<Run>> futures = new LinkedHashMap<>();
        Map<KafkaTargets.Kind, Run> runs = new LinkedHashMap<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (KafkaTargets.Kind kind : kinds) {
                futures.put(kind, threads.submit(() -> Run.on(kind, scenario)));
            }
            for (var future : futures.entrySet()) {
                runs.put(future.getKey(), future.getValue().get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while the scenario ran on " + kinds, e);
        } catch (ExecutionException e) {
            // Run.on catches what the scenario throws; only an Error of the JVM's gets here
            throw new AssertionError("the scenario's thread failed: " + e.getCause(), e.getCause());
        }
        compare(runs);
    }

    /** One target's run: what it wrote down, its failure if any, and where its logs are. */
    private record Run(List<String> lines, Throwable failure, String hint) {

        /**
         * Runs {@code scenario} on the target of {@code kind}, starting it if need be; a target
         * that cannot start fails this run with its reason, and the others still run, so that
         * their outcomes show beside it.
         */
        static Run on(KafkaTargets.Kind kind, Scenario scenario) {
            Outcome outcome = new Outcome();
            String hint = null;
            Throwable failure = null;
            try {
                KafkaTarget target = KafkaTargets.get(kind);
                hint = target.logsHint();
                scenario.run(target, outcome);
            } catch (Exception | AssertionError e) {
                failure = e;
            }
            return new Run(outcome.lines(), failure, hint);
        }
    }

    /**
     * Fails unless every run completed and every Tributary target's outcome equals Kafka's; a
     * failure on Kafka, the reference, fails as an expectation that is not Kafka's.
     */
    private static void compare(Map<KafkaTargets.Kind, Run> runs) {
        Map<KafkaTargets.Kind, List<String>> outcomes = new LinkedHashMap<>();
        Map<KafkaTargets.Kind, Throwable> failures = new LinkedHashMap<>();
        Map<KafkaTargets.Kind, String> hints = new LinkedHashMap<>();
        runs.forEach((kind, run) -> {
            outcomes.put(kind, run.lines());
            if (run.failure() != null) {
                failures.put(kind, run.failure());
            }
            if (run.hint() != null) {
                hints.put(kind, run.hint());
            }
        });
        if (failures.containsKey(KafkaTargets.Kind.KAFKA)) {
            throw failure(
                    "the scenario failed on Apache Kafka, the reference: its expectations are not Kafka's",
                    outcomes,
                    failures,
                    hints);
        }
        if (!failures.isEmpty()) {
            throw failure("the scenario failed on " + failures.keySet(), outcomes, failures, hints);
        }
        List<String> reference = outcomes.get(KafkaTargets.Kind.KAFKA);
        StringBuilder differences = new StringBuilder();
        outcomes.forEach((kind, lines) -> {
            if (!lines.equals(reference)) {
                differences.append(firstDifference(kind, lines, reference));
            }
        });
        if (!differences.isEmpty()) {
            throw failure("the outcomes differ from Apache Kafka's:\n" + differences, outcomes, failures, hints);
        }
    }

    /** Where {@code lines} first leaves {@code reference}, for the failure message. */
    static String firstDifference(KafkaTargets.Kind kind, List<String> lines, List<String> reference) {
        int i = 0;
        while (i < lines.size() && i < reference.size() && lines.get(i).equals(reference.get(i))) {
            i++;
        }
        return "  " + kind + ", line " + (i + 1) + ":\n    KAFKA: "
                + (i < reference.size() ? reference.get(i) : "(no more lines)") + "\n    " + kind + ": "
                + (i < lines.size() ? lines.get(i) : "(no more lines)") + "\n";
    }

    private static AssertionError failure(
            String message,
            Map<KafkaTargets.Kind, List<String>> outcomes,
            Map<KafkaTargets.Kind, Throwable> failures,
            Map<KafkaTargets.Kind, String> hints) {
        StringBuilder text = new StringBuilder(message).append('\n');
        outcomes.forEach((kind, lines) -> {
            text.append("---- ").append(kind);
            if (failures.containsKey(kind)) {
                text.append(" (failed: ").append(failures.get(kind)).append(')');
            }
            text.append('\n');
            lines.forEach(line -> text.append(line).append('\n'));
        });
        text.append("logs: ").append(hints.values());
        AssertionError error = new AssertionError(text.toString());
        failures.values().forEach(error::addSuppressed);
        return error;
    }
}
