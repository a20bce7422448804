package io.tributary.broker.replication;

import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.MessageTimestampType;
import io.tributary.broker.log.TopicCompression.Codec;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a topic's configs (Kafka names, as the coordinator stores them) into the {@link LogConfig}
 * of its partitions, over the broker's defaults. The keys read are the ones the coordinator's
 * {@code TopicConfigs} accepts that concern the log: {@code segment.bytes}, {@code segment.ms}, {@code segment.jitter.ms},
 * {@code retention.ms} ({@code -1}: unlimited), {@code retention.bytes} ({@code -1}: unlimited),
 * {@code max.message.bytes}, {@code index.interval.bytes}, {@code flush.messages}, {@code flush.ms}
 * ({@code 0}: flush after every append, as {@code flush.messages=1}), {@code
 * message.timestamp.type}, {@code message.timestamp.before.max.ms} and {@code
 * message.timestamp.after.max.ms} ({@code 2^63-1}: unbounded), {@code cleanup.policy} ({@code delete}, {@code compact} or both), {@code
 * delete.retention.ms}, {@code min.compaction.lag.ms}, {@code max.compaction.lag.ms} ({@code
 * 2^63-1}: unlimited), {@code min.cleanable.dirty.ratio}, {@code file.delete.delay.ms}, {@code
 * compression.type} and {@code compression.gzip.level}, {@code compression.lz4.level}, {@code
 * compression.zstd.level}; plus {@code min.insync.replicas} for
 * acks=all. A value that does not
 * parse (the coordinator validates, so only a newer coordinator could send one) keeps the default
 * and is logged.
 *
 * <p>Stateless; thread-safe.
 */
public final class LogConfigs {

    private static final Logger log = LoggerFactory.getLogger(LogConfigs.class);

    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String SEGMENT_JITTER_MS = "segment.jitter.ms";
    public static final String RETENTION_MS = "retention.ms";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "message.timestamp.before.max.ms";
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS = "message.timestamp.after.max.ms";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
    public static final String MAX_COMPACTION_LAG_MS = "max.compaction.lag.ms";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    public static final String FILE_DELETE_DELAY_MS = "file.delete.delay.ms";
    public static final String COMPRESSION_TYPE = "compression.type";
    public static final String COMPRESSION_GZIP_LEVEL = "compression.gzip.level";
    public static final String COMPRESSION_LZ4_LEVEL = "compression.lz4.level";
    public static final String COMPRESSION_ZSTD_LEVEL = "compression.zstd.level";

    private LogConfigs() {}

    /** The log config of a topic with {@code configs} set, over {@code defaults}. */
    public static LogConfig of(LogConfig defaults, Map<String, String> configs) {
        LogConfig result = defaults;
        for (Map.Entry<String, String> entry : configs.entrySet()) {
            try {
                result = apply(result, entry.getKey(), entry.getValue().trim());
            } catch (IllegalArgumentException e) {
                log.warn(
                        "Ignoring topic config {}={}: {}; the broker default applies",
                        entry.getKey(),
                        entry.getValue(),
                        e.getMessage());
            }
        }
        return result;
    }

    /** {@code min.insync.replicas} of a topic, or {@code defaultValue}. */
    public static int minInsyncReplicas(int defaultValue, Map<String, String> configs) {
        String value = configs.get(MIN_INSYNC_REPLICAS);
        if (value == null) {
            return defaultValue;
        }
        try {
            int parsed = Integer.parseInt(value.trim());
            return parsed >= 1 ? parsed : defaultValue;
        } catch (NumberFormatException e) {
            return defaultValue;
        }
    }

