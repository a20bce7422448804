package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import io.tributary.broker.log.cleaner.CleanResult;
import io.tributary.broker.log.cleaner.Cleaner;
import io.tributary.broker.log.cleaner.CleanerConfig;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.common.testing.SimulationCoverage;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random appends to a compacted log (keys from a small set, versions, tombstones, four codecs,
 * idempotent producers), rolls, clock moves, cleaning passes at random points (with a dedupe buffer
 * so small in some seeds that a pass maps only part of the dirty section), reopens and crashes,
 * checked after every step against the test's own model. The model never asks the log what it
 * should hold; it is told only the checkpoint each pass reached, and derives from it:
 *
 * <ul>
 *   <li><b>LatestPerKey</b>: a record below the checkpoint survives only if no record of its key
 *       lies between it and the checkpoint; records at or past the checkpoint all survive.
 *   <li><b>OffsetsKept</b>: every surviving record has its original offset, key and value, so the
 *       log read from its start equals the model's survivors exactly (dense where nothing was
 *       removed).
 *   <li><b>TombstoneRetention</b>: a tombstone survives until a pass at or after its batch's delete
 *       horizon (the time of the first pass that rewrote its segment + {@code delete.retention.ms}).
 *   <li><b>NextSurvivor</b>: a consumer fetching from any offset gets the first survivor at or after it.
 *   <li><b>ProducerBatchKept</b>: each producer's newest batch keeps its offsets and last sequence.
 *   <li><b>IndexMatchesScan</b>: the offset and time index agree with a scan of the segments ({@link
 *       IndexAudit}).
 * </ul>
 *
 * The seed is in every failure message; pin it in {@link #seeds()} to reproduce.
 */
class CleanerModelTest {

    @TempDir
    static Path root;

    private static IndexStore store;

    static LongStream seeds() {
        return LongStream.range(0, 30);
    }

    static final String CLEANS = "passes that swapped segments in";
    static final String PARTIAL_PASSES = "passes stopped by a full map";
    static final String REMOVED = "records removed";
    static final String TOMBSTONES_DROPPED = "tombstones dropped after their horizon";
    static final String EMPTY_BATCHES = "producer batches kept empty";
    static final String CRASHES = "crash reopens";

    /** Minimums over the 30 seeds, about half of what they give (printed after the run). */
    static final SimulationCoverage COVERAGE = new SimulationCoverage("CleanerModelTest", seeds().count())
            .require(CLEANS, 380)
            .require(PARTIAL_PASSES, 170)
            .require(REMOVED, 7000)
            .require(TOMBSTONES_DROPPED, 140)
            .require(EMPTY_BATCHES, 3000)
            .require(CRASHES, 140);

    @BeforeAll
    static void open() {
        store = IndexStore.open(root.resolve("index"));
    }

    @AfterAll
    static void closeAndCheckCoverage() {
        store.close();
        COVERAGE.check();
    }

    /** One appended record. */
    record Appended(long offset, String key, String value, long timestamp) {}

    /** A producer's newest batch. */
    record ProducerBatch(long lastOffset, int lastSequence) {}

    private static final List<Compression> CODECS = List.of(
            Compression.NONE,
            Compression.gzip().build(),
            Compression.lz4().build(),
            Compression.zstd().build());

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void cleanedLogEqualsTheModel(long seed) {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        SimulationCoverage.Tally tally = COVERAGE.tally();
        TopicIdPartition tp = new TopicIdPartition(new Uuid(2, seed), (int) seed, "compacted");
        Path data = root.resolve("data-" + seed);
        long deleteRetentionMs = random.nextInt(4) == 0 ? 0 : random.nextLong(1, 20_000);
        LogConfig config = LogConfig.defaults()
                .withSegmentBytes(random.nextInt(1500, 5000))
                .withIndexIntervalBytes(random.nextInt(0, 800))
                .withCompaction(CompactionConfig.defaults()
                        .withCleanupPolicy(java.util.Set.of(CleanupPolicy.COMPACT))
                        .withDeleteRetention(Duration.ofMillis(deleteRetentionMs)));
        int keys = random.nextInt(3, 40);
        long dedupeBytes =
                random.nextBoolean() ? 24L * random.nextInt(8, 40) : CleanerConfig.DEFAULT_DEDUPE_BUFFER_BYTES / 64;
        ManualClock clock = new ManualClock(1_000_000);
        Cleaner cleaner = new Cleaner(new CleanerConfig(dedupeBytes, 0.9, random.nextInt(100, 4000)), clock);
        String context = "seed " + seed + " (keys " + keys + ", dedupe " + dedupeBytes + " bytes, delete.retention.ms "
                + deleteRetentionMs + ")";

        TreeMap<Long, Appended> appended = new TreeMap<>();
        TreeMap<Long, Appended> alive = new TreeMap<>();
        Map<Long, Long> horizons = new HashMap<>();
        Map<Long, ProducerBatch> producers = new HashMap<>();
        Map<Long, Integer> nextSequence = new HashMap<>();

        PartitionLog log = PartitionLog.open(data, tp, config, store, clock);
        try {
            for (int step = 0; step < 300; step++) {
                int op = random.nextInt(100);
                String where = context + ", step " + step + " op " + op;
                if (op < 60) {
                    appendBatch(log, random, keys, clock, appended, alive, producers, nextSequence);
                } else if (op < 68) {
                    log.roll();
                } else if (op < 75) {
                    clock.advance(Duration.ofMillis(random.nextLong(1, 10_000)));
                } else if (op < 94) {
                    log.flush();
                    List<Long> basesBefore = log.segmentBaseOffsets();
                    long nowMs = clock.millis();
                    CleanResult result = cleaner.clean(log, log.logEndOffset());
                    if (result.outcome() == CleanResult.Outcome.CLEANED) {
                        tally.count(CLEANS);
                        if (!result.reachedUncleanable()) {
                            tally.count(PARTIAL_PASSES);
                        }
                        applyPass(
                                result.checkpoint(),
                                basesBefore,
                                nowMs,
                                deleteRetentionMs,
                                appended,
                                alive,
                                horizons,
                                tally);
                    }
                    assertThat(log.compaction().cleanerCheckpoint()).as(where).isEqualTo(result.checkpoint());
                } else if (op < 97) {
                    log.close();
                    log = PartitionLog.open(data, tp, config, store, clock);
                } else {
                    log.flush();
                    log.closeAsIfCrashed();
                    log = PartitionLog.open(data, tp, config, store, clock);
                    tally.count(CRASHES);
                }
                checkInvariants(log, random, alive, producers, where, tally);
                assertThat(IndexAudit.violations(log, store.partition(tp.topicId(), tp.partition())))
                        .as(where + ": IndexMatchesScan")
                        .isEmpty();
            }
        } finally {
            log.close();
        }
        try (Stream<Path> files = Files.list(log.directory())) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as(context + ": no .cleaned or .swap file left")
                    .allMatch(name -> name.endsWith(".log"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        COVERAGE.completed(tally);
    }

    private static void appendBatch(
            PartitionLog log,
            RandomGenerator random,
            int keys,
            ManualClock clock,
            TreeMap<Long, Appended> appended,
            TreeMap<Long, Appended> alive,
            Map<Long, ProducerBatch> producers,
            Map<Long, Integer> nextSequence) {
        int count = random.nextInt(1, 6);
        Compression codec = CODECS.get(random.nextInt(CODECS.size()));
        boolean idempotent = random.nextInt(3) == 0;
        long producerId = idempotent ? 1000 + random.nextInt(3) : RecordBatch.NO_PRODUCER_ID;
        int baseSequence = idempotent ? nextSequence.getOrDefault(producerId, 0) : RecordBatch.NO_SEQUENCE;
        MemoryRecordsBuilder builder = MemoryRecords.builder(
                ByteBuffer.allocate(4096),
                RecordBatch.CURRENT_MAGIC_VALUE,
                codec,
                TimestampType.CREATE_TIME,
                0L,
                RecordBatch.NO_TIMESTAMP,
                producerId,
                idempotent ? (short) 0 : RecordBatch.NO_PRODUCER_EPOCH,
                baseSequence);
        long base = log.logEndOffset();
        List<Appended> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = "k" + random.nextInt(keys);
            String value = random.nextInt(6) == 0 ? null : "v" + (base + i) + "-" + "x".repeat(random.nextInt(0, 60));
            long timestamp = clock.millis() - random.nextInt(0, 1000);
            builder.append(timestamp, LogContents.bytes(key), LogContents.bytes(value));
            records.add(new Appended(base + i, key, value, timestamp));
        }
        AppendResult result = log.appendAsLeader(builder.build(), 0);
        assertThat(result.firstOffset()).isEqualTo(base);
        for (Appended record : records) {
            appended.put(record.offset(), record);
            alive.put(record.offset(), record);
        }
        if (idempotent) {
            nextSequence.put(producerId, baseSequence + count);
            producers.put(producerId, new ProducerBatch(result.lastOffset(), baseSequence + count - 1));
        }
    }

    /**
     * The model's pass: below {@code checkpoint}, a record goes when a later record of its key lies
     * below the checkpoint, and a tombstone when a pass before this one set its horizon and the
     * horizon has passed; every tombstone left in a segment the pass rewrote (base below the
     * checkpoint) gets a horizon if it had none.
     */
    private static void applyPass(
            long checkpoint,
            List<Long> basesBefore,
            long nowMs,
            long deleteRetentionMs,
            TreeMap<Long, Appended> appended,
            TreeMap<Long, Appended> alive,
            Map<Long, Long> horizons,
            SimulationCoverage.Tally tally) {
        Map<String, Long> latestBelow = new HashMap<>();
        for (Appended record : appended.headMap(checkpoint, false).values()) {
            latestBelow.put(record.key(), record.offset());
        }
        for (Appended record : List.copyOf(alive.headMap(checkpoint, false).values())) {
            boolean superseded = latestBelow.get(record.key()) > record.offset();
            Long horizon = horizons.get(record.offset());
            boolean expired = record.value() == null && horizon != null && nowMs >= horizon;
            if (superseded || expired) {
                alive.remove(record.offset());
                tally.count(REMOVED);
                if (!superseded) {
                    tally.count(TOMBSTONES_DROPPED);
                }
            }
        }
        for (Appended record : alive.values()) {
            if (record.value() != null || horizons.containsKey(record.offset())) {
                continue;
            }
            long segmentBase = basesBefore.stream()
                    .filter(b -> b <= record.offset())
                    .reduce((a, b) -> b)
                    .orElseThrow();
            if (segmentBase < checkpoint) {
                horizons.put(record.offset(), nowMs + deleteRetentionMs);
            }
        }
    }

    private static void checkInvariants(
            PartitionLog log,
            RandomGenerator random,
            TreeMap<Long, Appended> alive,
            Map<Long, ProducerBatch> producers,
            String where,
            SimulationCoverage.Tally tally) {
        List<RecordBatch> batches = LogContents.batchesFrom(log, log.logStartOffset());
        List<Appended> found = new ArrayList<>();
        Map<Long, ProducerBatch> lastOfProducer = new HashMap<>();
        for (RecordBatch batch : batches) {
            for (Record record : batch) {
                found.add(new Appended(
                        record.offset(), LogContents.string(record.key()), LogContents.string(record.value()), 0));
            }
            if (batch.hasProducerId()) {
                lastOfProducer.put(batch.producerId(), new ProducerBatch(batch.lastOffset(), batch.lastSequence()));
                if (batch.countOrNull() == 0) {
                    tally.count(EMPTY_BATCHES);
                }
            }
        }
        List<Appended> expected = alive.values().stream()
                .map(a -> new Appended(a.offset(), a.key(), a.value(), 0))
                .toList();
        assertThat(found)
                .as(where + ": LatestPerKey/OffsetsKept/TombstoneRetention")
                .isEqualTo(expected);
        for (Map.Entry<Long, ProducerBatch> producer : producers.entrySet()) {
            assertThat(lastOfProducer.get(producer.getKey()))
                    .as(where + ": ProducerBatchKept for producer " + producer.getKey())
                    .isEqualTo(producer.getValue());
        }
        for (int i = 0; i < 5 && log.logEndOffset() > log.logStartOffset(); i++) {
            long from = random.nextLong(log.logStartOffset(), log.logEndOffset());
            Optional<Long> next = Optional.ofNullable(alive.ceilingKey(from));
            assertThat(firstRecordFrom(log, from))
                    .as(where + ": NextSurvivor from offset " + from)
                    .isEqualTo(next);
        }
    }

    /** The offset of the first record a consumer fetching from {@code from} gets. */
    private static Optional<Long> firstRecordFrom(PartitionLog log, long from) {
        long offset = from;
        while (offset < log.logEndOffset()) {
            ReadResult read = log.read(offset, 1, Long.MAX_VALUE);
            long next = offset;
            for (RecordBatch batch : read.records().batches()) {
                for (Record record : batch) {
                    if (record.offset() >= from) {
                        return Optional.of(record.offset());
                    }
                }
                next = batch.nextOffset();
            }
            if (next == offset) {
                return Optional.empty();
            }
            offset = next;
        }
        return Optional.empty();
    }
}
