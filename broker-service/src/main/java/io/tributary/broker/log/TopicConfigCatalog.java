package io.tributary.broker.log;

import io.tributary.common.topic.TopicConfigRules;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * The topic configs a Tributary broker knows: the one place in the broker for their Kafka names,
 * types, defaults, the broker config each default comes from, and the values accepted. The Kafka
 * API (CreateTopics, DescribeConfigs, IncrementalAlterConfigs) reads it. The defaults here are
 * Kafka's; a broker may set others for its topics ({@link TopicConfigDefaults}).
 *
 * <p>The accepted keys, their types and valid values are common's {@link TopicConfigRules}, which
 * the coordinator validates with too: a broker validates a request before forwarding it so that
 * {@code validate_only} answers as the real write would, and the coordinator validates again with
 * the same rules. This class adds what only a broker needs: the defaults, their broker synonyms and
 * DescribeConfigs' documentation.
 *
 * <table>
 *   <caption>Topic configs and defaults</caption>
 *   <tr><th>key</th><th>type</th><th>default</th><th>broker synonym</th><th>valid values</th></tr>
 *   <tr><td>cleanup.policy</td><td>list</td><td>delete</td><td>log.cleanup.policy</td><td>delete, compact, both, or empty (none)</td></tr>
 *   <tr><td>compression.gzip.level</td><td>int</td><td>-1</td><td>compression.gzip.level</td><td>1 .. 9, or -1</td></tr>
 *   <tr><td>compression.lz4.level</td><td>int</td><td>9</td><td>compression.lz4.level</td><td>1 .. 17</td></tr>
 *   <tr><td>compression.type</td><td>string</td><td>producer</td><td>compression.type</td><td>uncompressed, zstd, lz4, snappy, gzip, producer</td></tr>
 *   <tr><td>compression.zstd.level</td><td>int</td><td>3</td><td>compression.zstd.level</td><td>-131072 .. 22</td></tr>
 *   <tr><td>delete.retention.ms</td><td>long</td><td>86400000 (1 day)</td><td>log.cleaner.delete.retention.ms</td><td>0 or more</td></tr>
 *   <tr><td>file.delete.delay.ms</td><td>long</td><td>60000 (1 minute)</td><td>log.segment.delete.delay.ms</td><td>0 or more</td></tr>
 *   <tr><td>flush.messages</td><td>long</td><td>2^63-1 (never)</td><td>log.flush.interval.messages</td><td>1 or more</td></tr>
 *   <tr><td>flush.ms</td><td>long</td><td>2^63-1 (never)</td><td>log.flush.interval.ms</td><td>0 or more</td></tr>
 *   <tr><td>index.interval.bytes</td><td>int</td><td>{@link LogConfig#DEFAULT_INDEX_INTERVAL_BYTES}</td><td>log.index.interval.bytes</td><td>0 or more</td></tr>
 *   <tr><td>local.retention.bytes</td><td>long</td><td>-2</td><td>log.local.retention.bytes</td><td>-2 or more (tiered storage, no effect)</td></tr>
 *   <tr><td>local.retention.ms</td><td>long</td><td>-2</td><td>log.local.retention.ms</td><td>-2 or more (tiered storage, no effect)</td></tr>
 *   <tr><td>max.compaction.lag.ms</td><td>long</td><td>2^63-1 (never forced)</td><td>log.cleaner.max.compaction.lag.ms</td><td>1 or more</td></tr>
 *   <tr><td>max.message.bytes</td><td>int</td><td>{@link LogConfig#DEFAULT_MAX_MESSAGE_BYTES}</td><td>message.max.bytes</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.after.max.ms</td><td>long</td><td>3600000 (1 hour)</td><td>log.message.timestamp.after.max.ms</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.before.max.ms</td><td>long</td><td>2^63-1 (unbounded)</td><td>log.message.timestamp.before.max.ms</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.type</td><td>string</td><td>CreateTime</td><td>log.message.timestamp.type</td><td>CreateTime, LogAppendTime</td></tr>
 *   <tr><td>min.cleanable.dirty.ratio</td><td>double</td><td>0.5</td><td>log.cleaner.min.cleanable.ratio</td><td>0 to 1</td></tr>
 *   <tr><td>min.compaction.lag.ms</td><td>long</td><td>0</td><td>log.cleaner.min.compaction.lag.ms</td><td>0 or more</td></tr>
 *   <tr><td>min.insync.replicas</td><td>int</td><td>1</td><td>min.insync.replicas</td><td>1 or more</td></tr>
 *   <tr><td>remote.copy.lag.bytes</td><td>long</td><td>-1</td><td>log.remote.copy.lag.bytes</td><td>-1 or more (tiered storage, no effect)</td></tr>
 *   <tr><td>remote.copy.lag.ms</td><td>long</td><td>0</td><td>log.remote.copy.lag.ms</td><td>-1 or more (tiered storage, no effect)</td></tr>
 *   <tr><td>remote.log.copy.disable</td><td>boolean</td><td>false</td><td>(none)</td><td>true, false (tiered storage, no effect)</td></tr>
 *   <tr><td>remote.log.delete.on.disable</td><td>boolean</td><td>false</td><td>(none)</td><td>true, false (tiered storage, no effect)</td></tr>
 *   <tr><td>remote.storage.enable</td><td>boolean</td><td>false</td><td>(none)</td><td>false only (no tiered storage)</td></tr>
 *   <tr><td>retention.bytes</td><td>long</td><td>-1 (unlimited)</td><td>log.retention.bytes</td><td>-1 or more</td></tr>
 *   <tr><td>retention.ms</td><td>long</td><td>{@link LogConfig#DEFAULT_RETENTION_TIME} (7 days)</td><td>log.retention.ms</td><td>-1 (unlimited) or more</td></tr>
 *   <tr><td>segment.bytes</td><td>int</td><td>{@link LogConfig#DEFAULT_SEGMENT_BYTES} (1 GiB)</td><td>log.segment.bytes</td><td>1048576 .. 2^31-1</td></tr>
 *   <tr><td>segment.jitter.ms</td><td>long</td><td>0</td><td>log.roll.jitter.ms</td><td>0 or more</td></tr>
 *   <tr><td>segment.ms</td><td>long</td><td>{@link LogConfig#DEFAULT_SEGMENT_TIME} (7 days)</td><td>log.roll.ms</td><td>1 or more</td></tr>
 *   <tr><td>unclean.leader.election.enable</td><td>boolean</td><td>false</td><td>unclean.leader.election.enable</td><td>true, false</td></tr>
 * </table>
 *
 * <p>The keys Kafka 4.4 defines that are not here are refused by name ({@link
 * io.tributary.common.topic.UnsupportedTopicConfigs}); the broker README lists every key and its status.
 *
 * <p>Thread-safety: immutable.
 */
public final class TopicConfigCatalog {

    public static final String CLEANUP_POLICY = TopicConfigRules.CLEANUP_POLICY;
    public static final String DELETE_RETENTION_MS = TopicConfigRules.DELETE_RETENTION_MS;
    public static final String MAX_COMPACTION_LAG_MS = TopicConfigRules.MAX_COMPACTION_LAG_MS;
    public static final String MIN_CLEANABLE_DIRTY_RATIO = TopicConfigRules.MIN_CLEANABLE_DIRTY_RATIO;
    public static final String MIN_COMPACTION_LAG_MS = TopicConfigRules.MIN_COMPACTION_LAG_MS;
    public static final String FILE_DELETE_DELAY_MS = TopicConfigRules.FILE_DELETE_DELAY_MS;
    public static final String FLUSH_MESSAGES = TopicConfigRules.FLUSH_MESSAGES;
    public static final String FLUSH_MS = TopicConfigRules.FLUSH_MS;
    public static final String MAX_MESSAGE_BYTES = TopicConfigRules.MAX_MESSAGE_BYTES;
    public static final String MESSAGE_TIMESTAMP_TYPE = TopicConfigRules.MESSAGE_TIMESTAMP_TYPE;
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS = TopicConfigRules.MESSAGE_TIMESTAMP_BEFORE_MAX_MS;
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS = TopicConfigRules.MESSAGE_TIMESTAMP_AFTER_MAX_MS;
    public static final String MIN_INSYNC_REPLICAS = TopicConfigRules.MIN_INSYNC_REPLICAS;
    public static final String RETENTION_BYTES = TopicConfigRules.RETENTION_BYTES;
    public static final String RETENTION_MS = TopicConfigRules.RETENTION_MS;
    public static final String SEGMENT_BYTES = TopicConfigRules.SEGMENT_BYTES;
    public static final String SEGMENT_MS = TopicConfigRules.SEGMENT_MS;
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = TopicConfigRules.UNCLEAN_LEADER_ELECTION_ENABLE;
    public static final String COMPRESSION_TYPE = TopicConfigRules.COMPRESSION_TYPE;
    public static final String COMPRESSION_GZIP_LEVEL = TopicConfigRules.COMPRESSION_GZIP_LEVEL;
    public static final String COMPRESSION_LZ4_LEVEL = TopicConfigRules.COMPRESSION_LZ4_LEVEL;
    public static final String COMPRESSION_ZSTD_LEVEL = TopicConfigRules.COMPRESSION_ZSTD_LEVEL;
    public static final String INDEX_INTERVAL_BYTES = TopicConfigRules.INDEX_INTERVAL_BYTES;
    public static final String SEGMENT_JITTER_MS = TopicConfigRules.SEGMENT_JITTER_MS;

    /** Kafka's value of the {@code flush.*} defaults: never flush on count or time. */
    public static final long NEVER = Long.MAX_VALUE;

    /**
     * One topic config.
     *
     * @param rule the key, its Kafka type and its valid values (shared with the coordinator)
     * @param defaultValue Kafka's default, as Kafka writes it (a broker may set another: {@link
     *     TopicConfigDefaults})
     * @param brokerSynonym the Kafka broker config the default comes from, empty for a topic config
     *     Kafka gives no broker synonym (its default is Kafka's, DescribeConfigs' DEFAULT_CONFIG)
     * @param documentation one sentence for DescribeConfigs' {@code documentation}
     */
    public record Definition(
            TopicConfigRules.Rule rule, String defaultValue, Optional<String> brokerSynonym, String documentation) {

        /** The Kafka key. */
        public String name() {
            return rule.name();
        }

        /** Its Kafka type, as DescribeConfigs reports it. */
        public ConfigType type() {
            return rule.type();
        }

        /** Validates and normalizes a value; throws {@link InvalidConfigurationException} naming the key. */
        public String normalize(String value) {
            return rule.normalize(value);
        }

        /** Whether the config holds a comma-separated list (APPEND and SUBTRACT apply). */
        public boolean isList() {
            return rule.isList();
        }
    }

    private static final Map<String, Definition> DEFINITIONS = definitions();

    private TopicConfigCatalog() {}

    /** Every topic config, sorted by name. */
    public static List<Definition> all() {
        return List.copyOf(DEFINITIONS.values());
    }

    /** The accepted keys, sorted. */
    public static List<String> names() {
        return List.copyOf(DEFINITIONS.keySet());
    }

    public static Optional<Definition> definition(String name) {
        return Optional.ofNullable(DEFINITIONS.get(name));
    }

    /**
     * Validates and normalizes a set of overrides, in key order ({@link TopicConfigRules#validate}).
     *
     * @throws InvalidConfigurationException naming the first bad key and why
     */
    public static SortedMap<String, String> validate(Map<String, String> configs) {
        return TopicConfigRules.validate(configs);
    }

    /** Validates one key and value, returning the normalized value ({@link TopicConfigRules#normalize}). */
    public static String normalize(String key, String value) {
        return TopicConfigRules.normalize(key, value);
    }

    private static Map<String, Definition> definitions() {
        Map<String, Definition> byName = new LinkedHashMap<>();
        List<Definition> list = List.of(
                new Definition(
                        rule(CLEANUP_POLICY),
                        "delete",
                        Optional.of("log.cleanup.policy"),
                        "delete: old segments are deleted by retention; compact: the last record per key is kept."),
                new Definition(
                        rule(DELETE_RETENTION_MS),
                        Long.toString(CompactionConfig.DEFAULT_DELETE_RETENTION.toMillis()),
                        Optional.of("log.cleaner.delete.retention.ms"),
                        "A tombstone is kept this many milliseconds after the cleaner first rewrote its batch."),
                new Definition(
                        rule(MAX_COMPACTION_LAG_MS),
                        Long.toString(Long.MAX_VALUE),
                        Optional.of("log.cleaner.max.compaction.lag.ms"),
                        "A log whose oldest uncompacted record is older than this is compacted whatever its dirty"
                                + " ratio."),
                new Definition(
                        rule(MIN_CLEANABLE_DIRTY_RATIO),
                        Double.toString(CompactionConfig.DEFAULT_MIN_CLEANABLE_DIRTY_RATIO),
                        Optional.of("log.cleaner.min.cleanable.ratio"),
                        "A log is compacted once its uncompacted bytes are more than this share of its cleanable"
                                + " bytes."),
                new Definition(
                        rule(MIN_COMPACTION_LAG_MS),
                        "0",
                        Optional.of("log.cleaner.min.compaction.lag.ms"),
                        "A record stays uncompacted at least this many milliseconds after its timestamp."),
                new Definition(
                        rule(FILE_DELETE_DELAY_MS),
                        Long.toString(LogConfig.DEFAULT_FILE_DELETE_DELAY.toMillis()),
                        Optional.of("log.segment.delete.delay.ms"),
                        "A segment file removed from the log (retention, truncation, compaction) is deleted this many"
                                + " milliseconds later, so that reads in flight finish."),
                new Definition(
                        rule(FLUSH_MESSAGES),
                        Long.toString(NEVER),
                        Optional.of("log.flush.interval.messages"),
                        "Fsync the log after this many records; replication, not fsync, is the durability mechanism."),
                new Definition(
                        rule(FLUSH_MS),
                        Long.toString(NEVER),
                        Optional.of("log.flush.interval.ms"),
                        "Fsync the log when this many milliseconds passed since the last fsync."),
                new Definition(
                        rule(MAX_MESSAGE_BYTES),
                        Integer.toString(LogConfig.DEFAULT_MAX_MESSAGE_BYTES),
                        Optional.of("message.max.bytes"),
                        "The largest record batch a producer may append, in bytes."),
                new Definition(
                        rule(MESSAGE_TIMESTAMP_TYPE),
                        "CreateTime",
                        Optional.of("log.message.timestamp.type"),
                        "CreateTime keeps the producer's timestamps; LogAppendTime stamps batches with the broker's"
                                + " clock."),
                new Definition(
                        rule(MESSAGE_TIMESTAMP_BEFORE_MAX_MS),
                        Long.toString(TimestampBounds.defaults().maxBeforeMs()),
                        Optional.of("log.message.timestamp.before.max.ms"),
                        "With CreateTime, a record whose timestamp is more than this many milliseconds before the"
                                + " broker's clock is refused (INVALID_TIMESTAMP)."),
                new Definition(
                        rule(MESSAGE_TIMESTAMP_AFTER_MAX_MS),
                        Long.toString(TimestampBounds.defaults().maxAfterMs()),
                        Optional.of("log.message.timestamp.after.max.ms"),
                        "With CreateTime, a record whose timestamp is more than this many milliseconds after the"
                                + " broker's clock is refused (INVALID_TIMESTAMP)."),
                new Definition(
                        rule(MIN_INSYNC_REPLICAS),
                        "1",
                        Optional.of("min.insync.replicas"),
                        "acks=all producers fail with NOT_ENOUGH_REPLICAS while the ISR is smaller than this."),
                new Definition(
                        rule(RETENTION_BYTES),
                        "-1",
                        Optional.of("log.retention.bytes"),
                        "Old segments are deleted while a partition is larger than this; -1: no size limit."),
                new Definition(
                        rule(RETENTION_MS),
                        Long.toString(LogConfig.DEFAULT_RETENTION_TIME.toMillis()),
                        Optional.of("log.retention.ms"),
                        "Segments whose newest record is older than this are deleted; -1: no time limit."),
                new Definition(
                        rule(SEGMENT_BYTES),
                        Integer.toString(LogConfig.DEFAULT_SEGMENT_BYTES),
                        Optional.of("log.segment.bytes"),
                        "A segment file is rolled before it would grow past this many bytes."),
                new Definition(
                        rule(SEGMENT_MS),
                        Long.toString(LogConfig.DEFAULT_SEGMENT_TIME.toMillis()),
                        Optional.of("log.roll.ms"),
                        "A non-empty segment is rolled once its first record is this many milliseconds old."),
                new Definition(
                        rule(UNCLEAN_LEADER_ELECTION_ENABLE),
                        "false",
                        Optional.of("unclean.leader.election.enable"),
                        "Whether a replica outside the ISR may become leader when no ISR member is alive (data"
                                + " loss)."),
                new Definition(
                        rule(COMPRESSION_TYPE),
                        TopicConfigRules.COMPRESSION_PRODUCER,
                        Optional.of("compression.type"),
                        "The codec the leader stores batches with, rewriting batches in another one: uncompressed,"
                                + " zstd, lz4, snappy, gzip; producer keeps the producer's codec."),
                level(TopicConfigRules.GZIP_LEVELS, "gzip"),
                level(TopicConfigRules.LZ4_LEVELS, "lz4"),
                level(TopicConfigRules.ZSTD_LEVELS, "zstd"),
                new Definition(
                        rule(INDEX_INTERVAL_BYTES),
                        Integer.toString(LogConfig.DEFAULT_INDEX_INTERVAL_BYTES),
                        Optional.of("log.index.interval.bytes"),
                        "Bytes of batches between two entries of the sparse offset and time indexes."),
                new Definition(
                        rule(SEGMENT_JITTER_MS),
                        "0",
                        Optional.of("log.roll.jitter.ms"),
                        "Each segment rolls up to this many milliseconds (at most segment.ms) before segment.ms, so"
                                + " that partitions do not all roll at once."),
                tiered(TopicConfigRules.LOCAL_RETENTION_BYTES, "-2", Optional.of("log.local.retention.bytes")),
                tiered(TopicConfigRules.LOCAL_RETENTION_MS, "-2", Optional.of("log.local.retention.ms")),
                tiered(TopicConfigRules.REMOTE_COPY_LAG_BYTES, "-1", Optional.of("log.remote.copy.lag.bytes")),
                tiered(TopicConfigRules.REMOTE_COPY_LAG_MS, "0", Optional.of("log.remote.copy.lag.ms")),
                tiered(TopicConfigRules.REMOTE_LOG_COPY_DISABLE, "false", Optional.empty()),
                tiered(TopicConfigRules.REMOTE_LOG_DELETE_ON_DISABLE, "false", Optional.empty()),
                tiered(TopicConfigRules.REMOTE_STORAGE_ENABLE, "false", Optional.empty()));
        list.stream().sorted(java.util.Comparator.comparing(Definition::name)).forEach(d -> byName.put(d.name(), d));
        return byName;
    }

    /** A codec's {@code compression.<codec>.level}: Kafka's default, the same-named broker config. */
    private static Definition level(TopicConfigRules.CompressionLevelRange range, String codec) {
        return new Definition(
                rule(range.key()),
                Integer.toString(range.defaultLevel()),
                Optional.of(range.key()),
                "The compression level batches are rewritten with when compression.type is " + codec + ".");
    }

    /** A tiered-storage config: Kafka's default, accepted and without effect (no tiered storage). */
    private static Definition tiered(String name, String kafkaDefault, Optional<String> brokerSynonym) {
        return new Definition(
                rule(name),
                kafkaDefault,
                brokerSynonym,
                "Tiered storage: accepted with Kafka's values and without effect, as on a Kafka cluster without"
                        + " tiered storage.");
    }

    private static TopicConfigRules.Rule rule(String name) {
        return TopicConfigRules.rule(name).orElseThrow();
    }
}
