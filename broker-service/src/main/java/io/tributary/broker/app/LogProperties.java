package io.tributary.broker.app;

import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.MessageTimestampType;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.TimestampBounds;
import io.tributary.broker.log.TopicCompression;
import io.tributary.common.topic.TopicConfigRules;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The broker's default topic configs ({@code tributary.broker.log.*}, Kafka's {@code log.*}
 * broker settings): a topic's own configs override each. Defaults are Kafka's.
 *
 * @param segmentSize {@code segment.bytes}: a segment rolls before it would pass this; 1MB to 2GB
 * @param segmentTime {@code segment.ms}: a segment rolls once its first batch is this old
 * @param retentionTime {@code retention.ms}: closed segments older than this are deleted; zero or
 *     negative keeps them forever
 * @param retentionSize {@code retention.bytes}: the log is cut to this size by deleting its oldest
 *     closed segments; unset keeps everything
 * @param maxMessageSize {@code max.message.bytes}: the largest record batch a producer may append
 * @param indexInterval {@code index.interval.bytes}: bytes of batches between offset-index entries
 * @param flushMessages {@code flush.messages}: fsync after this many records; unset: never by count
 * @param flushInterval {@code flush.ms}: fsync when this long has passed since the last one; unset:
 *     never by time (replication, not fsync, makes writes durable)
 * @param messageTimestampType {@code message.timestamp.type}: {@code CreateTime} or {@code LogAppendTime}
 * @param messageTimestampBeforeMax {@code message.timestamp.before.max.ms}: with CreateTime, a record
 *     whose timestamp is more than this before the broker's clock is refused; unset: no bound
 * @param messageTimestampAfterMax {@code message.timestamp.after.max.ms}: with CreateTime, a record
 *     whose timestamp is more than this after the broker's clock is refused
 * @param fileDeleteDelay {@code file.delete.delay.ms} (Kafka's broker setting {@code
 *     log.segment.delete.delay.ms}): a segment file removed from the log stays open, renamed {@code
 *     .deleted}, this long before it is deleted, so that reads in flight finish; 0 deletes at once
 * @param minInsyncReplicas {@code min.insync.replicas}: acks=all needs an ISR at least this large
 * @param compressionType {@code compression.type} (Kafka's broker setting of the same name): the codec
 *     leaders store batches with ({@code uncompressed}, {@code zstd}, {@code lz4}, {@code snappy},
 *     {@code gzip}), or {@code producer} to keep the producer's
 * @param compressionGzipLevel {@code compression.gzip.level}: 1 to 9, or -1 (zlib's default)
 * @param compressionLz4Level {@code compression.lz4.level}: 1 to 17
 * @param compressionZstdLevel {@code compression.zstd.level}: -131072 to 22
 * @param producerStateRebuildSize bytes of the newest segments whose batch headers rebuild the
 *     idempotent producers' state when a log opens
 * @param producerIdExpiration an idempotent producer idle this long is forgotten (Kafka's {@code
 *     producer.id.expiration.ms})
 */
@Validated
@ConfigurationProperties("tributary.broker.log")
public record LogProperties(
        @DefaultValue("1GB") @NotNull DataSize segmentSize,
        @DefaultValue("7d") @NotNull Duration segmentTime,
        @DefaultValue("7d") @NotNull Duration retentionTime,
        DataSize retentionSize,
        @DefaultValue("1048588B") @NotNull DataSize maxMessageSize,
        @DefaultValue("4KB") @NotNull DataSize indexInterval,
        @Min(1) Long flushMessages,
        Duration flushInterval,

        @DefaultValue("CreateTime") @NotNull @Pattern(regexp = "CreateTime|LogAppendTime")
        String messageTimestampType,

        Duration messageTimestampBeforeMax,
        @DefaultValue("1h") @NotNull Duration messageTimestampAfterMax,
        @DefaultValue("60s") @NotNull Duration fileDeleteDelay,
        @DefaultValue("1") @Min(1) int minInsyncReplicas,
        @DefaultValue("64MB") @NotNull DataSize producerStateRebuildSize,
        @DefaultValue("1d") @NotNull Duration producerIdExpiration,

        @DefaultValue("producer") @NotNull @Pattern(regexp = "uncompressed|zstd|lz4|snappy|gzip|producer")
        String compressionType,

        @DefaultValue("-1") int compressionGzipLevel,
        @DefaultValue("9") int compressionLz4Level,
        @DefaultValue("3") int compressionZstdLevel) {

    /** Kafka's smallest {@code segment.bytes}. */
    static final long MIN_SEGMENT_BYTES = 1024 * 1024;

    public LogProperties {
        if (segmentSize != null
                && (segmentSize.toBytes() < MIN_SEGMENT_BYTES || segmentSize.toBytes() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "tributary.broker.log.segment-size must be between 1MB and 2147483647B, got " + segmentSize);
        }
        if (maxMessageSize != null && (maxMessageSize.toBytes() < 0 || maxMessageSize.toBytes() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "tributary.broker.log.max-message-size must be between 0B and 2147483647B, got " + maxMessageSize);
        }
        if (indexInterval != null && (indexInterval.toBytes() < 0 || indexInterval.toBytes() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "tributary.broker.log.index-interval must be between 0B and 2147483647B, got " + indexInterval);
        }
        if (segmentTime != null && (segmentTime.isNegative() || segmentTime.isZero())) {
            throw new IllegalArgumentException(
                    "tributary.broker.log.segment-time must be positive, got " + segmentTime);
        }
        if (flushInterval != null && (flushInterval.isNegative() || flushInterval.isZero())) {
            throw new IllegalArgumentException(
                    "tributary.broker.log.flush-interval must be positive, got " + flushInterval);
        }
        if (messageTimestampBeforeMax != null && messageTimestampBeforeMax.isNegative()) {
            throw new IllegalArgumentException(
                    "tributary.broker.log.message-timestamp-before-max must not be negative, got "
                            + messageTimestampBeforeMax);
        }
        if (messageTimestampAfterMax != null && messageTimestampAfterMax.isNegative()) {
            throw new IllegalArgumentException(
                    "tributary.broker.log.message-timestamp-after-max must not be negative, got "
                            + messageTimestampAfterMax);
        }
        if (fileDeleteDelay != null && fileDeleteDelay.isNegative()) {
            throw new IllegalArgumentException(
                    "tributary.broker.log.file-delete-delay must not be negative, got " + fileDeleteDelay);
        }
        if (retentionSize != null && retentionSize.toBytes() < 0) {
            throw new IllegalArgumentException(
                    "tributary.broker.log.retention-size must not be negative, got " + retentionSize);
        }
        requireLevel("compression-gzip-level", TopicConfigRules.GZIP_LEVELS, compressionGzipLevel);
        requireLevel("compression-lz4-level", TopicConfigRules.LZ4_LEVELS, compressionLz4Level);
        requireLevel("compression-zstd-level", TopicConfigRules.ZSTD_LEVELS, compressionZstdLevel);
        if (producerIdExpiration != null && (producerIdExpiration.isNegative() || producerIdExpiration.isZero())) {
            throw new IllegalArgumentException(
                    "tributary.broker.log.producer-id-expiration must be positive, got " + producerIdExpiration);
        }
    }

    private static void requireLevel(String property, TopicConfigRules.CompressionLevelRange range, int level) {
        if (!range.accepts(level)) {
            throw new IllegalArgumentException("tributary.broker.log." + property + " must be between " + range.min()
                    + " and " + range.max() + " or " + range.defaultLevel() + ", got " + level);
        }
    }

    /** The core's default log config. */
    public LogConfig toLogConfig() {
        return new LogConfig(
                        Math.toIntExact(segmentSize.toBytes()),
                        segmentTime,
                        retentionTime.isNegative() || retentionTime.isZero()
                                ? Optional.empty()
                                : Optional.of(retentionTime),
                        retentionSize == null ? OptionalLong.empty() : OptionalLong.of(retentionSize.toBytes()),
                        Math.toIntExact(maxMessageSize.toBytes()),
                        Math.toIntExact(indexInterval.toBytes()),
                        flushMessages == null ? OptionalLong.empty() : OptionalLong.of(flushMessages),
                        Optional.ofNullable(flushInterval),
                        "LogAppendTime".equals(messageTimestampType)
                                ? MessageTimestampType.LOG_APPEND_TIME
                                : MessageTimestampType.CREATE_TIME)
                .withTimestampBounds(new TimestampBounds(
                        Optional.ofNullable(messageTimestampBeforeMax), Optional.of(messageTimestampAfterMax)))
                .withFileDeleteDelay(fileDeleteDelay)
                .withCompression(new TopicCompression(
                        TopicCompression.Codec.of(compressionType),
                        compressionGzipLevel,
                        compressionLz4Level,
                        compressionZstdLevel));
    }

    public ProducerStateConfig toProducerStateConfig() {
        return new ProducerStateConfig(producerStateRebuildSize.toBytes(), producerIdExpiration);
    }
}
