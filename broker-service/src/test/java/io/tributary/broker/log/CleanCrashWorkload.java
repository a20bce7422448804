package io.tributary.broker.log;

import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The appends of {@link CleanCrashTest}, the same in the child that cleans and crashes ({@link
 * CleanCrashChild}) and in the parent that checks: {@value #CLOSED_SEGMENTS} closed segments of
 * {@value #BATCHES_PER_SEGMENT} batches, then an active segment of two batches. Batch {@code b} has
 * {@value #RECORDS_PER_BATCH} records over the keys {@code k0 .. k}{@value #KEYS}{@code -1} (chosen
 * by a seeded generator, so most records have later versions), one record in six a tombstone, and
 * one of four codecs (so a cleaned batch is rebuilt compressed). Every value names its record's
 * offset, so a record that kept its content but not its offset shows.
 */
final class CleanCrashWorkload {

    static final TopicIdPartition PARTITION = new TopicIdPartition(new Uuid(17, 17), 0, "clean-crash");
    static final int CLOSED_SEGMENTS = 4;
    static final int BATCHES_PER_SEGMENT = 10;
    static final int RECORDS_PER_BATCH = 6;
    static final int KEYS = 12;
    /** The child's and the parent's clock start; record timestamps lie just before it. */
    static final long START_MS = 1_700_000_000_000L;

    private static final List<Compression> CODECS = List.of(
            Compression.NONE,
            Compression.gzip().build(),
            Compression.lz4().build(),
            Compression.zstd().build());

    /**
     * Compacted; segments small enough for the cleaner to clean the four closed segments in two
     * groups of two (a group holds at most {@code segment.bytes}); an index entry every few
     * batches; Kafka's {@code file.delete.delay.ms}.
     */
    static final LogConfig CONFIG = LogConfig.defaults()
            .withSegmentBytes(5_000)
            .withIndexIntervalBytes(400)
            .withCompaction(CompactionConfig.defaults().withCleanupPolicy(Set.of(CleanupPolicy.COMPACT)));

    /** One appended record; {@code value} is null for a tombstone. */
    record Rec(long offset, String key, String value, long timestamp) {
        String contents() {
            return key + "=" + value;
        }
    }

    private CleanCrashWorkload() {}

    /** The batches to append, in order; {@code null} marks a roll. */
    static List<MemoryRecords> appends() {
        List<MemoryRecords> out = new ArrayList<>();
        List<List<Rec>> batches = batches();
        for (int b = 0; b < batches.size(); b++) {
            List<Rec> batch = batches.get(b);
            SimpleRecord[] records = batch.stream()
                    .map(r -> new SimpleRecord(r.timestamp(), LogContents.bytes(r.key()), LogContents.bytes(r.value())))
                    .toArray(SimpleRecord[]::new);
            out.add(MemoryRecords.withRecords(CODECS.get(b % CODECS.size()), records));
            if (b % BATCHES_PER_SEGMENT == BATCHES_PER_SEGMENT - 1 && b / BATCHES_PER_SEGMENT < CLOSED_SEGMENTS) {
                out.add(null);
            }
        }
        return out;
    }

    /** Every record appended, by offset. */
    static TreeMap<Long, Rec> records() {
        TreeMap<Long, Rec> out = new TreeMap<>();
        batches().forEach(batch -> batch.forEach(r -> out.put(r.offset(), r)));
        return out;
    }

    /** The base offsets of the segments: the closed ones, then the active one (the first uncleanable offset). */
    static List<Long> segmentBases() {
        List<Long> bases = new ArrayList<>();
        for (int s = 0; s <= CLOSED_SEGMENTS; s++) {
            bases.add((long) s * BATCHES_PER_SEGMENT * RECORDS_PER_BATCH);
        }
        return bases;
    }

    /**
     * What one pass keeps of {@code [from, to)}: a record below the first uncleanable offset survives
     * when no later record of its key lies below it (a tombstone too: its horizon starts at this
     * pass); nothing at or past that offset goes.
     */
    static TreeMap<Long, Rec> cleaned(TreeMap<Long, Rec> records, long from, long to) {
        long checkpoint = segmentBases().getLast();
        Map<String, Long> latest = new HashMap<>();
        records.headMap(checkpoint).values().forEach(r -> latest.put(r.key(), r.offset()));
        TreeMap<Long, Rec> out = new TreeMap<>();
        for (Rec r : records.subMap(from, to).values()) {
            if (r.offset() >= checkpoint || latest.get(r.key()) == r.offset()) {
                out.put(r.offset(), r);
            }
        }
        return out;
    }

    private static List<List<Rec>> batches() {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(17);
        List<List<Rec>> batches = new ArrayList<>();
        int total = CLOSED_SEGMENTS * BATCHES_PER_SEGMENT + 2;
        long offset = 0;
        for (int b = 0; b < total; b++) {
            List<Rec> batch = new ArrayList<>();
            for (int i = 0; i < RECORDS_PER_BATCH; i++) {
                String key = "k" + random.nextInt(KEYS);
                String value = random.nextInt(6) == 0 ? null : "v" + offset + "-" + "x".repeat(random.nextInt(40));
                batch.add(new Rec(offset, key, value, START_MS - 1_000_000 + offset * 10));
                offset++;
            }
            batches.add(batch);
        }
        return batches;
    }
}
