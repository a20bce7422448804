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
 *   <tr><td>cleanup.policy</td><td>list</td><td>{@code delete}, {@code compact}, or both</td></tr>
 *   <tr><td>delete.retention.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>file.delete.delay.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>flush.messages</td><td>long</td><td>1 or more</td></tr>
 *   <tr><td>flush.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>max.compaction.lag.ms</td><td>long</td><td>1 or more</td></tr>
 *   <tr><td>max.message.bytes</td><td>int</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.after.max.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.before.max.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.type</td><td>string</td><td>{@code CreateTime}, {@code LogAppendTime}</td></tr>
 *   <tr><td>min.cleanable.dirty.ratio</td><td>double</td><td>0 to 1</td></tr>
 *   <tr><td>min.compaction.lag.ms</td><td>long</td><td>0 or more</td></tr>
 *   <tr><td>min.insync.replicas</td><td>int</td><td>1 or more</td></tr>
 *   <tr><td>retention.bytes</td><td>long</td><td>-1 (unlimited) or more</td></tr>
 *   <tr><td>retention.ms</td><td>long</td><td>-1 (unlimited) or more</td></tr>
 *   <tr><td>segment.bytes</td><td>int</td><td>1048576 (1 MiB, Kafka 4's minimum) .. 2^31-1</td></tr>
 *   <tr><td>segment.ms</td><td>long</td><td>1 or more</td></tr>
 *   <tr><td>unclean.leader.election.enable</td><td>boolean</td><td>{@code true}, {@code false}</td></tr>
 * </table>
 *
 * <p>Errors are Kafka's {@link InvalidConfigurationException} (the INVALID_CONFIG error code), with
 * a message naming the key and what is accepted.
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
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";

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
            throw new InvalidConfigurationException("unknown topic config '" + key + "'; accepted keys: " + keys());
        }
        return rule.normalize(value);
    }

    private static Map<String, Rule> rules() {
        List<Rule> list = List.of(
                new Rule(CLEANUP_POLICY, ConfigType.LIST, TopicConfigRules::cleanupPolicy),
                new Rule(DELETE_RETENTION_MS, ConfigType.LONG, v -> longIn(DELETE_RETENTION_MS, v, 0, Long.MAX_VALUE)),
                new Rule(
                        MAX_COMPACTION_LAG_MS,
                        ConfigType.LONG,
                        v -> longIn(MAX_COMPACTION_LAG_MS, v, 1, Long.MAX_VALUE)),
                new Rule(MIN_CLEANABLE_DIRTY_RATIO, ConfigType.DOUBLE, TopicConfigRules::ratio),
                new Rule(
                        MIN_COMPACTION_LAG_MS,
                        ConfigType.LONG,
                        v -> longIn(MIN_COMPACTION_LAG_MS, v, 0, Long.MAX_VALUE)),
                new Rule(
                        FILE_DELETE_DELAY_MS, ConfigType.LONG, v -> longIn(FILE_DELETE_DELAY_MS, v, 0, Long.MAX_VALUE)),
                new Rule(FLUSH_MESSAGES, ConfigType.LONG, v -> longIn(FLUSH_MESSAGES, v, 1, Long.MAX_VALUE)),
                new Rule(FLUSH_MS, ConfigType.LONG, v -> longIn(FLUSH_MS, v, 0, Long.MAX_VALUE)),
                new Rule(MAX_MESSAGE_BYTES, ConfigType.INT, v -> longIn(MAX_MESSAGE_BYTES, v, 0, Integer.MAX_VALUE)),
                new Rule(MESSAGE_TIMESTAMP_TYPE, ConfigType.STRING, TopicConfigRules::timestampType),
                new Rule(
                        MESSAGE_TIMESTAMP_BEFORE_MAX_MS,
                        ConfigType.LONG,
                        v -> longIn(MESSAGE_TIMESTAMP_BEFORE_MAX_MS, v, 0, Long.MAX_VALUE)),
                new Rule(
                        MESSAGE_TIMESTAMP_AFTER_MAX_MS,
                        ConfigType.LONG,
                        v -> longIn(MESSAGE_TIMESTAMP_AFTER_MAX_MS, v, 0, Long.MAX_VALUE)),
                new Rule(
                        MIN_INSYNC_REPLICAS, ConfigType.INT, v -> longIn(MIN_INSYNC_REPLICAS, v, 1, Integer.MAX_VALUE)),
                new Rule(RETENTION_BYTES, ConfigType.LONG, v -> longIn(RETENTION_BYTES, v, -1, Long.MAX_VALUE)),
                new Rule(RETENTION_MS, ConfigType.LONG, v -> longIn(RETENTION_MS, v, -1, Long.MAX_VALUE)),
                new Rule(
                        SEGMENT_BYTES,
                        ConfigType.INT,
                        v -> longIn(SEGMENT_BYTES, v, MIN_SEGMENT_BYTES, Integer.MAX_VALUE)),
                new Rule(SEGMENT_MS, ConfigType.LONG, v -> longIn(SEGMENT_MS, v, 1, Long.MAX_VALUE)),
                new Rule(UNCLEAN_LEADER_ELECTION_ENABLE, ConfigType.BOOLEAN, TopicConfigRules::bool));
        Map<String, Rule> byName = new LinkedHashMap<>();
        list.stream().sorted(Comparator.comparing(Rule::name)).forEach(r -> byName.put(r.name(), r));
        return byName;
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

    private static String cleanupPolicy(String value) {
        List<String> members = Arrays.stream(value.split(","))
                .map(s -> s.strip().toLowerCase(Locale.ROOT))
                .filter(s -> !s.isEmpty())
                .distinct()
                .sorted()
                .toList();
        if (members.isEmpty() || !List.of("compact", "delete").containsAll(members)) {
            throw new InvalidConfigurationException(
                    "topic config 'cleanup.policy' must be delete, compact or both, got '" + value + "'");
        }
        return String.join(",", members);
    }

    private static String timestampType(String value) {
        if (!value.equals("CreateTime") && !value.equals("LogAppendTime")) {
            throw new InvalidConfigurationException(
                    "topic config 'message.timestamp.type' must be CreateTime or LogAppendTime, got '" + value + "'");
        }
        return value;
    }

    private static String bool(String value) {
        String lower = value.toLowerCase(Locale.ROOT);
        if (!lower.equals("true") && !lower.equals("false")) {
            throw new InvalidConfigurationException(
                    "topic config 'unclean.leader.election.enable' must be true or false, got '" + value + "'");
        }
        return lower;
    }
}
