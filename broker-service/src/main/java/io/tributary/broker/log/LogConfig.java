package io.tributary.broker.log;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
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
        Duration fileDeleteDelay) {

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
     * A config with Kafka's default cleanup policy ({@code delete}), compaction settings and
     * timestamp bounds.
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
                DEFAULT_FILE_DELETE_DELAY);
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
                    fileDeleteDelay);
        }
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
