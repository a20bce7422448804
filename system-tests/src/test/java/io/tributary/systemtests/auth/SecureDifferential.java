package io.tributary.systemtests.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.KafkaFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The comparison this package's tests make, as the {@code kafka} package's {@code Differential}
 * makes it for the shared targets: one scenario runs on each of the {@link SecureTargets}, writes
 * down what its client saw, line by line, and every target's lines must equal Kafka's. Kafka's must
 * also hold an expected line and no failure, so that two equal failures of the same kind cannot
 * pass. A scenario that throws ends its outcome with a line {@code scenario failed: <exception>}.
 */
final class SecureDifferential {

    private static final Logger log = LoggerFactory.getLogger(SecureDifferential.class);

    /** The name of the reference target in {@link SecureTargets#all()}. */
    static final String REFERENCE = "KAFKA";

    private SecureDifferential() {}

    /** One scenario on one target, writing down what the client saw. */
    @FunctionalInterface
    interface Scenario {
        void run(SecureTargets.Target target, List<String> outcome) throws Exception;
    }

    /**
     * Runs {@code scenario} on every target of {@code targets}, one after the other, and requires
     * each outcome to equal Kafka's, and Kafka's to hold {@code expected}.
     */
    static void assertSameOutcome(SecureTargets targets, String expected, Scenario scenario) {
        Map<String, List<String>> outcomes = new LinkedHashMap<>();
        for (SecureTargets.Target target : targets.all()) {
            outcomes.put(target.name(), outcome(target, scenario));
        }
        compare(targets, expected, outcomes);
    }

    /**
     * {@link #assertSameOutcome}, the targets at the same time, each on its own virtual thread:
     * for scenarios that wait (on the clock, on an ACL reaching Kafka's broker), so that the
     * targets' waits overlap.
     */
    static void assertSameOutcomeAtOnce(SecureTargets targets, String expected, Scenario scenario) {
        Map<String, CompletableFuture<List<String>>> runs = new LinkedHashMap<>();
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (SecureTargets.Target target : targets.all()) {
                runs.put(target.name(), CompletableFuture.supplyAsync(() -> outcome(target, scenario), threads));
            }
        }
        Map<String, List<String>> outcomes = new LinkedHashMap<>();
        runs.forEach((name, run) -> outcomes.put(name, run.join()));
        compare(targets, expected, outcomes);
    }

    private static List<String> outcome(SecureTargets.Target target, Scenario scenario) {
        List<String> outcome = new ArrayList<>();
        try {
            scenario.run(target, outcome);
        } catch (Exception | AssertionError e) {
            outcome.add("scenario failed: " + e);
        }
        log.info("{} outcome: {}", target.name(), outcome);
        return outcome;
    }

    private static void compare(SecureTargets targets, String expected, Map<String, List<String>> outcomes) {
        List<String> reference = outcomes.get(REFERENCE);
        assertThat(reference)
                .as("Kafka's outcome, the reference (logs: %s)", targets.logsHint())
                .noneMatch(line -> line.startsWith("scenario failed"))
                .anyMatch(line -> line.contains(expected));
        outcomes.forEach((name, lines) -> assertThat(lines)
                .as("%s's outcome against Kafka's (logs: %s)", name, targets.logsHint())
                .isEqualTo(reference));
    }

    /** An exception as a client sees it: its class and message (the cause of an ExecutionException). */
    static String error(Throwable e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    /** {@code ok}, or how the future failed. */
    static String outcomeOf(KafkaFuture<?> future) {
        try {
            future.get(60, TimeUnit.SECONDS);
            return "ok";
        } catch (Exception e) {
            return error(e);
        }
    }

    /** Items in a stable order (Kafka's answers come from hash maps). */
    static Set<String> sorted(Collection<?> items) {
        Set<String> out = new TreeSet<>();
        items.forEach(item -> out.add(String.valueOf(item)));
        return out;
    }
}
