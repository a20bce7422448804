package io.tributary.systemtests.kafka;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka targets of one test run: each started on first use and shared by every test class (a
 * cluster start is the slow part), and stopped, by PID, when the run ends whatever the outcome
 * (JUnit closes the root store's resources; a shutdown hook in each launcher is the last resort).
 *
 * <p>The classes that use these targets are marked {@link OnSharedTargets}: they run one after the
 * other, in name order, in one thread, never two at once on the shared targets. The other system
 * test classes, with clusters of their own, run beside them in another thread.
 *
 * <p>Which targets are enabled comes from the system property {@code tributary.systest.targets}
 * ({@code kafka}, {@code tributary}, {@code tributary_degraded}, comma-separated; the POM's {@code
 * systest.targets}). {@code kafka} must be one of them: every test here is differential (see
 * {@link Differential}) and refuses to run without its reference.
 * A target that fails to start fails every test that needs it, with the reason, and is not
 * started again.
 */
public final class KafkaTargets implements BeforeAllCallback {

    private static final Logger log = LoggerFactory.getLogger(KafkaTargets.class);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KafkaTargets.class);

    /** The kinds of Kafka cluster the scenarios run against. */
    public enum Kind {
        /** A real Apache Kafka broker: the reference behaviour. */
        KAFKA,
        /** A Tributary cluster from {@code bin/tributary}. */
        TRIBUTARY,
        /**
         * The same Tributary cluster with default replication factor 3, {@code
         * min.insync.replicas} 2 and one broker killed before the tests start (see {@link
         * TributaryTarget}): every test topic has a dead replica.
         */
        TRIBUTARY_DEGRADED;

        /** Whether this is one of Tributary's kinds. */
        public boolean isTributary() {
            return this != KAFKA;
        }
    }

    /**
     * The consumer-group settings of every Apache Kafka reference (KIP-848 groups): a 1 s heartbeat
     * and a 10 s session (Kafka's are 5 s and 45 s, with minimums of 5 s and 45 s), so that a crashed
     * member expires and a group settles after each change in seconds. 10 s still leaves a static
     * member that closes time to come back before its partitions are given away. The Tributary
     * targets set the same on their coordinators ({@code tributary.coordinator.groups.*}).
     *
     * <p>Streams groups (KIP-1071, enabled by default in Kafka 4.4: {@code streams.version} 1 is
     * bootstrapped from metadata version 4.2-IV1, and {@code group.coordinator.rebalance.protocols}
     * includes {@code streams}) get the same heartbeat and session, and no initial rebalance delay
     * (the default 3 s would only slow the tests down); the Tributary targets set the same ({@code
     * tributary.coordinator.groups.streams.initial-rebalance-delay=0s}).
     */
    public static final Map<String, String> KAFKA_GROUP_SETTINGS = Map.of(
            "group.consumer.min.heartbeat.interval.ms", "500",
            "group.consumer.heartbeat.interval.ms", "1000",
            "group.consumer.min.session.timeout.ms", "3000",
            "group.consumer.session.timeout.ms", "10000",
            "group.streams.min.heartbeat.interval.ms", "500",
            "group.streams.heartbeat.interval.ms", "1000",
            "group.streams.min.session.timeout.ms", "3000",
            "group.streams.session.timeout.ms", "10000",
            "group.streams.initial.rebalance.delay.ms", "0");

    /** Guarded by {@code KafkaTargets.class}, as {@link #failed}. */
    private static final Map<Kind, KafkaTarget> started = new EnumMap<>(Kind.class);

    private static final Map<Kind, RuntimeException> failed = new EnumMap<>(Kind.class);

    /** Held while Apache Kafka starts. */
    private static final Object KAFKA_START = new Object();

    /** Held while a Tributary kind starts: one cluster at a time. */
    private static final Object TRIBUTARY_START = new Object();

    /** The enabled kinds, Kafka first (the reference), for {@code @MethodSource}. */
    public static Stream<Kind> enabled() {
        return enabledList().stream();
    }

    /** The enabled kinds, Kafka first. */
    public static List<Kind> enabledList() {
        String property = System.getProperty("tributary.systest.targets", "kafka,tributary,tributary_degraded");
        List<Kind> kinds = Arrays.stream(property.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(s -> Kind.valueOf(s.toUpperCase(Locale.ROOT)))
                .distinct()
                .sorted()
                .toList();
        if (!kinds.contains(Kind.KAFKA)) {
            // Every test of this package compares what Tributary does with what Kafka does; without
            // the reference it would compare Tributary with itself and pass whatever it did.
            throw new IllegalStateException("tributary.systest.targets is '" + property
                    + "': the Kafka-client tests are differential and need their reference, Apache Kafka"
                    + " (add 'kafka'; 'kafka' alone checks the expectations against Kafka only)");
        }
        return kinds;
    }

    /** Whether {@code kind} is enabled in this run. */
    public static boolean isEnabled(Kind kind) {
        return enabledList().contains(kind);
    }

    /**
     * The running target of this kind, started on first use. A kind starts once: a caller that
     * asks while it is starting waits for it. Apache Kafka (one JVM) may start beside a Tributary
     * cluster, so that {@link Differential#assertSameOutcomeAtOnce} hides its start in theirs; the
     * two Tributary kinds (five JVMs each) start one after the other, never together on a small
     * machine.
     */
    public static KafkaTarget get(Kind kind) {
        synchronized (kind == Kind.KAFKA ? KAFKA_START : TRIBUTARY_START) {
            synchronized (KafkaTargets.class) {
                KafkaTarget target = started.get(kind);
                if (target != null) {
                    return target;
                }
                RuntimeException failure = failed.get(kind);
                if (failure != null) {
                    throw new IllegalStateException(
                            "the " + kind + " target failed to start earlier: " + failure.getMessage(), failure);
                }
            }
            try {
                long start = System.nanoTime();
                KafkaTarget target = switch (kind) {
                    case KAFKA -> ApacheKafkaTarget.start();
                    case TRIBUTARY, TRIBUTARY_DEGRADED -> TributaryTarget.start(kind);
                };
                log.info("{} started in {} ms", target, (System.nanoTime() - start) / 1_000_000);
                synchronized (KafkaTargets.class) {
                    started.put(kind, target);
                }
                return target;
            } catch (Exception e) {
                var wrapped =
                        new IllegalStateException("could not start the " + kind + " target: " + e.getMessage(), e);
                synchronized (KafkaTargets.class) {
                    failed.put(kind, wrapped);
                }
                throw wrapped;
            }
        }
    }

    /** The enabled Tributary kinds; the test is skipped when this run includes none. */
    public static List<Kind> tributaryKindsOrSkip() {
        List<Kind> kinds = enabledList().stream().filter(Kind::isTributary).toList();
        Assumptions.assumeFalse(kinds.isEmpty(), "no Tributary target is enabled in this run");
        return kinds;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getRoot().getStore(NAMESPACE).computeIfAbsent(Stopper.class, k -> new Stopper(), Stopper.class);
    }

    /** Stops every started target when JUnit closes the root store at the end of the run. */
    private static final class Stopper implements AutoCloseable {
        @Override
        public void close() {
            synchronized (KafkaTargets.class) {
                for (KafkaTarget target : started.values()) {
                    try {
                        target.close();
                    } catch (RuntimeException e) {
                        log.warn("stopping {} failed", target, e);
                    }
                }
                started.clear();
            }
        }
    }
}
