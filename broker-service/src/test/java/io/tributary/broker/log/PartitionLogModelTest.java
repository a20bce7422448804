package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.log.index.IndexStore;
import io.tributary.common.testing.SimulationCoverage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.LongStream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random sequences of append, roll, read, offset-for-timestamp, truncate, truncate-fully,
 * delete-before, flush and reopen (clean or after a simulated crash), checked after every step
 * against an in-memory model: a map from offset to (timestamp, value) plus the log start and end.
 * Retention runs by size in half of the seeds and by time in a third: 0.5 to 5 s, while CreateTime
 * timestamps are random below 10 s and the clock starts at 1,000 s, so every closed segment of
 * such a log has expired. With random timestamps the largest one is often in an old segment that
 * retention or delete-before removes. After every step the index must agree with a full scan ({@link
 * IndexAudit}). The model is the test's own (it never
 * asks the log what it should contain). Every operation must have done something over the seeds
 * ({@link #COVERAGE}: crash recoveries that rescanned, clean reopens, truncations that cut records,
 * retention deletions, segment rolls...). The seed is in every failure message; pin it in {@link
 * #seeds()} to reproduce.
 */
class PartitionLogModelTest {

    @TempDir
    static Path root;

    private static IndexStore store;

    @BeforeAll
    static void open() {
        store = IndexStore.open(root.resolve("index"));
    }

    @AfterAll
    static void closeAndCheckCoverage() {
        store.close();
        COVERAGE.check();
    }

    static LongStream seeds() {
        return LongStream.range(0, 40);
    }

    static final String APPENDS = "leader appends";
    static final String FOLLOWER_GAPS = "follower appends after a gap";
    static final String SEGMENTS = "segments rolled";
    static final String EXPLICIT_ROLLS = "explicit rolls";
    static final String RETENTION = "segments deleted by retention";
    static final String TIME_RETENTION = "segments deleted by retention by time alone";
    static final String TRUNCATIONS = "truncations that cut records";
    static final String FULL_TRUNCATIONS = "full truncations";
    static final String START_MOVES = "log start moved by deleteRecordsBefore";
    static final String FLUSHES = "flushes";
    static final String CLEAN_REOPENS = "clean reopens";
    static final String CRASHES = "crash recoveries that rescanned batches";
    static final String READS = "reads that returned batches";
    static final String OUT_OF_RANGE = "reads refused out of range";
    static final String TIMESTAMPS = "offset-for-timestamp lookups that found an offset";

    /**
     * Minimums over the 40 seeds, about half of what they give (printed after the run). Retention
     * deletes only 15 segments over the 40 runs, 7 of them in logs with retention by time alone:
     * the logs seldom hold a closed segment between truncations and delete-befores.
     */
    static final SimulationCoverage COVERAGE = new SimulationCoverage("PartitionLogModelTest", seeds().count())
            .require(APPENDS, 950)
            .require(FOLLOWER_GAPS, 50)
            .require(SEGMENTS, 180)
            .require(EXPLICIT_ROLLS, 55)
            .require(RETENTION, 7)
            .require(TIME_RETENTION, 3)
            .require(TRUNCATIONS, 150)
            .require(FULL_TRUNCATIONS, 75)
            .require(START_MOVES, 130)
            .require(FLUSHES, 60)
            .require(CLEAN_REOPENS, 75)
            .require(CRASHES, 70)
            .require(READS, 170)
            .require(OUT_OF_RANGE, 115)
            .require(TIMESTAMPS, 125);

    /** A record of the model. */
    record ModelRecord(long timestamp, String value) {}

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void logBehavesLikeTheModel(long seed) {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        TopicIdPartition tp = new TopicIdPartition(new Uuid(1, seed), (int) seed, "model");
        Path data = root.resolve("data-" + seed);
        LogConfig config = LogConfig.defaults()
                .withSegmentBytes(random.nextInt(2000, 6000))
                .withIndexIntervalBytes(random.nextInt(0, 1500))
                .withFlushMessages(random.nextBoolean() ? OptionalLong.of(random.nextInt(1, 20)) : OptionalLong.empty())
                .withRetentionBytes(
                        random.nextBoolean() ? OptionalLong.of(random.nextInt(0, 6_000)) : OptionalLong.empty())
                .withRetentionTime(
                        random.nextInt(3) == 0
                                ? Optional.of(Duration.ofMillis(random.nextInt(500, 5_001)))
                                : Optional.empty())
                .withTimestampType(
                        random.nextInt(4) == 0
                                ? MessageTimestampType.LOG_APPEND_TIME
                                : MessageTimestampType.CREATE_TIME);
        ManualClock clock = new ManualClock(1_000_000);
        PartitionLog log = PartitionLog.open(data, tp, config, store, clock);
        TreeMap<Long, ModelRecord> model = new TreeMap<>();
        TreeMap<Long, Long> batchEnds = new TreeMap<>(); // base offset -> last offset
        long start = 0;
        long end = 0;
        int epoch = 0;
        List<String> history = new ArrayList<>();
        SimulationCoverage.Tally tally = COVERAGE.tally();
        Set<Long> segmentBases = new HashSet<>(log.segmentBaseOffsets());

        try {
            for (int step = 0; step < 120; step++) {
                String where = "seed " + seed + ", step " + step + ", history " + history;
                int op = random.nextInt(100);
                if (op < 40) {
                    int batches = random.nextInt(1, 3);
                    List<MemoryRecords> parts = new ArrayList<>();
                    List<List<ModelRecord>> contents = new ArrayList<>();
                    for (int b = 0; b < batches; b++) {
                        int count = random.nextInt(1, 6);
                        SimpleRecord[] records = new SimpleRecord[count];
                        List<ModelRecord> content = new ArrayList<>();
                        for (int r = 0; r < count; r++) {
                            long ts = random.nextLong(0, 10_000);
                            String value = "s" + seed + "-" + step + "-" + b + "-" + r + "-"
                                    + "x".repeat(random.nextInt(0, 120));
                            records[r] = new SimpleRecord(ts, null, value.getBytes());
                            content.add(new ModelRecord(ts, value));
                        }
                        parts.add(MemoryRecords.withRecords(
                                RecordBatch.MAGIC_VALUE_V2, 0L, Compression.NONE, TimestampType.CREATE_TIME, records));
                        contents.add(content);
                    }
                    clock.advance(Duration.ofMillis(random.nextInt(1, 100)));
                    epoch += random.nextInt(5) == 0 ? 1 : 0;
                    AppendResult result =
                            log.appendAsLeader(TestBatches.concat(parts.toArray(MemoryRecords[]::new)), epoch);
                    assertThat(result.firstOffset()).as(where).isEqualTo(end);
                    long offset = end;
                    for (List<ModelRecord> content : contents) {
                        long base = offset;
                        for (ModelRecord record : content) {
                            long ts = result.logAppendTimeMs().orElse(record.timestamp());
                            model.put(offset++, new ModelRecord(ts, record.value()));
                        }
                        batchEnds.put(base, offset - 1);
                    }
                    end = offset;
                    history.add("append " + (end - result.firstOffset()));
                    tally.count(APPENDS);
                } else if (op < 43) {
                    // A follower's append: the leader's offsets, possibly after a gap (compaction).
                    long base = end + random.nextInt(0, 3);
                    if (base > end) {
                        tally.count(FOLLOWER_GAPS);
                    }
                    int count = random.nextInt(1, 5);
                    SimpleRecord[] records = new SimpleRecord[count];
                    for (int r = 0; r < count; r++) {
                        long ts = random.nextLong(0, 10_000);
                        String value = "f" + seed + "-" + step + "-" + r;
                        records[r] = new SimpleRecord(ts, null, value.getBytes());
                        model.put(base + r, new ModelRecord(ts, value));
                    }
                    MemoryRecords follower = MemoryRecords.withRecords(
                            RecordBatch.MAGIC_VALUE_V2, base, Compression.NONE, TimestampType.CREATE_TIME, records);
                    TestBatches.only(follower).setPartitionLeaderEpoch(epoch);
                    log.appendAsFollower(follower);
                    batchEnds.put(base, base + count - 1);
                    end = base + count;
                    history.add("follower " + base + "+" + count);
                } else if (op < 49) {
                    if (random.nextBoolean()) {
                        log.roll();
                        history.add("roll");
                        tally.count(EXPLICIT_ROLLS);
                    } else {
                        RetentionResult result = log.deleteExpiredSegments(random.nextInt(1, 4));
                        history.add("retention " + result.segmentsDeleted());
                        tally.add(RETENTION, result.segmentsDeleted());
                        if (config.retentionBytes().isEmpty()
                                && config.retentionTime().isPresent()) {
                            tally.add(TIME_RETENTION, result.segmentsDeleted());
                        }
                        assertThat(log.logStartOffset()).as(where).isBetween(start, end);
                        assertThat(result.logStartOffset()).as(where).isEqualTo(log.logStartOffset());
                        start = log.logStartOffset();
                        model.headMap(start, false).clear();
                    }
                } else if (op < 65) {
                    long offset = random.nextLong(Math.max(0, start - 2), end + 3);
                    int maxBytes = random.nextInt(0, 2000);
                    long upper = random.nextLong(offset, end + 3);
                    history.add("read " + offset + " " + maxBytes + " " + upper);
                    if (offset < start || offset > end) {
                        PartitionLog current = log;
                        assertThatThrownBy(() -> current.read(offset, maxBytes, upper))
                                .as(where)
                                .isInstanceOf(OffsetOutOfRangeException.class);
                        tally.count(OUT_OF_RANGE);
                    } else {
                        ReadResult read = log.read(offset, maxBytes, upper);
                        checkRead(where, read, offset, maxBytes, upper, model, batchEnds);
                        if (read.records().sizeInBytes() > 0) {
                            tally.count(READS);
                        }
                    }
                } else if (op < 72) {
                    long target = random.nextLong(0, 10_200);
                    history.add("offsetForTimestamp " + target);
                    long s = start;
                    Optional<Map.Entry<Long, ModelRecord>> expected = model.tailMap(s, true).entrySet().stream()
                            .filter(e -> e.getValue().timestamp() >= target)
                            .findFirst();
                    Optional<TimestampAndOffset> actual = log.offsetForTimestamp(target);
                    assertThat(actual.map(TimestampAndOffset::offset))
                            .as(where)
                            .isEqualTo(expected.map(Map.Entry::getKey));
                    if (actual.isPresent()) {
                        tally.count(TIMESTAMPS);
                    }
                    assertThat(actual.map(TimestampAndOffset::timestamp))
                            .as(where)
                            .isEqualTo(expected.map(e -> e.getValue().timestamp()));
                    if (batchEnds.containsKey(start)
                            || model.tailMap(start, true).isEmpty()) {
                        Optional<Map.Entry<Long, ModelRecord>> max = model.tailMap(s, true).entrySet().stream()
                                .reduce((a, b) ->
                                        b.getValue().timestamp() > a.getValue().timestamp() ? b : a);
                        assertThat(log.offsetOfMaxTimestamp().map(TimestampAndOffset::offset))
                                .as(where + " max timestamp")
                                .isEqualTo(max.map(Map.Entry::getKey));
                    }
                } else if (op < 80) {
                    long offset =
                            random.nextInt(6) == 0 ? random.nextLong(0, end + 1) : random.nextLong(start, end + 1);
                    history.add("truncateTo " + offset);
                    log.truncateTo(offset);
                    if (offset < end && model.ceilingKey(offset) != null) {
                        tally.count(TRUNCATIONS);
                    }
                    if (offset < start) {
                        model.clear();
                        batchEnds.clear();
                        start = offset;
                        end = offset;
                    } else if (offset < end) {
                        Map.Entry<Long, Long> containing = batchEnds.floorEntry(offset);
                        long cut = containing != null && containing.getValue() >= offset ? containing.getKey() : offset;
                        model.tailMap(cut, true).clear();
                        batchEnds.tailMap(cut, true).clear();
                        end = Math.max(cut, start);
                    }
                } else if (op < 83) {
                    long offset = random.nextLong(0, 100);
                    history.add("truncateFully " + offset);
                    log.truncateFullyAndStartAt(offset);
                    tally.count(FULL_TRUNCATIONS);
                    model.clear();
                    batchEnds.clear();
                    start = offset;
                    end = offset;
                } else if (op < 90) {
                    long offset = random.nextLong(start, end + 2);
                    history.add("deleteBefore " + offset);
                    if (offset > end) {
                        PartitionLog current = log;
                        assertThatThrownBy(() -> current.deleteRecordsBefore(offset))
                                .as(where)
                                .isInstanceOf(OffsetOutOfRangeException.class);
                    } else {
                        log.deleteRecordsBefore(offset);
                        if (offset > start) {
                            tally.count(START_MOVES);
                        }
                        start = Math.max(start, offset);
                        model.headMap(start, false).clear();
                    }
                } else if (op < 93) {
                    history.add("flush");
                    log.flush();
                    assertThat(log.recoveryPoint()).as(where).isEqualTo(end);
                    tally.count(FLUSHES);
                } else {
                    boolean crash = random.nextBoolean();
                    history.add(crash ? "crash+reopen" : "close+reopen");
                    if (crash) {
                        log.closeAsIfCrashed();
                    } else {
                        log.close();
                    }
                    log = PartitionLog.open(data, tp, config, store, clock);
                    assertThat(log.openReport().cleanShutdown()).as(where).isEqualTo(!crash);
                    if (!crash) {
                        tally.count(CLEAN_REOPENS);
                    } else if (log.openReport().bytesScanned() > 0) {
                        tally.count(CRASHES);
                    }
                    if (crash) {
                        // Recovery finds the end of the last batch: an end set by a truncation into a
                        // gap (after the last batch) is not kept, but never goes below the start.
                        long lastBatchEnd = batchEnds.isEmpty()
                                ? start
                                : batchEnds.lastEntry().getValue() + 1;
                        end = Math.max(lastBatchEnd, start);
                    }
                }
                for (long base : log.segmentBaseOffsets()) {
                    if (segmentBases.add(base)) {
                        tally.count(SEGMENTS);
                    }
                }
                String after = "seed " + seed + ", after step " + step + ", history " + history;
                assertThat(log.logStartOffset()).as(after + ": log start").isEqualTo(start);
                assertThat(log.logEndOffset()).as(after + ": log end").isEqualTo(end);
                assertThat(IndexAudit.violations(log, store.partition(tp.topicId(), tp.partition())))
                        .as(after + ": index")
                        .isEmpty();
                if (history.size() > 12) {
                    history.removeFirst();
                }
            }
            COVERAGE.completed(tally);
        } finally {
            log.close();
        }
    }

    private static void checkRead(
            String where,
            ReadResult result,
            long offset,
            int maxBytes,
            long upper,
            TreeMap<Long, ModelRecord> model,
            TreeMap<Long, Long> batchEnds) {
        List<RecordBatch> batches = new ArrayList<>();
        result.records().batches().forEach(batches::add);
        Map.Entry<Long, Long> first = batchEnds.ceilingEntry(offset) == null && batchEnds.floorEntry(offset) == null
                ? null
                : batchEnds.floorEntry(offset) != null
                                && batchEnds.floorEntry(offset).getValue() >= offset
                        ? batchEnds.floorEntry(offset)
                        : batchEnds.ceilingEntry(offset);
        if (first == null || first.getValue() >= upper) {
            assertThat(batches).as(where + ": read should be empty").isEmpty();
            return;
        }
        assertThat(batches).as(where + ": read must make progress").isNotEmpty();
        assertThat(batches.getFirst().baseOffset()).as(where).isEqualTo(first.getKey());
        if (result.records().sizeInBytes() > batches.getFirst().sizeInBytes()) {
            assertThat(result.records().sizeInBytes())
                    .as(where + ": byte limit")
                    .isLessThanOrEqualTo(maxBytes);
        }
        // The region ends at a batch boundary unless the byte limit cut a later batch.
        int whole = batches.stream().mapToInt(RecordBatch::sizeInBytes).sum();
        if (whole < result.records().sizeInBytes()) {
            assertThat(result.records().sizeInBytes())
                    .as(where + ": only the byte limit cuts")
                    .isEqualTo(maxBytes);
        }
        long expectedBase = first.getKey();
        for (RecordBatch batch : batches) {
            assertThat(batch.isValid()).as(where).isTrue();
            assertThat(batch.baseOffset())
                    .as(where + ": batches follow each other")
                    .isEqualTo(expectedBase);
            assertThat(batch.lastOffset()).as(where + ": below the upper bound").isLessThan(upper);
            for (Record record : batch) {
                ModelRecord expected = model.get(record.offset());
                if (expected != null) {
                    assertThat(record.timestamp()).as(where).isEqualTo(expected.timestamp());
                    assertThat(java.nio.charset.StandardCharsets.UTF_8
                                    .decode(record.value())
                                    .toString())
                            .as(where)
                            .isEqualTo(expected.value());
                }
            }
            Long nextBase = batchEnds.higherKey(batch.baseOffset());
            expectedBase = nextBase == null ? -1 : nextBase;
        }
    }
}
