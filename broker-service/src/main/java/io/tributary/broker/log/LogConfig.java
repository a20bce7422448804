package io.tributary.broker.log;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;

/**
 * The per-topic bounds of a partition log, with Kafka's topic-config semantics and defaults. Every
 * limit the storage engine applies is one of these fields; "unlimited" is an empty optional, never
 * {@code -1}.
 *
 * <table>
 *   <caption>Fields, Kafka keys and defaults</caption>
 *   <tr><th>field</th><th>Kafka key</th><th>default</th></tr>
 *   <tr><td>{@code segmentBytes}</td><td>{@code segment.bytes}</td><td>1 GiB (1073741824)</td></tr>
 *   <tr><td>{@code segmentTime}</td><td>{@code segment.ms}</td><td>7 days</td></tr>
 *   <tr><td>{@code retentionTime}</td><td>{@code retention.ms}</td><td>7 days (empty: unlimited)</td></tr>
 *   <tr><td>{@code retentionBytes}</td><td>{@code retention.bytes}</td><td>unlimited</td></tr>
 *   <tr><td>{@code maxMessageBytes}</td><td>{@code max.message.bytes}</td><td>1048588</td></tr>
 *   <tr><td>{@code indexIntervalBytes}</td><td>{@code index.interval.bytes}</td><td>4096</td></tr>
 *   <tr><td>{@code flushMessages}</td><td>{@code flush.messages}</td><td>unlimited</td></tr>
 *   <tr><td>{@code flushInterval}</td><td>{@code flush.ms}</td><td>unlimited</td></tr>
 *   <tr><td>{@code timestampType}</td><td>{@code message.timestamp.type}</td><td>CreateTime</td></tr>
 *   <tr><td>{@code compaction}</td><td>{@code cleanup.policy} and the compaction keys</td><td>see
 *       {@link CompactionConfig}</td></tr>
 *   <tr><td>{@code timestampBounds}</td><td>{@code message.timestamp.before.max.ms}, {@code
 *       message.timestamp.after.max.ms}</td><td>unlimited, 1 hour: see {@link TimestampBounds}</td></tr>
 *   <tr><td>{@code fileDeleteDelay}</td><td>{@code file.delete.delay.ms}</td><td>1 minute</td></tr>
 *   <tr><td>{@code segmentJitter}</td><td>{@code segment.jitter.ms}</td><td>0 (none)</td></tr>
 *   <tr><td>{@code compression}</td><td>{@code compression.type} and {@code compression.<codec>.level}</td><td>
 *       producer: see {@link TopicCompression}</td></tr>
 * </table>
 *
 * <p>{@code segmentBytes} may be set below Kafka's 1 MiB minimum (down to one batch header, 61
 * bytes) so that tests can roll often; the broker's configuration edge enforces Kafka's minimum.
 *
 * @param segmentBytes a segment is rolled before an append would make it larger than this
 * @param segmentTime a non-empty segment is rolled once its first batch is this old
 * @param retentionTime closed segments whose newest timestamp is older than this are deleted
 * @param retentionBytes closed segments are deleted, oldest first, while the log is larger than this
 * @param maxMessageBytes the largest record batch a producer may append
 * @param indexIntervalBytes bytes of batches between two sparse offset-index entries
 * @param flushMessages fsync after this many messages (records) since the last flush
 * @param flushInterval fsync when this long has passed since the last flush
 * @param timestampType whether batches keep the producer's timestamp or get the broker's clock
 * @param compaction the cleanup policy and the log cleaner's settings
 * @param timestampBounds how far a producer's record timestamps may lie from the leader's clock
 *     ({@code CreateTime} topics only)
 * @param fileDeleteDelay how long a segment file that retention, a truncation or a cleaner swap
 *     removed from the log stays readable (open, renamed {@code <name>.deleted}) before it is closed
 *     and deleted, so that reads in flight finish (see {@code SegmentDeleter}); zero deletes at once
 * @param segmentJitter each segment rolls up to this much (at most {@code segmentTime}) before
 *     {@code segmentTime}, by {@link #segmentJitterMs}, so that partitions created together do not
 *     all roll at once
 * @param compression the codec the leader stores batches with ({@code producer}: the producer's)
 */
