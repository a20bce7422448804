package io.tributary.broker.log;

import ch.qos.logback.classic.Level;
import io.tributary.broker.log.index.IndexStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.OptionalLong;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.slf4j.LoggerFactory;

/**
 * The child process of {@link CrashTest}: opens (recovering) a partition log and appends batches in
 * a loop until it is killed. Each record's value names its own offset, so the parent can check
 * content. After each append it prints {@code APPENDED <last offset> <recovery point>}.
 *
 * <p>Usage: {@code CrashTestAppender <data dir> <index dir> <seed>}.
 */
public final class CrashTestAppender {

    static final TopicIdPartition PARTITION = new TopicIdPartition(new Uuid(11, 12), 0, "crash");

    /** Small segments and frequent flushes, so that kills land around rolls and recovery points. */
    static final LogConfig CONFIG = LogConfig.defaults()
            .withSegmentBytes(64 * 1024)
            .withIndexIntervalBytes(1024)
            .withFlushMessages(OptionalLong.of(200));

    private CrashTestAppender() {}

    public static void main(String[] args) {
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
                .setLevel(Level.WARN);
        Path data = Path.of(args[0]);
        Path indexDir = Path.of(args[1]);
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(Long.parseLong(args[2]));
        // The edge of this program: the real clock is injected here.
        InstantSource clock = InstantSource.system();
        IndexStore store = IndexStore.open(indexDir);
        // As in the broker: rolled segments are fsynced by a roll-flusher thread, so kills also land
        // while a roll's flush is pending or running (never closed: the process is killed).
        RollFlusher rollFlusher = new RollFlusher(RollFlusher.DEFAULT_QUEUE_CAPACITY);
        PartitionLog log =
                PartitionLog.open(data, PARTITION, CONFIG, ProducerStateConfig.defaults(), store, clock, rollFlusher);
        System.out.println("OPENED " + log.logEndOffset() + " " + log.openReport());
        System.out.flush();
        while (true) {
            long next = log.logEndOffset();
            int count = random.nextInt(1, 20);
            SimpleRecord[] records = new SimpleRecord[count];
            for (int i = 0; i < count; i++) {
                String value = valueFor(next + i) + "-" + "p".repeat(random.nextInt(0, 200));
                records[i] = new SimpleRecord(clock.millis(), null, value.getBytes(StandardCharsets.UTF_8));
            }
            AppendResult result = log.appendAsLeader(
                    MemoryRecords.withRecords(
                            RecordBatch.MAGIC_VALUE_V2, 0L, Compression.NONE, TimestampType.CREATE_TIME, records),
                    0);
            System.out.println("APPENDED " + result.lastOffset() + " " + log.recoveryPoint());
            System.out.flush();
        }
    }

    static String valueFor(long offset) {
        return "offset-" + offset;
    }
}
