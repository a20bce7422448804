package io.tributary.systemtests.cluster;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two three-broker targets of a multi-broker differential test class, started together (each
 * start is mostly JVMs warming up, so running both at once saves about the shorter one) and closed
 * together, by PID. Owned by the test class ({@code @BeforeAll}/{@code @AfterAll}), not shared with
 * the single-broker targets of {@code KafkaTargets}: only the classes that need several brokers pay
 * for them. Scenarios that need these
 * targets (the classic groups' and transactions' to come) go into the same class, or a {@code
 * @Nested} class of it, to share one start.
 *
 * <p>The Apache Kafka reference is required: if it cannot start, {@link #start()} fails, and so does
 * every test of the class; there is no Tributary-only mode.
 */
final class ClusterTargets implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClusterTargets.class);

    private final ApacheKafkaClusterTarget kafka;
    private final TributaryClusterTarget tributary;

    private ClusterTargets(ApacheKafkaClusterTarget kafka, TributaryClusterTarget tributary) {
        this.kafka = kafka;
        this.tributary = tributary;
    }

    /** Starts both clusters at once; fails (having closed whichever started) if either cannot start. */
    static ClusterTargets start() {
        long start = System.nanoTime();
        try (var starters = Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture<ApacheKafkaClusterTarget> kafka =
                    CompletableFuture.supplyAsync(() -> timed(ApacheKafkaClusterTarget::start, start), starters);
            CompletableFuture<TributaryClusterTarget> tributary =
                    CompletableFuture.supplyAsync(() -> timed(TributaryClusterTarget::start, start), starters);
            try {
                CompletableFuture.allOf(kafka, tributary).join();
                return new ClusterTargets(kafka.join(), tributary.join());
            } catch (CompletionException e) {
                kafka.thenAccept(ClusterTarget::close);
                tributary.thenAccept(ClusterTarget::close);
                throw new IllegalStateException("could not start the three-broker targets: " + e.getCause(), e);
            }
        }
    }

    /** The targets in comparison order: the Apache Kafka reference first, then Tributary. */
    List<ClusterTarget> all() {
        return List.of(kafka, tributary);
    }

    @Override
    public void close() {
        try {
            kafka.close();
        } finally {
            tributary.close();
        }
    }

    @FunctionalInterface
    private interface Starter<T> {
        T start() throws Exception;
    }

    private static <T> T timed(Starter<T> starter, long since) {
        try {
            T target = starter.start();
            log.info("{} started {} ms after the start of both", target, (System.nanoTime() - since) / 1_000_000);
            return target;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }
}