public record LogConfig(
        int segmentBytes,
        Duration segmentTime,
        Optional<Duration> retentionTime,
        OptionalLong retentionBytes,
        int maxMessageBytes,
        int indexIntervalBytes,
        OptionalLong flushMessages,
        Optional<Duration> flushInterval,
        MessageTimestampType timestampType,
        CompactionConfig compaction,
        TimestampBounds timestampBounds,
        Duration fileDeleteDelay,
        Duration segmentJitter,
        TopicCompression compression) {

    public static final int DEFAULT_SEGMENT_BYTES = 1024 * 1024 * 1024;
    public static final Duration DEFAULT_SEGMENT_TIME = Duration.ofDays(7);
    public static final Duration DEFAULT_RETENTION_TIME = Duration.ofDays(7);
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12;
    public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;
    /** Kafka's {@code file.delete.delay.ms} default: one minute. */
    public static final Duration DEFAULT_FILE_DELETE_DELAY = Duration.ofMinutes(1);

    public LogConfig {
        Objects.requireNonNull(segmentTime, "segmentTime");
        Objects.requireNonNull(retentionTime, "retentionTime");
        Objects.requireNonNull(retentionBytes, "retentionBytes");
        Objects.requireNonNull(flushMessages, "flushMessages");
        Objects.requireNonNull(flushInterval, "flushInterval");
        Objects.requireNonNull(timestampType, "timestampType");
        Objects.requireNonNull(compaction, "compaction");
        Objects.requireNonNull(timestampBounds, "timestampBounds");
        Objects.requireNonNull(fileDeleteDelay, "fileDeleteDelay");
        if (fileDeleteDelay.isNegative()) {
            throw new IllegalArgumentException("file.delete.delay.ms must not be negative: " + fileDeleteDelay);
        }
        Objects.requireNonNull(segmentJitter, "segmentJitter");
        Objects.requireNonNull(compression, "compression");
        if (segmentJitter.isNegative()) {
            throw new IllegalArgumentException("segment.jitter.ms must not be negative: " + segmentJitter);
        }
        if (segmentBytes < DefaultRecordBatch.RECORD_BATCH_OVERHEAD) {
            throw new IllegalArgumentException("segment.bytes must hold at least one batch header: " + segmentBytes);
        }
        requirePositive(segmentTime, "segment.ms");
        retentionTime.ifPresent(d -> requirePositive(d, "retention.ms"));
        retentionBytes.ifPresent(b -> requireAtLeast(b, 0, "retention.bytes"));
        requireAtLeast(maxMessageBytes, 0, "max.message.bytes");
        requireAtLeast(indexIntervalBytes, 0, "index.interval.bytes");
        flushMessages.ifPresent(m -> requireAtLeast(m, 1, "flush.messages"));
        flushInterval.ifPresent(d -> requirePositive(d, "flush.ms"));
    }

    /**
     * A config with Kafka's default cleanup policy ({@code delete}), compaction settings, timestamp
     * bounds, file delete delay and compression ({@code producer}), and no segment jitter.
     */
    public LogConfig(
            int segmentBytes,
            Duration segmentTime,
            Optional<Duration> retentionTime,
            OptionalLong retentionBytes,
            int maxMessageBytes,
            int indexIntervalBytes,
            OptionalLong flushMessages,
            Optional<Duration> flushInterval,
            MessageTimestampType timestampType) {
        this(
                segmentBytes,
                segmentTime,
                retentionTime,
                retentionBytes,
                maxMessageBytes,
                indexIntervalBytes,
                flushMessages,
                flushInterval,
                timestampType,
                CompactionConfig.defaults(),
                TimestampBounds.defaults(),
                DEFAULT_FILE_DELETE_DELAY,
                Duration.ZERO,
                TopicCompression.defaults());
    }

    /** Kafka's defaults. */
    public static LogConfig defaults() {
        return new LogConfig(
                DEFAULT_SEGMENT_BYTES,
                DEFAULT_SEGMENT_TIME,
                Optional.of(DEFAULT_RETENTION_TIME),
                OptionalLong.empty(),
                DEFAULT_MAX_MESSAGE_BYTES,
                DEFAULT_INDEX_INTERVAL_BYTES,
                OptionalLong.empty(),
                Optional.empty(),
                MessageTimestampType.CREATE_TIME);
    }

    public LogConfig withSegmentBytes(int value) {
        return with(c -> c.segmentBytes = value);
    }

    public LogConfig withSegmentTime(Duration value) {
        return with(c -> c.segmentTime = value);
    }

    public LogConfig withRetentionTime(Optional<Duration> value) {
        return with(c -> c.retentionTime = value);
    }

    public LogConfig withRetentionBytes(OptionalLong value) {
        return with(c -> c.retentionBytes = value);
    }

    public LogConfig withMaxMessageBytes(int value) {
        return with(c -> c.maxMessageBytes = value);
    }

    public LogConfig withIndexIntervalBytes(int value) {
        return with(c -> c.indexIntervalBytes = value);
    }

    public LogConfig withFlushMessages(OptionalLong value) {
        return with(c -> c.flushMessages = value);
    }

    public LogConfig withFlushInterval(Optional<Duration> value) {
        return with(c -> c.flushInterval = value);
    }

    public LogConfig withTimestampType(MessageTimestampType value) {
        return with(c -> c.timestampType = value);
    }

    public LogConfig withCompaction(CompactionConfig value) {
        return with(c -> c.compaction = value);
    }

    public LogConfig withTimestampBounds(TimestampBounds value) {
        return with(c -> c.timestampBounds = value);
    }

    public LogConfig withFileDeleteDelay(Duration value) {
        return with(c -> c.fileDeleteDelay = value);
    }

    public LogConfig withSegmentJitter(Duration value) {
        return with(c -> c.segmentJitter = value);
    }

    public LogConfig withCompression(TopicCompression value) {
        return with(c -> c.compression = value);
    }

    /** This config with the fields {@code change} sets in a copy of it; the canonical constructor validates. */
    private LogConfig with(Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.build();
    }

    /** The fields of a config being changed by a {@code with...} method. */
    private static final class Copy {
        int segmentBytes;
        Duration segmentTime;
        Optional<Duration> retentionTime;
        OptionalLong retentionBytes;
        int maxMessageBytes;
        int indexIntervalBytes;
        OptionalLong flushMessages;
        Optional<Duration> flushInterval;
        MessageTimestampType timestampType;
        CompactionConfig compaction;
        TimestampBounds timestampBounds;
        Duration fileDeleteDelay;
        Duration segmentJitter;
        TopicCompression compression;

        Copy(LogConfig config) {
            segmentBytes = config.segmentBytes;
            segmentTime = config.segmentTime;
            retentionTime = config.retentionTime;
            retentionBytes = config.retentionBytes;
            maxMessageBytes = config.maxMessageBytes;
            indexIntervalBytes = config.indexIntervalBytes;
            flushMessages = config.flushMessages;
            flushInterval = config.flushInterval;
            timestampType = config.timestampType;
            compaction = config.compaction;
            timestampBounds = config.timestampBounds;
            fileDeleteDelay = config.fileDeleteDelay;
            segmentJitter = config.segmentJitter;
            compression = config.compression;
        }

        LogConfig build() {
            return new LogConfig(
                    segmentBytes,
                    segmentTime,
                    retentionTime,
                    retentionBytes,
                    maxMessageBytes,
                    indexIntervalBytes,
                    flushMessages,
                    flushInterval,
                    timestampType,
                    compaction,
                    timestampBounds,
                    fileDeleteDelay,
                    segmentJitter,
                    compression);
        }
    }

    /**
     * How much earlier than {@code segment.ms} the segment starting at {@code baseOffset} of {@code
     * partition} rolls: 0 without {@code segment.jitter.ms}, else a value in {@code [0,
     * min(segment.jitter.ms, segment.ms))}. Kafka draws it at random when it creates a segment;
     * Tributary derives it from the partition and the segment's base offset with a 64-bit mixing
     * function, so that it is spread as evenly over the partitions and segments, needs no random
     * source, and stays the same when the log is reopened.
     */
    public long segmentJitterMs(TopicIdPartition partition, long baseOffset) {
        long bound = Math.min(segmentJitter.toMillis(), segmentTime.toMillis());
        if (bound <= 0) {
            return 0;
        }
        long seed = partition.topicId().getMostSignificantBits() * 31
                + partition.topicId().getLeastSignificantBits()
                + partition.partition() * 0x9E3779B97F4A7C15L
                + baseOffset;
        return Math.floorMod(mix64(seed), bound);
    }

    /** Stafford's variant 13 of the MurmurHash3 finalizer: each input bit flips each output bit half the time. */
    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static void requirePositive(Duration d, String key) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(key + " must be positive: " + d);
        }
    }

    private static void requireAtLeast(long value, long min, String key) {
        if (value < min) {
            throw new IllegalArgumentException(key + " must be at least " + min + ": " + value);
        }
    }
}
