package io.tributary.broker.log;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The value every topic config has on a topic that does not set it: the broker's defaults for its
 * topics (Kafka's {@code log.*} broker settings), by Kafka topic-config name. The broker's log
 * settings give the storage ones; {@link #kafka()} is Kafka's own defaults.
 *
 * @param values a value for every {@link TopicConfigCatalog} key, as Kafka writes it
 */
public record TopicConfigDefaults(Map<String, String> values) {

    public TopicConfigDefaults {
        values = Map.copyOf(new TreeMap<>(values));
        if (!values.keySet().equals(java.util.Set.copyOf(TopicConfigCatalog.names()))) {
            throw new IllegalArgumentException(
                    "defaults must give exactly the keys " + TopicConfigCatalog.names() + ", got " + values.keySet());
        }
    }

    /** Kafka's defaults: {@link LogConfig#defaults()} and {@code min.insync.replicas} 1. */
    public static TopicConfigDefaults kafka() {
        return of(LogConfig.defaults(), 1);
    }

    /**
     * The defaults of a broker whose partition logs default to {@code log} and whose acks=all writes
     * need {@code minInsyncReplicas}; Kafka's "unlimited" is -1 for retention and 2^63-1 for flushes
     * and timestamp bounds.
     */
    public static TopicConfigDefaults of(LogConfig log, int minInsyncReplicas) {
        Objects.requireNonNull(log, "log");
        Map<String, String> values = new TreeMap<>();
        for (TopicConfigCatalog.Definition d : TopicConfigCatalog.all()) {
            values.put(d.name(), d.defaultValue());
        }
        values.put(TopicConfigCatalog.SEGMENT_BYTES, Integer.toString(log.segmentBytes()));
        values.put(
                TopicConfigCatalog.SEGMENT_MS, Long.toString(log.segmentTime().toMillis()));
        values.put(
                TopicConfigCatalog.RETENTION_MS,
                Long.toString(log.retentionTime().map(d -> d.toMillis()).orElse(-1L)));
        values.put(
                TopicConfigCatalog.RETENTION_BYTES,
                Long.toString(log.retentionBytes().orElse(-1)));
        values.put(TopicConfigCatalog.MAX_MESSAGE_BYTES, Integer.toString(log.maxMessageBytes()));
        values.put(TopicConfigCatalog.INDEX_INTERVAL_BYTES, Integer.toString(log.indexIntervalBytes()));
        values.put(
                TopicConfigCatalog.SEGMENT_JITTER_MS,
                Long.toString(log.segmentJitter().toMillis()));
        values.put(
                TopicConfigCatalog.FLUSH_MESSAGES,
                Long.toString(log.flushMessages().orElse(TopicConfigCatalog.NEVER)));
        values.put(
                TopicConfigCatalog.FLUSH_MS,
                Long.toString(log.flushInterval().map(d -> d.toMillis()).orElse(TopicConfigCatalog.NEVER)));
        values.put(
                TopicConfigCatalog.MESSAGE_TIMESTAMP_TYPE,
                log.timestampType() == MessageTimestampType.LOG_APPEND_TIME ? "LogAppendTime" : "CreateTime");
        values.put(
                TopicConfigCatalog.MESSAGE_TIMESTAMP_BEFORE_MAX_MS,
                Long.toString(log.timestampBounds().maxBeforeMs()));
        values.put(
                TopicConfigCatalog.MESSAGE_TIMESTAMP_AFTER_MAX_MS,
                Long.toString(log.timestampBounds().maxAfterMs()));
        values.put(
                TopicConfigCatalog.FILE_DELETE_DELAY_MS,
                Long.toString(log.fileDeleteDelay().toMillis()));
        values.put(TopicConfigCatalog.MIN_INSYNC_REPLICAS, Integer.toString(minInsyncReplicas));
        values.put(
                TopicConfigCatalog.COMPRESSION_TYPE, log.compression().codec().kafkaName());
        values.put(
                TopicConfigCatalog.COMPRESSION_GZIP_LEVEL,
                Integer.toString(log.compression().gzipLevel()));
        values.put(
                TopicConfigCatalog.COMPRESSION_LZ4_LEVEL,
                Integer.toString(log.compression().lz4Level()));
        values.put(
                TopicConfigCatalog.COMPRESSION_ZSTD_LEVEL,
                Integer.toString(log.compression().zstdLevel()));
        return new TopicConfigDefaults(values);
    }

    /** The default of {@code key}. */
    public String value(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("not a topic config: " + key);
        }
        return value;
    }

    /** The value {@code key} has on a topic with these overrides: the override, else the default. */
    public String effectiveValue(Map<String, String> overrides, String key) {
        String override = overrides.get(key);
        return override != null ? override : value(key);
    }

    /** Whether this broker's default of {@code key} is Kafka's (DescribeConfigs: DEFAULT_CONFIG, else STATIC_BROKER_CONFIG). */
    public boolean isKafkaDefault(String key) {
        return value(key)
                .equals(TopicConfigCatalog.definition(key).orElseThrow().defaultValue());
    }
}
