package io.tributary.coordinator.group;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;

/**
 * The consumer groups' writes not yet durable, in order, and the answers waiting for them: Kafka's
 * coordinator runtime's rule that an answer goes out only once every write made before it
 * (its own and any it could have seen) is committed. The {@link GroupCoordinator} queues one write
 * per change of a group ({@link Append} of its records, or {@link Delete}) and hands out, with each
 * answer, a future that completes once every write queued up to then is durable ({@link #durable}).
 * The caller drains the writes, makes them durable in order through a {@link ConsumerGroupStore}
 * and reports each back; a failure discards every write not yet made ({@link #fail}) and answers
 * every waiting future with the error, as the in-memory state they came from is dropped too.
 *
 * <p>Not thread-safe: used under the {@link GroupCoordinator}'s lock.
 */
public final class PendingWrites {

    /** A write the caller makes durable (in order), then reports. */
    public sealed interface Write {
        /** Its place in the order writes were queued (1, 2, ...). */
        long sequence();

        String groupId();
    }

    /** Append records of one group (one change). */
    public record Append(long sequence, String groupId, List<ConsumerGroupRecord> records) implements Write {
        public Append {
            Objects.requireNonNull(groupId, "groupId");
            records = List.copyOf(records);
        }
    }

    /** Forget a group (deleted, or forgotten to make room). */
    public record Delete(long sequence, String groupId) implements Write {
        public Delete {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    private final ArrayDeque<Write> queue = new ArrayDeque<>();
    private final TreeMap<Long, List<CompletableFuture<Optional<Errors>>>> waiting = new TreeMap<>();
    private long queued;
    private long durableThrough;
    private long discardedThrough;

    PendingWrites() {}

    void append(String groupId, List<ConsumerGroupRecord> records) {
        if (!records.isEmpty()) {
            queue.add(new Append(++queued, groupId, records));
        }
    }

    void delete(String groupId) {
        queue.add(new Delete(++queued, groupId));
    }

    /**
     * Completes once every write queued so far is durable (empty), or with the error of the
     * failure that discarded one of them. Writes discarded before (with the state they came from)
     * are not waited for: what is in memory now no longer depends on them.
     */
    CompletableFuture<Optional<Errors>> durable() {
        if (queued <= Math.max(durableThrough, discardedThrough)) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        CompletableFuture<Optional<Errors>> future = new CompletableFuture<>();
        waiting.computeIfAbsent(queued, q -> new ArrayList<>()).add(future);
        return future;
    }

    /** The writes to make durable, in order. */
    List<Write> drain() {
        List<Write> drained = List.copyOf(queue);
        queue.clear();
        return drained;
    }

    /** Whether a drained write is still to be made (no failure or clear discarded it). */
    boolean live(Write write) {
        return write.sequence() > discardedThrough;
    }

    /** A drained write is durable: answers waiting for it and what came before go. */
    void written(Write write) {
        if (!live(write)) {
            return;
        }
        durableThrough = Math.max(durableThrough, write.sequence());
        Map<Long, List<CompletableFuture<Optional<Errors>>>> done = waiting.headMap(durableThrough, true);
        done.values().forEach(futures -> futures.forEach(f -> f.complete(Optional.empty())));
        done.clear();
    }

    /**
     * Discards every write not yet durable (a write failed, or the state they came from is
     * dropped) and answers everyone waiting with {@code error}.
     */
    void fail(Errors error) {
        discardedThrough = queued;
        queue.clear();
        waiting.values().forEach(futures -> futures.forEach(f -> f.complete(Optional.of(error))));
        waiting.clear();
    }

    /** How many writes are queued and not drained (tests). */
    int size() {
        return queue.size();
    }
}