    private static LogConfig apply(LogConfig config, String key, String value) {
        return switch (key) {
            case SEGMENT_BYTES -> config.withSegmentBytes(Integer.parseInt(value));
            case SEGMENT_MS -> config.withSegmentTime(Duration.ofMillis(Long.parseLong(value)));
            case SEGMENT_JITTER_MS -> config.withSegmentJitter(Duration.ofMillis(Long.parseLong(value)));
            case RETENTION_MS -> {
                long ms = Long.parseLong(value);
                yield config.withRetentionTime(ms < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(ms)));
            }
            case RETENTION_BYTES -> {
                long bytes = Long.parseLong(value);
                yield config.withRetentionBytes(bytes < 0 ? OptionalLong.empty() : OptionalLong.of(bytes));
            }
            case MAX_MESSAGE_BYTES -> config.withMaxMessageBytes(Integer.parseInt(value));
            case INDEX_INTERVAL_BYTES -> config.withIndexIntervalBytes(Integer.parseInt(value));
            case FLUSH_MESSAGES -> {
                long messages = Long.parseLong(value);
                yield config.withFlushMessages(
                        messages == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(messages));
            }
            case FLUSH_MS -> {
                long ms = Long.parseLong(value);
                if (ms == 0) {
                    yield config.withFlushMessages(OptionalLong.of(1));
                }
                yield config.withFlushInterval(unlessMax(ms));
            }
            case MESSAGE_TIMESTAMP_TYPE -> config.withTimestampType(timestampType(value));
            case MESSAGE_TIMESTAMP_BEFORE_MAX_MS ->
                config.withTimestampBounds(config.timestampBounds().withMaxBefore(unlessMax(Long.parseLong(value))));
            case MESSAGE_TIMESTAMP_AFTER_MAX_MS ->
                config.withTimestampBounds(config.timestampBounds().withMaxAfter(unlessMax(Long.parseLong(value))));
            case CLEANUP_POLICY -> config.withCompaction(config.compaction().withCleanupPolicy(cleanupPolicy(value)));
            case DELETE_RETENTION_MS ->
                config.withCompaction(
                        config.compaction().withDeleteRetention(Duration.ofMillis(Long.parseLong(value))));
            case MIN_COMPACTION_LAG_MS ->
                config.withCompaction(
                        config.compaction().withMinCompactionLag(Duration.ofMillis(Long.parseLong(value))));
            case MAX_COMPACTION_LAG_MS ->
                config.withCompaction(config.compaction().withMaxCompactionLag(unlessMax(Long.parseLong(value))));
            case MIN_CLEANABLE_DIRTY_RATIO ->
                config.withCompaction(config.compaction().withMinCleanableDirtyRatio(Double.parseDouble(value)));
            case FILE_DELETE_DELAY_MS -> config.withFileDeleteDelay(Duration.ofMillis(Long.parseLong(value)));
            case COMPRESSION_TYPE -> config.withCompression(config.compression().withCodec(Codec.of(value)));
            case COMPRESSION_GZIP_LEVEL ->
                config.withCompression(config.compression().withGzipLevel(Integer.parseInt(value)));
            case COMPRESSION_LZ4_LEVEL ->
                config.withCompression(config.compression().withLz4Level(Integer.parseInt(value)));
            case COMPRESSION_ZSTD_LEVEL ->
                config.withCompression(config.compression().withZstdLevel(Integer.parseInt(value)));
            default -> config;
        };
    }

    private static EnumSet<CleanupPolicy> cleanupPolicy(String value) {
        EnumSet<CleanupPolicy> policies = EnumSet.noneOf(CleanupPolicy.class);
        Arrays.stream(value.split(","))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .forEach(s -> policies.add(CleanupPolicy.of(s)));
        return policies; // empty: Kafka 4.4's "no cleanup", neither retention nor compaction
    }

    /** A duration in milliseconds where Kafka's 2^63-1 means none (unlimited). */
    private static Optional<Duration> unlessMax(long ms) {
        return ms == Long.MAX_VALUE ? Optional.empty() : Optional.of(Duration.ofMillis(ms));
    }

    private static MessageTimestampType timestampType(String value) {
        return switch (value) {
            case "CreateTime" -> MessageTimestampType.CREATE_TIME;
            case "LogAppendTime" -> MessageTimestampType.LOG_APPEND_TIME;
            default -> throw new IllegalArgumentException("unknown timestamp type " + value);
        };
    }
}
