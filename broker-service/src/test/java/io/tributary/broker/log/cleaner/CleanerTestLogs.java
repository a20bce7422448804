package io.tributary.broker.log.cleaner;

import io.tributary.broker.log.CompactionConfig;
import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.LogContents;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.index.IndexStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real partition logs for a test, in a temporary directory with one index store, opened before each
 * test and closed and deleted after it: a JUnit extension ({@code @RegisterExtension}).
 */
public final class CleanerTestLogs implements BeforeEachCallback, AfterEachCallback {

    /** Kafka's defaults with {@code cleanup.policy=compact}. */
    public static final LogConfig COMPACT = LogConfig.defaults()
            .withCompaction(CompactionConfig.defaults().withCleanupPolicy(Set.of(CleanupPolicy.COMPACT)));

    private final InstantSource clock;
    private final List<PartitionLog> logs = new ArrayList<>();
    private Path dir;
    private IndexStore store;

    /** Logs whose clock is {@code clock} (unless given another). */
    public CleanerTestLogs(InstantSource clock) {
        this.clock = clock;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("cleaner-test");
        store = IndexStore.open(dir.resolve("index"));
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        logs.forEach(PartitionLog::close);
        logs.clear();
        store.close();
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    /** A new log of {@code topic}'s partition 0 (a fresh topic id) on the logs' clock. */
    public PartitionLog open(String topic, LogConfig config) {
        return open(topic, config, clock);
    }

    public PartitionLog open(String topic, LogConfig config, InstantSource logClock) {
        PartitionLog log = PartitionLog.open(
                dir.resolve("data"), new TopicIdPartition(Uuid.randomUuid(), 0, topic), config, store, logClock);
        logs.add(log);
        return log;
    }

    /** Opens {@code log}'s partition again (after a crash or a close), with its config, on the logs' clock. */
    public PartitionLog reopen(PartitionLog log) {
        return reopen(log, clock);
    }

    /** Opens {@code log}'s partition again, with its config, on {@code logClock}. */
    public PartitionLog reopen(PartitionLog log, InstantSource logClock) {
        PartitionLog reopened =
                PartitionLog.open(dir.resolve("data"), log.topicIdPartition(), log.config(), store, logClock);
        logs.add(reopened);
        return reopened;
    }

    /**
     * Appends {@code segments} closed segments, each one batch of {@code records} records over the
     * keys k0..k9 (record i has key {@code k(i % 10)}, value {@code v<segment>-<i>}), stamped {@code
     * timestampMs}.
     */
    public static void fill(PartitionLog log, int segments, int records, long timestampMs) {
        for (int s = 0; s < segments; s++) {
            SimpleRecord[] batch = new SimpleRecord[records];
            for (int i = 0; i < records; i++) {
                batch[i] = new SimpleRecord(
                        timestampMs, LogContents.bytes("k" + (i % 10)), LogContents.bytes("v" + s + "-" + i));
            }
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, batch), 0);
            log.roll();
        }
    }

    /** {@code log} as a round's target, cleanable up to its end. */
    public static LogCleaner.Target target(PartitionLog log) {
        return new LogCleaner.Target(log, Long.MAX_VALUE);
    }
}
