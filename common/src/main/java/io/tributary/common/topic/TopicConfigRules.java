package io.tributary.common.topic;

import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * The topic config keys Tributary accepts, with Kafka's names, types and ranges: the one list that
 * the coordinator (which stores topic configs in its Raft log) and the brokers (which validate
 * CreateTopics and IncrementalAlterConfigs before forwarding them, and answer DescribeConfigs) share.
 *
 * <p>Values are normalized so that the same setting always has the same bytes in the Raft log and in
 * snapshots: integers as {@link Long#toString}, ratios as {@link Double#toString}, booleans in lower case, {@code cleanup.policy} as its
 * sorted, comma-separated distinct members.
 *
 * <table>
 *   <caption>Accepted keys</caption>
 *   <tr><th>key</th><th>type</th><th>valid values</th></tr>
 *   <tr><td>cleanup.policy</td><td>list</td><td>{@code delete}, {@code compact}, both, or empty (none)</td></tr>
 *   <tr><td>compression.gzip.level</td><td>int</td><td>1 to 9, or -1 (zlib's default level)</td></tr>
 *   <tr><td>compression.lz4.level</td><td>int</td><td>1 to 17</td></tr>
 *   <tr><td>compression.type</td><td>string</td><td>{@code uncompressed}, {@code zstd}, {@code lz4}, {@code snappy},
 *       {@code gzip}, {@code producer}</td></tr>
 *   <tr><td>compression.zstd.level</td><td>int</td><td>-131072 to 22</td></tr>
 *   <tr><td>delete.retention.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>file.delete.delay.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>flush.messages</td><td>long</td><td>1 or more</td></tr>
 *   <tr><td>flush.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>index.interval.bytes</td><td>int</td><td>0 or more</td></tr>
 *   <tr><td>local.retention.bytes</td><td>long</td><td>-2 or more (tiered storage: no effect without it, as on
 *       Kafka)</td></tr>
 *   <tr><td>local.retention.ms</td><td>long</td><td>-2 or more (tiered storage: no effect)</td></tr>
 *   <tr><td>max.compaction.lag.ms</td><td>long</td><td>1 or more</td></tr>
 *   <tr><td>max.message.bytes</td><td>int</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.after.max.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.before.max.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.type</td><td>string</td><td>{@code CreateTime}, {@code LogAppendTime}</td></tr>
 *   <tr><td>min.cleanable.dirty.ratio</td><td>double</td><td>0 to 1</td></tr>
 *   <tr><td>min.compaction.lag.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>min.insync.replicas</td><td>int</td><td>1 or more</td></tr>
 *   <tr><td>remote.copy.lag.bytes</td><td>long</td><td>-1 or more (tiered storage: no effect)</td></tr>
 *   <tr><td>remote.copy.lag.ms</td><td>long</td><td>-1 or more (tiered storage: no effect)</td></tr>
 *   <tr><td>remote.log.copy.disable</td><td>boolean</td><td>{@code true}, {@code false} (tiered storage: no
 *       effect)</td></tr>
 *   <tr><td>remote.log.delete.on.disable</td><td>boolean</td><td>{@code true}, {@code false} (tiered storage:
 *       no effect)</td></tr>
 *   <tr><td>remote.storage.enable</td><td>boolean</td><td>{@code false} only: {@code true} gets Kafka's answer on
 *       a cluster without tiered storage</td></tr>
 *   <tr><td>retention.bytes</td><td>long</td><td>-1 (unlimited) or more</td></tr>
 *   <tr><td>retention.ms</td><td>long</td><td>-1 (unlimited) or more</td></tr>
 *   <tr><td>segment.bytes</td><td>int</td><td>1048576 (1 MiB, Kafka 4's minimum) .. 2^31-1</td></tr>
 *   <tr><td>segment.jitter.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>segment.ms</td><td>long</td><td>1 or more</td></tr>
 *   <tr><td>unclean.leader.election.enable</td><td>boolean</td><td>{@code true}, {@code false}</td></tr>
 * </table>
 *
 * <p>The tiered-storage keys behave as on a Kafka 4.4 cluster without tiered storage: validated with
 * Kafka's ranges, stored and described, and without effect; {@code remote.storage.enable=true} is
 * refused with Kafka's message. The other keys Kafka 4.4 defines are refused by name with the reason
 * ({@link UnsupportedTopicConfigs}).
 *
 * <p>Errors are Kafka's {@link InvalidConfigurationException} (the INVALID_CONFIG error code), with
 * a message naming the key and what is accepted. The compression keys answer with Kafka 4.4's own
 * message ({@code Invalid value <v> for configuration <key>: ...}), so that a client sees the same
 * text on both.
 *
 * <p>Thread-safety: stateless.
 */
public final class TopicConfigRules {

    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String FILE_DELETE_DELAY_MS = "file.delete.delay.ms";
    public static final String MAX_COMPACTION_LAG_MS = "max.compaction.lag.ms";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    public static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "message.timestamp.before.max.ms";
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS = "message.timestamp.after.max.ms";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String RETENTION_MS = "retention.ms";
    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String SEGMENT_JITTER_MS = "segment.jitter.ms";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String COMPRESSION_TYPE = "compression.type";
    public static final String COMPRESSION_GZIP_LEVEL = "compression.gzip.level";
    public static final String COMPRESSION_LZ4_LEVEL = "compression.lz4.level";
    public static final String COMPRESSION_ZSTD_LEVEL = "compression.zstd.level";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String LOCAL_RETENTION_BYTES = "local.retention.bytes";
    public static final String LOCAL_RETENTION_MS = "local.retention.ms";
    public static final String REMOTE_COPY_LAG_BYTES = "remote.copy.lag.bytes";
    public static final String REMOTE_COPY_LAG_MS = "remote.copy.lag.ms";
    public static final String REMOTE_LOG_COPY_DISABLE = "remote.log.copy.disable";
    public static final String REMOTE_LOG_DELETE_ON_DISABLE = "remote.log.delete.on.disable";
    public static final String REMOTE_STORAGE_ENABLE = "remote.storage.enable";

    /** The default {@code compression.type}: batches are stored as the producer compressed them. */
    public static final String COMPRESSION_PRODUCER = "producer";

    /** Kafka 4.4's {@code compression.type} values, in the order Kafka's error message lists them. */
    public static final List<String> COMPRESSION_TYPES =
            List.of("uncompressed", "zstd", "lz4", "snappy", "gzip", COMPRESSION_PRODUCER);

    /**
     * The range of a codec's {@code compression.<codec>.level}: Kafka 4.4's (zlib's, lz4-java's and
     * zstd's levels), with Kafka's default.
     *
     * @param key the topic config
     * @param min the lowest level
     * @param max the highest level
     * @param defaultLevel Kafka's default; gzip's -1 is zlib's default level (6) and the only value
     *     outside {@code [min, max]} accepted
     */
    public record CompressionLevelRange(String key, int min, int max, int defaultLevel) {

        /** Whether Kafka accepts {@code level}. */
        public boolean accepts(int level) {
            return (level >= min && level <= max) || level == defaultLevel;
        }
    }

    /** gzip: 1 (fastest) to 9 (smallest), or -1, zlib's default level; default -1. */
    public static final CompressionLevelRange GZIP_LEVELS = new CompressionLevelRange(COMPRESSION_GZIP_LEVEL, 1, 9, -1);
    /** lz4: 1 to 17 (levels above 9 use lz4's high-compression mode); default 9. */
    public static final CompressionLevelRange LZ4_LEVELS = new CompressionLevelRange(COMPRESSION_LZ4_LEVEL, 1, 17, 9);
    /** zstd: -131072 (fastest) to 22 (smallest); default 3. */
    public static final CompressionLevelRange ZSTD_LEVELS =
            new CompressionLevelRange(COMPRESSION_ZSTD_LEVEL, -131072, 22, 3);

    /** Kafka's answer to {@code remote.storage.enable=true} on a cluster without tiered storage. */
    public static final String TIERED_STORAGE_DISABLED =
            "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.";

    /** The smallest {@code segment.bytes}: 1 MiB, Kafka 4's minimum. */
    public static final long MIN_SEGMENT_BYTES = 1L << 20;

    /**
     * One accepted key.
     *
     * @param name the Kafka key
     * @param type its Kafka type, as DescribeConfigs reports it
     * @param normalizer validates a stripped, non-null value and returns its normalized form
     */
    public record Rule(String name, ConfigType type, UnaryOperator<String> normalizer) {

        /** Validates and normalizes a value; throws {@link InvalidConfigurationException} naming the key. */
        public String normalize(String value) {
            if (value == null) {
                throw new InvalidConfigurationException("topic config '" + name + "' has no value");
            }
            return normalizer.apply(value.strip());
        }

        /** Whether the config holds a comma-separated list (APPEND and SUBTRACT apply). */
        public boolean isList() {
            return type == ConfigType.LIST;
        }
    }

    private static final Map<String, Rule> RULES = rules();

    private TopicConfigRules() {}

    /** Every accepted key's rule, sorted by key. */
    public static List<Rule> all() {
        return List.copyOf(RULES.values());
    }

    /** The accepted keys, sorted. */
    public static List<String> keys() {
        return List.copyOf(RULES.keySet());
    }

    /** The rule for a key, empty for a key Tributary does not accept. */
    public static Optional<Rule> rule(String key) {
        return Optional.ofNullable(RULES.get(key));
    }

    /**
     * Validates and normalizes a set of overrides, in key order.
     *
     * @throws InvalidConfigurationException naming the first bad key (in key order) and why
     */
    public static SortedMap<String, String> validate(Map<String, String> configs) {
        SortedMap<String, String> normalized = new TreeMap<>();
        for (Map.Entry<String, String> e : new TreeMap<>(configs).entrySet()) {
            normalized.put(e.getKey(), normalize(e.getKey(), e.getValue()));
        }
        return normalized;
    }

    /**
     * Validates one key and value, returning the normalized value.
     *
     * @throws InvalidConfigurationException for an unknown key, a missing value or a value out of range
     */
    public static String normalize(String key, String value) {
        Rule rule = RULES.get(key);
        if (rule == null) {
            throw UnsupportedTopicConfigs.refusal(key);
        }
        return rule.normalize(value);
    }

    private static Map<String, Rule> rules() {
        List<Rule> list = List.of(
                new Rule(CLEANUP_POLICY, ConfigType.LIST, TopicConfigRules::cleanupPolicy),
                levelRule(GZIP_LEVELS),
                levelRule(LZ4_LEVELS),
                new Rule(COMPRESSION_TYPE, ConfigType.STRING, TopicConfigRules::compressionType),
                levelRule(ZSTD_LEVELS),
                longRule(DELETE_RETENTION_MS, 0),
                longRule(FILE_DELETE_DELAY_MS, 0),
                longRule(FLUSH_MESSAGES, 1),
                longRule(FLUSH_MS, 0),
                intRule(INDEX_INTERVAL_BYTES, 0),
                longRule(LOCAL_RETENTION_BYTES, -2),
                longRule(LOCAL_RETENTION_MS, -2),
                longRule(MAX_COMPACTION_LAG_MS, 1),
                intRule(MAX_MESSAGE_BYTES, 0),
                longRule(MESSAGE_TIMESTAMP_AFTER_MAX_MS, 0),
                longRule(MESSAGE_TIMESTAMP_BEFORE_MAX_MS, 0),
                new Rule(MESSAGE_TIMESTAMP_TYPE, ConfigType.STRING, TopicConfigRules::timestampType),
                new Rule(MIN_CLEANABLE_DIRTY_RATIO, ConfigType.DOUBLE, TopicConfigRules::ratio),
                longRule(MIN_COMPACTION_LAG_MS, 0),
                intRule(MIN_INSYNC_REPLICAS, 1),
                longRule(REMOTE_COPY_LAG_BYTES, -1),
                longRule(REMOTE_COPY_LAG_MS, -1),
                booleanRule(REMOTE_LOG_COPY_DISABLE),
                booleanRule(REMOTE_LOG_DELETE_ON_DISABLE),
                new Rule(REMOTE_STORAGE_ENABLE, ConfigType.BOOLEAN, TopicConfigRules::remoteStorageEnable),
                longRule(RETENTION_BYTES, -1),
                longRule(RETENTION_MS, -1),
                intRule(SEGMENT_BYTES, MIN_SEGMENT_BYTES),
                longRule(SEGMENT_JITTER_MS, 0),
                longRule(SEGMENT_MS, 1),
                booleanRule(UNCLEAN_LEADER_ELECTION_ENABLE));
        Map<String, Rule> byName = new LinkedHashMap<>();
        list.stream().sorted(Comparator.comparing(Rule::name)).forEach(r -> byName.put(r.name(), r));
        return byName;
    }

    /** A long config from {@code min} to 2^63-1. */
    private static Rule longRule(String key, long min) {
        return new Rule(key, ConfigType.LONG, v -> longIn(key, v, min, Long.MAX_VALUE));
    }

    /** An int config from {@code min} to 2^31-1. */
    private static Rule intRule(String key, long min) {
        return new Rule(key, ConfigType.INT, v -> longIn(key, v, min, Integer.MAX_VALUE));
    }

    private static Rule booleanRule(String key) {
        return new Rule(key, ConfigType.BOOLEAN, v -> bool(key, v));
    }

    private static String longIn(String key, String value, long min, long max) {
        long parsed;
        try {
            parsed = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new InvalidConfigurationException(
                    "topic config '%s' must be an integer, got '%s'".formatted(key, value));
        }
        if (parsed < min || parsed > max) {
            throw new InvalidConfigurationException(
                    "topic config '%s' must be in [%d, %d], got %d".formatted(key, min, max, parsed));
        }
        return Long.toString(parsed);
    }

    private static String ratio(String value) {
        double parsed;
        try {
            parsed = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new InvalidConfigurationException(
                    "topic config 'min.cleanable.dirty.ratio' must be a number, got '" + value + "'");
        }
        if (!(parsed >= 0 && parsed <= 1)) {
            throw new InvalidConfigurationException(
                    "topic config 'min.cleanable.dirty.ratio' must be in [0, 1], got " + value);
        }
        return Double.toString(parsed);
    }

    /**
     * Kafka 4.4's list: {@code delete}, {@code compact} (case-sensitive), both, or none (an empty
     * value: no retention and no compaction); an empty member ({@code "delete,"}) is refused.
     */
    private static String cleanupPolicy(String value) {
        if (value.isEmpty()) {
            return "";
        }
        List<String> given =
                Arrays.stream(value.split(",", -1)).map(String::strip).toList();
        if (given.contains("")) {
            throw new InvalidConfigurationException(
                    "topic config 'cleanup.policy' has an empty member in '" + value + "'");
        }
        if (!List.of("compact", "delete").containsAll(given)) {
            throw new InvalidConfigurationException(
                    "topic config 'cleanup.policy' must be delete, compact, both or empty, got '" + value + "'");
        }
        return String.join(",", given.stream().distinct().sorted().toList());
    }

    private static String timestampType(String value) {
        if (!value.equals("CreateTime") && !value.equals("LogAppendTime")) {
            throw new InvalidConfigurationException(
                    "topic config 'message.timestamp.type' must be CreateTime or LogAppendTime, got '" + value + "'");
        }
        return value;
    }

    private static String bool(String key, String value) {
        String lower = value.toLowerCase(Locale.ROOT);
        if (!lower.equals("true") && !lower.equals("false")) {
            throw new InvalidConfigurationException(
                    "topic config '%s' must be true or false, got '%s'".formatted(key, value));
        }
        return lower;
    }

    /** As on a Kafka cluster without tiered storage: {@code false} is accepted, {@code true} refused. */
    private static String remoteStorageEnable(String value) {
        String normalized = bool(REMOTE_STORAGE_ENABLE, value);
        if (normalized.equals("true")) {
            throw new InvalidConfigurationException(TIERED_STORAGE_DISABLED);
        }
        return normalized;
    }

    /** Kafka's values, case-sensitive as Kafka's, with Kafka's message. */
    private static String compressionType(String value) {
        if (!COMPRESSION_TYPES.contains(value)) {
            throw kafkaInvalidValue(
                    COMPRESSION_TYPE, value, "String must be one of: " + String.join(", ", COMPRESSION_TYPES));
        }
        return value;
    }

    /** An int level within {@code range}, with Kafka's messages. */
    private static Rule levelRule(CompressionLevelRange range) {
        return new Rule(range.key(), ConfigType.INT, value -> {
            int level;
            try {
                level = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw kafkaInvalidValue(range.key(), value, "Not a number of type INT");
            }
            if (!range.accepts(level)) {
                String why;
                if (range.defaultLevel() < range.min()) {
                    why = "Value must be between %d and %d or equal to %d"
                            .formatted(range.min(), range.max(), range.defaultLevel());
                } else if (level < range.min()) {
                    why = "Value must be at least " + range.min();
                } else {
                    why = "Value must be no more than " + range.max();
                }
                throw kafkaInvalidValue(range.key(), value, why);
            }
            return Integer.toString(level);
        });
    }

    /** Kafka's {@code ConfigException} text: {@code Invalid value <v> for configuration <key>: <why>}. */
    private static InvalidConfigurationException kafkaInvalidValue(String key, String value, String why) {
        return new InvalidConfigurationException(
                "Invalid value %s for configuration %s: %s".formatted(value, key, why));
    }
}
