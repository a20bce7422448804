package io.tributary.broker.api;

import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlaneException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out producer ids, unique in the cluster, from blocks the coordinators allocate to this broker
 * ({@link ControlPlane#allocateProducerIds}). Each id is handed out once.
 *
 * <p>Refill: once a block is down to a tenth of its size (at least one id left), the next block is
 * fetched on {@code prefetcher} while the rest of the current one is handed out, so InitProducerId
 * rarely waits for the coordinators (Kafka's broker prefetches at 90% use for the same reason). When
 * the current block runs out before the next one arrived the caller waits for it; when the prefetch
 * failed the caller fetches once more itself and, if that fails too, gets the {@link
 * ControlPlaneException}.
 *
 * <p>Thread-safety: thread-safe; one lock orders the callers, fetches never overlap.
 */
public final class ProducerIdAllocator {

    private static final Logger log = LoggerFactory.getLogger(ProducerIdAllocator.class);

    private final ControlPlane controlPlane;
    private final IntSupplier brokerId;
    private final int blockSize;
    private final int prefetchBelow;
    private final Executor prefetcher;
    private final ReentrantLock lock = new ReentrantLock();

    // Guarded by lock.
    private long next;
    private long end;
    private CompletableFuture<ControlPlane.ProducerIdBlock> prefetch;

    /**
     * @param brokerId this broker's id, read when a block is fetched
     * @param blockSize ids per block
     * @param prefetcher runs prefetches (a virtual-thread executor in the broker)
     */
    public ProducerIdAllocator(ControlPlane controlPlane, IntSupplier brokerId, int blockSize, Executor prefetcher) {
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.brokerId = Objects.requireNonNull(brokerId, "brokerId");
        this.prefetcher = Objects.requireNonNull(prefetcher, "prefetcher");
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be 1 or more: " + blockSize);
        }
        this.blockSize = blockSize;
        this.prefetchBelow = Math.max(1, blockSize / 10);
    }

    /**
     * The next producer id.
     *
     * @throws ControlPlaneException when a new block was needed and the coordinators did not give one
     */
    public long nextProducerId() {
        lock.lock();
        try {
            if (next >= end) {
                install(takePrefetchedOrFetch());
            }
            long id = next++;
            if (end - next < prefetchBelow && prefetch == null) {
                prefetch = CompletableFuture.supplyAsync(this::fetch, prefetcher);
            }
            return id;
        } finally {
            lock.unlock();
        }
    }

    private ControlPlane.ProducerIdBlock takePrefetchedOrFetch() {
        CompletableFuture<ControlPlane.ProducerIdBlock> pending = prefetch;
        prefetch = null;
        if (pending != null) {
            try {
                return pending.join();
            } catch (CompletionException e) {
                log.warn(
                        "Prefetching producer ids failed ({}); fetching again",
                        e.getCause().toString());
            }
        }
        return fetch();
    }

    private ControlPlane.ProducerIdBlock fetch() {
        ControlPlane.ProducerIdBlock block = controlPlane.allocateProducerIds(brokerId.getAsInt(), blockSize);
        if (block.count() < 1 || block.firstProducerId() < 0) {
            throw new IllegalStateException("the coordinators gave an empty or negative producer id block: " + block);
        }
        log.info(
                "Got producer ids {}..{} at metadata version {}",
                block.firstProducerId(),
                block.firstProducerId() + block.count() - 1,
                block.version());
        return block;
    }

    private void install(ControlPlane.ProducerIdBlock block) {
        next = block.firstProducerId();
        end = block.firstProducerId() + block.count();
    }
}
