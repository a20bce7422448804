package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.ControlPlaneException.Kind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class ProducerIdAllocatorTest {

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(1);

    /** An executor the test runs by hand, to see when a prefetch is started. */
    private static final class ManualExecutor implements Executor {
        final Queue<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        void runAll() {
            while (!tasks.isEmpty()) {
                tasks.poll().run();
            }
        }
    }

    @Test
    void idsComeFromTheBlocksInOrderAndTheNextBlockIsPrefetchedBeforeTheCurrentRunsOut() {
        var prefetcher = new ManualExecutor();
        var allocator = new ProducerIdAllocator(controlPlane, () -> 0, 10, prefetcher);

        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            ids.add(allocator.nextProducerId());
        }
        assertThat(controlPlane.producerIdCalls).hasValue(1);
        assertThat(prefetcher.tasks).isEmpty();

        ids.add(allocator.nextProducerId());
        assertThat(prefetcher.tasks)
                .as("prefetch started with the last id of the block")
                .hasSize(1);
        prefetcher.runAll();
        assertThat(controlPlane.producerIdCalls).hasValue(2);

        ids.add(allocator.nextProducerId());
        assertThat(ids)
                .containsExactlyElementsOf(LongStream.range(0, 11).boxed().toList());
        assertThat(controlPlane.producerIdCalls)
                .as("no fetch on the caller's thread")
                .hasValue(2);
    }

    @Test
    void aFailedPrefetchIsRetriedByTheCallerAndAFailureThenReachesIt() {
        var prefetcher = new ManualExecutor();
        var allocator = new ProducerIdAllocator(controlPlane, () -> 0, 1, prefetcher);
        assertThat(allocator.nextProducerId()).isZero();
        controlPlane.failNext(Kind.UNAVAILABLE, "no leader");
        prefetcher.runAll();

        assertThat(allocator.nextProducerId())
                .as("fetched by the caller after the prefetch failed")
                .isEqualTo(1);

        controlPlane.failNext(Kind.UNAVAILABLE, "no leader");
        controlPlane.failNext(Kind.UNAVAILABLE, "still no leader");
        prefetcher.runAll();
        assertThatThrownBy(allocator::nextProducerId)
                .isInstanceOf(ControlPlaneException.class)
                .hasMessage("still no leader");
        assertThat(allocator.nextProducerId()).isEqualTo(2);
    }

    @Test
    void concurrentCallersNeverGetTheSameId() throws Exception {
        ExecutorService prefetcher = Executors.newVirtualThreadPerTaskExecutor();
        var allocator = new ProducerIdAllocator(controlPlane, () -> 0, 7, prefetcher);
        Set<Long> ids = ConcurrentHashMap.newKeySet();
        try (ExecutorService callers = Executors.newFixedThreadPool(8)) {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                futures.add(callers.submit(() -> {
                    for (int i = 0; i < 500; i++) {
                        assertThat(ids.add(allocator.nextProducerId())).isTrue();
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            prefetcher.close();
        }
        assertThat(ids).hasSize(4000);
        assertThat(new HashSet<>(ids))
                .allSatisfy(id -> assertThat(id).isBetween(0L, 7L * controlPlane.producerIdCalls.get()));
    }

    @Test
    void anUnregisteredBrokerGetsTheCoordinatorsRefusal() {
        var allocator = new ProducerIdAllocator(controlPlane, () -> 5, 10, Runnable::run);

        assertThatThrownBy(allocator::nextProducerId)
                .isInstanceOfSatisfying(
                        ControlPlaneException.class, e -> assertThat(e.kind()).isEqualTo(Kind.UNKNOWN_BROKER));
    }
}
