package io.tributary.broker.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.CompactionConfig;
import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.LogContents;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.index.IndexStore;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A dirty section with more keys than one offset map holds is cleaned in several passes. */
class MultiPassCleaningTest {

    private static final int KEYS = 300;
    private static final int VERSIONS = 3;
    private static final int BATCH_RECORDS = 10;

    @TempDir
    Path dir;

    private final InstantSource clock = InstantSource.fixed(Instant.ofEpochMilli(1_000_000));
    private IndexStore store;

    @BeforeEach
    void openStore() {
        store = IndexStore.open(dir.resolve("index"));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private PartitionLog filledLog(String name) {
        LogConfig config = LogConfig.defaults()
                .withCompaction(CompactionConfig.defaults().withCleanupPolicy(Set.of(CleanupPolicy.COMPACT)));
        PartitionLog log = PartitionLog.open(
                dir.resolve("data"), new TopicIdPartition(Uuid.randomUuid(), 0, name), config, store, clock);
        int appended = 0;
        for (int version = 0; version < VERSIONS; version++) {
            for (int first = 0; first < KEYS; first += BATCH_RECORDS) {
                SimpleRecord[] records = new SimpleRecord[BATCH_RECORDS];
                for (int i = 0; i < BATCH_RECORDS; i++) {
                    records[i] = new SimpleRecord(
                            1_000_000,
                            LogContents.bytes("key-" + (first + i)),
                            LogContents.bytes("v" + version + "-" + (first + i)));
                }
                log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records), 0);
                appended += BATCH_RECORDS;
                if (appended % 100 == 0) {
                    log.roll();
                }
            }
        }
        log.roll();
        log.flush();
        return log;
    }

    @Test
    void aMapOfFiftyKeysCleansNineHundredRecordsInPassesToTheSameLogAsOneBigPass() {
        PartitionLog small = filledLog("small-map");
        PartitionLog big = filledLog("big-map");
        // 59 slots (the largest prime at most 60), 53 keys: five batches of ten per pass.
        Cleaner smallCleaner = new Cleaner(new CleanerConfig(24 * 60, 0.9, 4096), clock);
        Cleaner bigCleaner = new Cleaner(CleanerConfig.defaults(), clock);

        List<Long> checkpoints = new ArrayList<>();
        CleanResult result;
        do {
            result = smallCleaner.clean(small, small.logEndOffset());
            assertThat(result.outcome()).isEqualTo(CleanResult.Outcome.CLEANED);
            checkpoints.add(result.checkpoint());
        } while (!result.reachedUncleanable());
        CleanResult single = bigCleaner.clean(big, big.logEndOffset());

        assertThat(checkpoints).hasSize(KEYS * VERSIONS / 50).isSorted().doesNotHaveDuplicates();
        assertThat(checkpoints.getFirst()).isEqualTo(50);
        assertThat(single.reachedUncleanable()).isTrue();
        assertThat(single.checkpoint()).isEqualTo(KEYS * VERSIONS);
        TreeMap<Long, String> expected = new TreeMap<>();
        for (int k = 0; k < KEYS; k++) {
            expected.put((long) (VERSIONS - 1) * KEYS + k, "key-" + k + "=v" + (VERSIONS - 1) + "-" + k);
        }
        assertThat(LogContents.records(small)).isEqualTo(expected);
        assertThat(LogContents.records(big)).isEqualTo(expected);
        assertThat(smallCleaner.clean(small, small.logEndOffset()).outcome())
                .isEqualTo(CleanResult.Outcome.NOTHING_TO_CLEAN);
        small.close();
        big.close();
    }
}
