package io.tributary.broker.log.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.LongStream;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The offset index against {@code TreeMap.floorEntry}: random offsets put in random order, random
 * deletions from either end, in a partition surrounded by neighbours with their own entries; every
 * lookup must agree with the model. Pin a failing seed in {@link #seeds()} to reproduce it.
 */
class PartitionIndexPropertyTest {

    private static final Uuid TOPIC = new Uuid(42, 43);

    @TempDir
    static Path dir;

    private static IndexStore store;

    @BeforeAll
    static void open() {
        store = IndexStore.open(dir.resolve("index"));
    }

    @AfterAll
    static void close() {
        store.close();
    }

    static LongStream seeds() {
        return LongStream.range(0, 100);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void floorLookupAgreesWithTreeMap(long seed) {
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
}
