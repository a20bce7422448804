package io.tributary.broker.log.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.log.index.AbortedTxnIndex;
import io.tributary.broker.log.index.IndexStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link OngoingTransactions} and the aborted-transactions index ({@link AbortedTxnIndex}, in a real
 * {@link IndexStore}) against a model that recomputes
 * everything from the whole log each time: random logs of plain batches, transactional batches of a
 * few producers and their commit and abort markers (some markers ending nothing: a coordinator's
 * retry), the log start moving (retention) and the log truncated (a follower). After every entry:
 * the first unstable offset and the LSO for random high watermarks; the aborted transactions of
 * random fetch ranges, exactly those whose range meets the fetch's (the search's early stop loses
 * none); every aborted entry's LSO is the model's.
 */
class TransactionStateModelTest {

    @TempDir
    static Path dir;

    private static IndexStore store;

    @BeforeAll
    static void openStore() {
        store = IndexStore.open(dir.resolve("index"));
    }

    @AfterAll
    static void closeStore() {
        store.close();
    }

    static LongStream seeds() {
        return LongStream.range(0, 200);
    }

    /** One log entry: a plain batch (producer -1), a transactional batch, or a marker. */
    private record Entry(long offset, long producerId, boolean transactional, Boolean marker) {}

    /** A transaction in the model: its producer, first batch and marker. */
    private record Txn(long producerId, long first, long last, boolean committed) {}

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void matchesTheModel(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Entry> log = new ArrayList<>();
        OngoingTransactions ongoing = new OngoingTransactions();
        AbortedTxnIndex aborted = store.abortedTransactions(new Uuid(seed + 1, 1), 0);
        long logStart = 0;
        long next = 0;
        for (int step = 0; step < 300; step++) {
            int kind = random.nextInt(100);
            long producer = random.nextInt(4);
            if (kind < 3 && next > logStart) {
                // A follower truncates: the aborted index is cut, the open transactions rebuilt.
                long to = logStart + random.nextLong(next - logStart + 1);
                log.removeIf(e -> e.offset() >= to);
                next = to;
                aborted.truncateTo(to);
                ongoing.clear();
                for (Entry e : log) {
                    feed(ongoing, null, e);
                }
            } else if (kind < 5) {
                logStart = Math.min(next, logStart + random.nextInt(20));
                long start = logStart;
                aborted.dropBefore(start);
                assertThat(aborted.all()).allMatch(a -> a.lastOffset() >= start);
            } else {
                Entry e;
                if (kind < 25) {
                    e = new Entry(next, -1, false, null);
                } else if (kind < 75) {
                    e = new Entry(next, producer, true, null);
                } else {
                    e = new Entry(next, producer, true, random.nextInt(3) > 0);
                }
                next += e.marker() != null ? 1 : 1 + random.nextInt(5);
                log.add(e);
                feed(ongoing, aborted, e);
            }
            check(random, log, logStart, next, ongoing, aborted);
        }
    }

    /** Feeds one log entry; {@code aborted} null: the open transactions only (a rebuild after truncation). */
    private static void feed(OngoingTransactions ongoing, AbortedTxnIndex aborted, Entry e) {
        if (e.marker() != null) {
            OngoingTransactions.Ended ended = ongoing.marker(e.producerId(), e.offset(), e.marker());
            ended.completed()
                    .filter(c -> !c.committed() && aborted != null)
                    .ifPresent(c -> aborted.add(c.aborted(ended.lastStableOffset())));
        } else if (e.transactional()) {
            ongoing.batch(e.producerId(), e.offset());
        }
    }

