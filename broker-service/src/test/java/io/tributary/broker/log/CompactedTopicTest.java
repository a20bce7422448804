package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import io.tributary.broker.log.index.IndexStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code cleanup.policy} changes outside the cleaner: appends and retention. */
class CompactedTopicTest {

    private static final TopicIdPartition TP = new TopicIdPartition(new Uuid(9, 9), 0, "table");

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000_000);
    private IndexStore store;
    private PartitionLog log;

    @BeforeEach
    void openStore() {
        store = IndexStore.open(dir.resolve("index"));
    }

    @AfterEach
    void closeAll() {
        if (log != null) {
            log.close();
        }
        store.close();
    }

    private PartitionLog open(Set<CleanupPolicy> policy) {
        LogConfig config = LogConfig.defaults()
                .withRetentionTime(Optional.of(Duration.ofSeconds(10)))
                .withCompaction(CompactionConfig.defaults().withCleanupPolicy(policy));
        log = PartitionLog.open(dir.resolve("data"), TP, config, store, clock);
        return log;
    }

    private static MemoryRecords records(SimpleRecord... records) {
        return MemoryRecords.withRecords(Compression.gzip().build(), records);
    }

    @Test
    void aRecordWithoutAKeyIsRefusedByACompactedTopic() {
        open(Set.of(CleanupPolicy.COMPACT, CleanupPolicy.DELETE));

        assertThatThrownBy(() -> log.appendAsLeader(
                        records(
                                new SimpleRecord(1L, LogContents.bytes("k"), LogContents.bytes("v")),
                                new SimpleRecord(2L, null, LogContents.bytes("no key"))),
                        0))
                .isInstanceOfSatisfying(
                        InvalidRecordException.class,
                        e -> assertThat(e.recordErrors())
                                .extracting(RecordError::batchIndex)
                                .containsExactly(1));
        assertThat(log.logEndOffset()).isZero();
        log.appendAsLeader(records(new SimpleRecord(1L, LogContents.bytes("k"), null)), 0);
        assertThat(log.logEndOffset()).isEqualTo(1);
    }

    @Test
    void aTopicThatOnlyDeletesTakesRecordsWithoutKeys() {
        open(Set.of(CleanupPolicy.DELETE));

        log.appendAsLeader(records(new SimpleRecord(1L, null, LogContents.bytes("no key"))), 0);

        assertThat(log.logEndOffset()).isEqualTo(1);
    }

    @Test
    void retentionDeletesNothingOfATopicThatOnlyCompacts() {
        open(Set.of(CleanupPolicy.COMPACT));
        log.appendAsLeader(records(new SimpleRecord(1L, LogContents.bytes("k"), LogContents.bytes("v"))), 0);
        log.roll();
        log.appendAsLeader(records(new SimpleRecord(2L, LogContents.bytes("k"), LogContents.bytes("w"))), 0);

        assertThat(log.deleteExpiredSegments(16).segmentsDeleted()).isZero();
        log.updateConfig(log.config()
                .withCompaction(log.config()
                        .compaction()
                        .withCleanupPolicy(Set.of(CleanupPolicy.COMPACT, CleanupPolicy.DELETE))));
        assertThat(log.deleteExpiredSegments(16).segmentsDeleted()).isEqualTo(1);
    }

    @Test
    void aTopicWithoutCleanupPolicyKeepsEverySegmentAndTakesRecordsWithoutKeys() {
        open(Set.of());
        log.appendAsLeader(records(new SimpleRecord(1L, null, LogContents.bytes("v"))), 0);
        log.roll();
        log.appendAsLeader(records(new SimpleRecord(2L, null, LogContents.bytes("w"))), 0);

        assertThat(log.deleteExpiredSegments(16).segmentsDeleted()).isZero();
        assertThat(log.config().compaction().compacts()).isFalse();
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 1L);
    }
}
