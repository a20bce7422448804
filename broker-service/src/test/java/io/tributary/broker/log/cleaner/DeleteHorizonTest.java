package io.tributary.broker.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.LogContents;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.TimestampAndOffset;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tombstone delete horizons as KIP-534 persists them: in the header of the batch the cleaner
 * rewrites (attribute bit 6, base timestamp), read back by later passes and after a restart.
 */
class DeleteHorizonTest {

    private static final long START_MS = 1_000_000;
    private static final long RETENTION_MS = 1_000;
    private static final long RECORD_MS = 999_000;
    private static final int DELETE_HORIZON_FLAG = 0x40;
    private static final int ATTRIBUTES_AT = 21;
    private static final int BASE_TIMESTAMP_AT = 27;

    private final AtomicLong nowMs = new AtomicLong(START_MS);
    private final InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());

    @RegisterExtension
    final CleanerTestLogs logs = new CleanerTestLogs(clock);

    private static final LogConfig CONFIG = CleanerTestLogs.COMPACT.withCompaction(
            CleanerTestLogs.COMPACT.compaction().withDeleteRetention(Duration.ofMillis(RETENTION_MS)));

    /** Ten values (k0..k9), then one batch: a tombstone for k0..k4 and a new value of k9, each a closed segment. */
    private PartitionLog valuesThenTombstones(String topic) {
        PartitionLog log = logs.open(topic, CONFIG, clock);
        CleanerTestLogs.fill(log, 1, 10, RECORD_MS);
        SimpleRecord[] batch = new SimpleRecord[6];
        for (int i = 0; i < 5; i++) {
            batch[i] = new SimpleRecord(RECORD_MS + 10 + i, LogContents.bytes("k" + i), null);
        }
        batch[5] = new SimpleRecord(RECORD_MS + 20, LogContents.bytes("k9"), LogContents.bytes("v-last"));
        log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, batch), 0);
        log.roll();
        return log;
    }

    private static RecordBatch batchAt(PartitionLog log, long offset) {
        return LogContents.batchesFrom(log, log.logStartOffset()).stream()
                .filter(b -> b.baseOffset() <= offset && offset <= b.lastOffset())
                .findFirst()
                .orElseThrow();
    }

    @Test
    void theFirstPassThatKeepsATombstoneWritesItsBatchWithTheHorizonFlagAndBaseTimestamp() {
        PartitionLog log = valuesThenTombstones("flag");
        TimestampAndOffset maxBefore = log.offsetOfMaxTimestamp().orElseThrow();

        CleanResult result = new Cleaner(CleanerConfig.defaults(), clock).clean(log, Long.MAX_VALUE);

        assertThat(result.earliestTombstoneHorizonMs()).hasValue(START_MS + RETENTION_MS);
        assertThat(log.compaction().earliestDeleteHorizonMs()).hasValue(START_MS + RETENTION_MS);
        RecordBatch tombstones = batchAt(log, 10);
        assertThat(tombstones.deleteHorizonMs()).hasValue(START_MS + RETENTION_MS);
        ByteBuffer header = ByteBuffer.allocate(tombstones.sizeInBytes());
        tombstones.writeTo(header);
        assertThat(header.getShort(ATTRIBUTES_AT) & DELETE_HORIZON_FLAG).isEqualTo(DELETE_HORIZON_FLAG);
        assertThat(header.getLong(BASE_TIMESTAMP_AT)).isEqualTo(START_MS + RETENTION_MS);
        // The maximum stays the largest record timestamp, and every record keeps its own.
        assertThat(tombstones.maxTimestamp()).isEqualTo(RECORD_MS + 20);
        List<Long> timestamps = new ArrayList<>();
        for (Record record : tombstones) {
            timestamps.add(record.timestamp());
        }
        assertThat(timestamps)
                .containsExactly(
                        RECORD_MS + 10, RECORD_MS + 11, RECORD_MS + 12, RECORD_MS + 13, RECORD_MS + 14, RECORD_MS + 20);
        // The values the pass kept are not rewritten: no flag.
        assertThat(batchAt(log, 5).deleteHorizonMs()).isEmpty();
        // ListOffsets by timestamp and MAX_TIMESTAMP see the records' timestamps, never the horizon.
        assertThat(log.offsetForTimestamp(RECORD_MS + 12))
                .hasValueSatisfying(t -> assertThat(t.offset()).isEqualTo(12));
        assertThat(log.offsetForTimestamp(RECORD_MS + 21)).isEmpty();
        assertThat(log.offsetOfMaxTimestamp()).hasValue(maxBefore);
        assertThat(maxBefore).isEqualTo(new TimestampAndOffset(RECORD_MS + 20, 15, OptionalInt.of(0)));
    }

    @Test
    void aReopenedLogDropsItsTombstonesOnceThePersistedHorizonPassesWithoutNewWrites() {
        PartitionLog first = valuesThenTombstones("reopened");
        new LogCleaner(CleanerConfig.defaults(), clock).runRound(List.of(CleanerTestLogs.target(first)));
        TreeMap<Long, String> cleaned = LogContents.records(first);
        assertThat(cleaned.values()).contains("k0=null", "k4=null");
        first.close();

        nowMs.set(START_MS + RETENTION_MS - 1);
        PartitionLog log = logs.reopen(first, clock);
        LogCleaner restarted = new LogCleaner(CleanerConfig.defaults(), clock);
        List<LogCleaner.Target> targets = List.of(CleanerTestLogs.target(log));

        assertThat(log.compaction().earliestDeleteHorizonMs()).hasValue(START_MS + RETENTION_MS);
        assertThat(restarted.runRound(targets)).isEmpty();
        assertThat(LogContents.records(log)).isEqualTo(cleaned);

        nowMs.set(START_MS + RETENTION_MS);
        Optional<CleanResult> atHorizon = restarted.runRound(targets);

        assertThat(atHorizon).hasValueSatisfying(r -> {
            assertThat(r.outcome()).isEqualTo(CleanResult.Outcome.CLEANED);
            assertThat(r.earliestTombstoneHorizonMs()).isEmpty();
        });
        assertThat(LogContents.records(log).values()).noneMatch(v -> v.endsWith("=null"));
        assertThat(LogContents.records(log)).containsEntry(15L, "k9=v-last").containsEntry(5L, "k5=v0-5");
        assertThat(log.compaction().earliestDeleteHorizonMs()).isEmpty();
        assertThat(restarted.runRound(targets)).isEmpty();
    }

    @Test
    void aLaterPassRewritingTheTombstonesBatchKeepsItsHorizon() {
        PartitionLog log = valuesThenTombstones("kept-horizon");
        Cleaner cleaner = new Cleaner(CleanerConfig.defaults(), clock);
        cleaner.clean(log, Long.MAX_VALUE);
        // k9's value in the tombstones' batch is superseded: the next pass rewrites that batch.
        nowMs.addAndGet(RETENTION_MS / 2);
        log.appendAsLeader(
                MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(RECORD_MS + 30, LogContents.bytes("k9"), LogContents.bytes("v-newer"))),
                0);
        log.roll();

        CleanResult second = cleaner.clean(log, Long.MAX_VALUE);

        assertThat(second.outcome()).isEqualTo(CleanResult.Outcome.CLEANED);
        RecordBatch tombstones = batchAt(log, 10);
        assertThat(tombstones.countOrNull()).isEqualTo(5);
        assertThat(tombstones.deleteHorizonMs()).hasValue(START_MS + RETENTION_MS);
        assertThat(second.earliestTombstoneHorizonMs()).hasValue(START_MS + RETENTION_MS);
        assertThat(log.compaction().earliestDeleteHorizonMs()).hasValue(START_MS + RETENTION_MS);

        nowMs.set(START_MS + RETENTION_MS);
        CleanResult third = cleaner.cleanTombstones(log, Long.MAX_VALUE);

        assertThat(third.outcome()).isEqualTo(CleanResult.Outcome.CLEANED);
        assertThat(LogContents.records(log))
                .containsExactlyEntriesOf(new TreeMap<>(
                        Map.of(5L, "k5=v0-5", 6L, "k6=v0-6", 7L, "k7=v0-7", 8L, "k8=v0-8", 16L, "k9=v-newer")));
    }
}
