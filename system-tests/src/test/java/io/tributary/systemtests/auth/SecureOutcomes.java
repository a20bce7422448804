package io.tributary.systemtests.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Differential scenarios on {@link SecureTargets}: one scenario runs on every target at once and
 * writes down what its client saw; Kafka's outcome is the reference the others must equal. Also the
 * SASL_SSL PLAIN client settings and how outcomes are written (errors as class and message, sets in
 * a stable order).
 */
final class SecureOutcomes {

    private static final Logger log = LoggerFactory.getLogger(SecureOutcomes.class);

    /** One scenario on one target, writing down what the client saw. */
    @FunctionalInterface
    interface Scenario {
        void run(SecureTargets.Target target, List<String> outcome) throws Exception;
    }

    private final SecureTargets targets;

    SecureOutcomes(SecureTargets targets) {
        this.targets = targets;
    }

    /**
     * Runs {@code scenario} on every target at once and requires each outcome to equal Kafka's, and
     * Kafka's to hold {@code expected}.
     */
    void assertSameOutcomeAtOnce(String expected, Scenario scenario) {
        Map<String, CompletableFuture<List<String>>> runs = new LinkedHashMap<>();
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (SecureTargets.Target target : targets.all()) {
                runs.put(target.name(), CompletableFuture.supplyAsync(() -> run(scenario, target), threads));
            }
        }
        Map<String, List<String>> outcomes = new LinkedHashMap<>();
        runs.forEach((name, run) -> outcomes.put(name, run.join()));
        List<String> reference = outcomes.get("KAFKA");
        assertThat(reference)
                .as("Kafka's outcome, the reference (logs: %s)", targets.logsHint())
                .noneMatch(line -> line.startsWith("scenario failed"))
                .anyMatch(line -> line.contains(expected));
        outcomes.forEach((name, lines) -> assertThat(lines)
                .as("%s's outcome against Kafka's (logs: %s)", name, targets.logsHint())
                .isEqualTo(reference));
    }

    private static List<String> run(Scenario scenario, SecureTargets.Target target) {
        List<String> outcome = new ArrayList<>();
        try {
            scenario.run(target, outcome);
        } catch (Exception | AssertionError e) {
            outcome.add("scenario failed: " + e);
        }
        log.info("{} outcome: {}", target.name(), outcome);
        return outcome;
    }

    /** A SASL_SSL client logging in with PLAIN as {@code user}, trusting the test CA. */
    Properties client(SecureTargets.Target target, String clientId, String user, String password) {
        Properties properties = new Properties();
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap());
        properties.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        properties.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        properties.put("sasl.mechanism", "PLAIN");
        properties.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\""
                        + password + "\";");
        properties.put("ssl.truststore.type", "PEM");
        properties.put("ssl.truststore.location", targets.caPem().toString());
        // a hang becomes a failure; not an assertion on speed
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        return properties;
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
