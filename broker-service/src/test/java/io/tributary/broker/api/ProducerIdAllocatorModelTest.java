package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.ControlPlaneException.Kind;
import io.tributary.common.testing.SimulationCoverage;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The allocator under random block sizes, coordinator failures and prefetch timings, one seed per
 * case (in the failure message; pin it in {@link #seeds()} to reproduce). Invariant: the ids handed
 * out are exactly 0, 1, 2, ... with no repeat and no gap, since every block fetched is used whole
 * and in order, and a failed call consumes no id. The coordinator failures and early prefetches must
 * have happened over the seeds ({@link #COVERAGE}).
 */
class ProducerIdAllocatorModelTest {

    static LongStream seeds() {
        return LongStream.range(0, 40);
    }

    static final String COORDINATOR_FAILURES = "coordinator calls failed";
    static final String FAILED_CALLS = "nextProducerId calls that failed";
    static final String EARLY_PREFETCHES = "prefetches run while ids remained";
    static final String BLOCKS = "blocks fetched";

    /** Minimums over the 40 seeds, about half of what they give (printed after the run). */
    static final SimulationCoverage COVERAGE = new SimulationCoverage("ProducerIdAllocatorModelTest", seeds().count())
            .require(COORDINATOR_FAILURES, 2000)
            .require(FAILED_CALLS, 1590)
            .require(EARLY_PREFETCHES, 180)
            .require(BLOCKS, 700);

    @AfterAll
    static void checkCoverage() {
        COVERAGE.check();
    }

    private static final class ManualExecutor implements Executor {
        final Queue<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void idsAreDenseUniqueAndInOrderWhateverFailsAndWhenever(long seed) {
        assertTimeoutPreemptively(Duration.ofMinutes(1), () -> run(seed), "seed " + seed + " hung");
    }

    private static void run(long seed) {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        FakeControlPlane controlPlane = FakeControlPlane.withBrokers(1);
        ManualExecutor prefetcher = new ManualExecutor();
        int blockSize = 1 + random.nextInt(20);
        ProducerIdAllocator allocator = new ProducerIdAllocator(controlPlane, () -> 0, blockSize, prefetcher);

        List<Long> handedOut = new ArrayList<>();
        SimulationCoverage.Tally tally = COVERAGE.tally();
        int failures = 0;
        for (int step = 0; step < 500; step++) {
            int action = random.nextInt(10);
            if (action < 2) {
                controlPlane.failNext(Kind.UNAVAILABLE, "injected");
            } else if (action < 4) {
                if (runOne(prefetcher)) {
                    tally.count(EARLY_PREFETCHES);
                }
            } else {
                // A prefetch left pending while ids remain models a slow coordinator. Once the block is
                // used up the caller waits for the prefetch, which this single-threaded test must then
                // have run (a real executor always does).
                if (handedOut.size() % blockSize == 0) {
                    runAll(prefetcher);
                }
                try {
                    handedOut.add(allocator.nextProducerId());
                } catch (ControlPlaneException e) {
                    failures++;
                }
            }
        }

        String context = "seed " + seed + ", block size " + blockSize + ", failed calls " + failures;
        assertThat(handedOut)
                .as(context)
                .containsExactlyElementsOf(
                        LongStream.range(0, handedOut.size()).boxed().toList());
        tally.add(COORDINATOR_FAILURES, controlPlane.failedCalls.get());
        tally.add(FAILED_CALLS, failures);
        tally.add(BLOCKS, controlPlane.producerIdCalls.get() - controlPlane.failedCalls.get());
        COVERAGE.completed(tally);
    }

    /** Runs the oldest waiting prefetch, if any; whether there was one. */
    private static boolean runOne(ManualExecutor prefetcher) {
        Runnable task = prefetcher.tasks.poll();
        if (task != null) {
            task.run();
        }
        return task != null;
    }

    private static void runAll(ManualExecutor prefetcher) {
        while (!prefetcher.tasks.isEmpty()) {
            prefetcher.tasks.poll().run();
        }
    }
}
