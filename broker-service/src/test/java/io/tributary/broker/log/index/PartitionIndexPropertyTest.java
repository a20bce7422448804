package io.tributary.broker.log.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The offset and time indexes against {@code TreeMap.floorEntry}: random offsets put in random
 * order (time entries in increasing order, as the log writes them), random deletions from either
 * end, random {@code flushIndex} calls, in a partition surrounded by neighbours with their own
 * entries; every lookup must agree with the model. Each seed runs against three stores: one writing
 * every entry to RocksDB at once (a buffer of 1), one writing out every 3 entries (so lookups mix
 * buffered and written entries, and written entries are replaced by buffered ones), and one with
 * the default buffer. Pin a failing seed in {@link #seeds()} to reproduce it.
 */
class PartitionIndexPropertyTest {

    private static final Uuid TOPIC = new Uuid(42, 43);

    @TempDir
    static Path dir;

    private static final int[] BUFFER_BOUNDS = {1, 3, IndexStore.DEFAULT_BUFFERED_ENTRIES_PER_PARTITION};

    private static final Map<Integer, IndexStore> stores = new TreeMap<>();

    @BeforeAll
    static void open() {
        for (int bound : BUFFER_BOUNDS) {
            stores.put(bound, IndexStore.open(dir.resolve("index-" + bound), bound));
        }
    }

    @AfterAll
    static void close() {
        stores.values().forEach(IndexStore::close);
    }

    static Stream<Arguments> seeds() {
        return LongStream.range(0, 100)
                .boxed()
                .flatMap(seed -> IntStream.of(BUFFER_BOUNDS).mapToObj(bound -> Arguments.of(seed, bound)));
    }

    @ParameterizedTest(name = "seed {0}, buffer {1}")
    @MethodSource("seeds")
    void floorLookupAgreesWithTreeMap(long seed, int bound) {
        IndexStore store = stores.get(bound);
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        int partition = 3 * (int) seed + 1;
        PartitionIndex index = store.partition(TOPIC, partition);
        // Neighbours on both sides, whose entries must never leak into this partition's lookups.
        store.partition(TOPIC, partition - 1).putOffset(new OffsetPosition(random.nextLong(1_000_000), 0, 1));
        store.partition(TOPIC, partition + 1).putOffset(new OffsetPosition(0, 0, 2));
        TreeMap<Long, OffsetPosition> model = new TreeMap<>();
        long range = 1L << random.nextInt(4, 40);

        for (int step = 0; step < 200; step++) {
            int op = random.nextInt(100);
            if (op < 60) {
                long offset = random.nextLong(range);
                OffsetPosition entry = new OffsetPosition(offset, offset / 2, random.nextInt(Integer.MAX_VALUE));
                index.putOffset(entry);
                model.put(offset, entry);
            } else if (op < 65) {
                long from = random.nextLong(range);
                index.deleteOffsetsFrom(from);
                model.tailMap(from, true).clear();
            } else if (op < 70) {
                long before = random.nextLong(range);
                index.deleteOffsetsBefore(before);
                model.headMap(before, false).clear();
            } else if (op < 72) {
                store.flushIndex();
            } else {
                long probe = random.nextInt(10) == 0 ? Long.MAX_VALUE : random.nextLong(range + 10);
                Optional<OffsetPosition> expected =
                        Optional.ofNullable(model.floorEntry(probe)).map(Map.Entry::getValue);
                assertThat(index.floorOffset(probe))
                        .as("seed %d, step %d, floor(%d)", seed, step, probe)
                        .isEqualTo(expected);
            }
        }
        assertThat(index.offsetEntries()).as("seed %d: all entries", seed).containsExactlyElementsOf(model.values());
        assertThat(index.lastOffset())
                .as("seed %d: last", seed)
                .isEqualTo(Optional.ofNullable(model.lastEntry()).map(Map.Entry::getValue));
    }

    @ParameterizedTest(name = "seed {0}, buffer {1}")
    @MethodSource("seeds")
    void timeLookupAgreesWithTreeMap(long seed, int bound) {
        IndexStore store = stores.get(bound);
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        int partition = 3 * (int) seed + 2;
        PartitionIndex index = store.partition(TOPIC, partition);
        store.partition(TOPIC, partition - 1).putTime(new TimestampOffset(random.nextLong(1_000_000), 7));
        store.partition(TOPIC, partition + 1).putTime(new TimestampOffset(-5, 0));
        TreeMap<Long, TimestampOffset> model = new TreeMap<>();
        long range = 1L << random.nextInt(4, 40);

        for (int step = 0; step < 200; step++) {
            int op = random.nextInt(100);
            if (op < 60) {
                // As the log writes them, timestamps and offsets both increase from the last entry
                // kept; from a negative start, since the key flips the sign bit to sort those first.
                Map.Entry<Long, TimestampOffset> last = model.lastEntry();
                long timestamp = (last == null ? -range : last.getKey()) + random.nextLong(1, 1000);
                long offset = (last == null ? 0 : last.getValue().offset()) + random.nextLong(1, range / 8 + 2);
                TimestampOffset entry = new TimestampOffset(timestamp, offset);
                index.putTime(entry);
                model.put(timestamp, entry);
            } else if (op < 65) {
                long from = random.nextLong(lastOffset(model) + 2);
                index.deleteTimesFrom(from);
                model.values().removeIf(e -> e.offset() >= from);
            } else if (op < 70) {
                long before = random.nextLong(lastOffset(model) + 2);
                index.deleteTimesBefore(before);
                model.values().removeIf(e -> e.offset() < before);
            } else if (op < 72) {
                store.flushIndex();
            } else {
                long probe =
                        random.nextInt(10) == 0 ? Long.MAX_VALUE : random.nextLong(-range - 10, -range + 200 * 1000);
                Optional<TimestampOffset> expected =
                        Optional.ofNullable(model.floorEntry(probe)).map(Map.Entry::getValue);
                assertThat(index.floorTime(probe))
                        .as("seed %d, step %d, floorTime(%d)", seed, step, probe)
                        .isEqualTo(expected);
            }
        }
        assertThat(index.timeEntries()).as("seed %d: all entries", seed).containsExactlyElementsOf(model.values());
    }

    private static long lastOffset(TreeMap<Long, TimestampOffset> model) {
        return model.isEmpty() ? 0 : model.lastEntry().getValue().offset();
    }
}