    private static void check(
            SplittableRandom random,
            List<Entry> log,
            long logStart,
            long next,
            OngoingTransactions ongoing,
            AbortedTxnIndex aborted) {
        // The model: every transaction, from the whole log.
        Map<Long, Long> open = new HashMap<>();
        List<Txn> done = new ArrayList<>();
        Map<Long, Long> lsoAfter = new HashMap<>();
        for (Entry e : log) {
            if (e.marker() != null) {
                Long first = open.remove(e.producerId());
                if (first != null) {
                    done.add(new Txn(e.producerId(), first, e.offset(), e.marker()));
                    long lso = open.values().stream()
                            .mapToLong(Long::longValue)
                            .min()
                            .orElse(e.offset() + 1);
                    lsoAfter.put(e.offset(), lso);
                }
            } else if (e.transactional()) {
                open.putIfAbsent(e.producerId(), e.offset());
            }
        }
        OptionalLong unstable =
                open.values().stream().mapToLong(Long::longValue).min();
        assertThat(ongoing.firstUnstableOffset()).isEqualTo(unstable);
        assertThat(ongoing.asMap()).isEqualTo(open);
        long hw = random.nextLong(next + 1);
        assertThat(ongoing.lastStableOffset(hw))
                .isEqualTo(unstable.isPresent() ? Math.min(unstable.getAsLong(), hw) : hw);
        List<AbortedTransaction> expectedKept = done.stream()
                .filter(t -> !t.committed() && t.last() >= logStart)
                .map(t -> new AbortedTransaction(t.producerId(), t.first(), t.last(), lsoAfter.get(t.last())))
                .toList();
        assertThat(aborted.all()).isEqualTo(expectedKept);
        assertThat(aborted.last())
                .isEqualTo(expectedKept.isEmpty() ? Optional.empty() : Optional.of(expectedKept.getLast()));
        for (int i = 0; i < 5; i++) {
            long fetch = logStart + random.nextLong(Math.max(1, next - logStart + 1));
            long upper = fetch + random.nextLong(Math.max(1, next - fetch + 1));
            List<AbortedTransaction> expected = expectedKept.stream()
                    .filter(a -> a.lastOffset() >= fetch && a.firstOffset() < upper)
                    .toList();
            assertThat(aborted.overlapping(fetch, upper))
                    .as("aborted transactions in [%d, %d)", fetch, upper)
                    .isEqualTo(expected);
        }
    }

    @org.junit.jupiter.api.Test
    void entriesSurviveAReopenAndGoWithThePartition(@TempDir Path other) {
        Uuid topic = new Uuid(77, 77);
        try (IndexStore first = IndexStore.open(other.resolve("index"))) {
            first.abortedTransactions(topic, 0).add(new AbortedTransaction(1, 10, 20, 21));
            first.abortedTransactions(topic, 1).add(new AbortedTransaction(2, 5, 6, 7));
            first.flushIndex();
        }
        try (IndexStore reopened = IndexStore.open(other.resolve("index"))) {
            assertThat(reopened.abortedTransactions(topic, 0).all())
                    .containsExactly(new AbortedTransaction(1, 10, 20, 21));
            reopened.partition(topic, 0).deleteAll();
            assertThat(reopened.abortedTransactions(topic, 0).all()).isEmpty();
            assertThat(reopened.abortedTransactions(topic, 1).all())
                    .as("another partition's entries stay")
                    .containsExactly(new AbortedTransaction(2, 5, 6, 7));
        }
    }

    @org.junit.jupiter.api.Test
    void outOfOrderInputIsRefused() {
        OngoingTransactions ongoing = new OngoingTransactions();
        ongoing.batch(1, 10);
        assertThatThrownBy(() -> ongoing.batch(2, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ongoing.asMap()).containsExactly(Map.entry(1L, 10L));
        AbortedTxnIndex aborted = store.abortedTransactions(new Uuid(-1, -1), 3);
        aborted.add(new AbortedTransaction(1, 10, 20, 21));
        assertThatThrownBy(() -> aborted.add(new AbortedTransaction(2, 12, 19, 21)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> aborted.add(new AbortedTransaction(2, 12, 22, 20)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AbortedTransaction(1, 5, 4, 6)).isInstanceOf(IllegalArgumentException.class);
    }
}
