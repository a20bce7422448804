package io.tributary.coordinator.metadata;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * The topic config keys Tributary accepts, with Kafka's names, types and ranges. A topic stores only
 * the keys that were set; brokers apply their own defaults for the rest.
 *
 * <p>Values are normalized so that the same setting always has the same bytes in the Raft log and in
 * snapshots: numbers as {@link Long#toString}, booleans in lower case, {@code cleanup.policy} as its
 * sorted, comma-separated distinct members.
 *
 * <table>
 *   <caption>Accepted keys</caption>
 *   <tr><th>key</th><th>type</th><th>valid values</th></tr>
 *   <tr><td>retention.ms</td><td>long</td><td>-1 (unlimited) or more</td></tr>
 *   <tr><td>retention.bytes</td><td>long</td><td>-1 (unlimited) or more</td></tr>
 *   <tr><td>segment.bytes</td><td>int</td><td>1048576 (1 MiB, Kafka 4's minimum) .. 2^31-1</td></tr>
 *   <tr><td>segment.ms</td><td>long</td><td>1 or more</td></tr>
 *   <tr><td>min.insync.replicas</td><td>int</td><td>1 or more</td></tr>
 *   <tr><td>cleanup.policy</td><td>list</td><td>{@code delete}, {@code compact}, or both</td></tr>
 *   <tr><td>max.message.bytes</td><td>int</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.type</td><td>string</td><td>{@code CreateTime}, {@code LogAppendTime}</td></tr>
 *   <tr><td>unclean.leader.election.enable</td><td>boolean</td><td>{@code true}, {@code false}</td></tr>
 *   <tr><td>flush.messages</td><td>long</td><td>1 or more</td></tr>
 *   <tr><td>flush.ms</td><td>long</td><td>0 or more</td></tr>
 * </table>
 *
 * <p>Thread-safety: stateless.
 */
public final class TopicConfigs {

    public static final String RETENTION_MS = "retention.ms";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";

    private static final Map<String, UnaryOperator<String>> NORMALIZERS = Map.ofEntries(
            Map.entry(RETENTION_MS, v -> longAtLeast(RETENTION_MS, v, -1, Long.MAX_VALUE)),
            Map.entry(RETENTION_BYTES, v -> longAtLeast(RETENTION_BYTES, v, -1, Long.MAX_VALUE)),
            Map.entry(SEGMENT_BYTES, v -> longAtLeast(SEGMENT_BYTES, v, 1L << 20, Integer.MAX_VALUE)),
            Map.entry(SEGMENT_MS, v -> longAtLeast(SEGMENT_MS, v, 1, Long.MAX_VALUE)),
            Map.entry(MIN_INSYNC_REPLICAS, v -> longAtLeast(MIN_INSYNC_REPLICAS, v, 1, Integer.MAX_VALUE)),
            Map.entry(CLEANUP_POLICY, TopicConfigs::cleanupPolicy),
            Map.entry(MAX_MESSAGE_BYTES, v -> longAtLeast(MAX_MESSAGE_BYTES, v, 0, Integer.MAX_VALUE)),
            Map.entry(MESSAGE_TIMESTAMP_TYPE, TopicConfigs::timestampType),
            Map.entry(UNCLEAN_LEADER_ELECTION_ENABLE, TopicConfigs::bool),
            Map.entry(FLUSH_MESSAGES, v -> longAtLeast(FLUSH_MESSAGES, v, 1, Long.MAX_VALUE)),
            Map.entry(FLUSH_MS, v -> longAtLeast(FLUSH_MS, v, 0, Long.MAX_VALUE)));

    private TopicConfigs() {}

    /** The accepted keys, sorted. */
    public static List<String> keys() {
        return NORMALIZERS.keySet().stream().sorted().toList();
    }

    /**
     * Validates and normalizes a set of overrides.
     *
     * @throws InvalidConfigException naming the first bad key (in key order) and why
     */
    public static SortedMap<String, String> validate(Map<String, String> configs) {
        SortedMap<String, String> normalized = new TreeMap<>();
        for (Map.Entry<String, String> e : new TreeMap<>(configs).entrySet()) {
            normalized.put(e.getKey(), normalize(e.getKey(), e.getValue()));
        }
        return normalized;
    }

    /** Validates one key and value, returning the normalized value. */
    public static String normalize(String key, String value) {
        UnaryOperator<String> normalizer = NORMALIZERS.get(key);
        if (normalizer == null) {
            throw new InvalidConfigException("unknown topic config '" + key + "'; accepted keys: " + keys());
        }
        if (value == null) {
            throw new InvalidConfigException("topic config '" + key + "' has no value");
        }
        return normalizer.apply(value.strip());
    }

    private static String longAtLeast(String key, String value, long min, long max) {
        long parsed;
        try {
            parsed = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new InvalidConfigException("topic config '%s' must be an integer, got '%s'".formatted(key, value));
        }
        if (parsed < min || parsed > max) {
            throw new InvalidConfigException(
                    "topic config '%s' must be in [%d, %d], got %d".formatted(key, min, max, parsed));
        }
        return Long.toString(parsed);
    }

    private static String cleanupPolicy(String value) {
        List<String> members = java.util.Arrays.stream(value.split(","))
                .map(s -> s.strip().toLowerCase(Locale.ROOT))
                .filter(s -> !s.isEmpty())
                .distinct()
                .sorted()
                .toList();
        if (members.isEmpty() || !List.of("compact", "delete").containsAll(members)) {
            throw new InvalidConfigException(
                    "topic config 'cleanup.policy' must be delete, compact or both, got '" + value + "'");
        }
        return String.join(",", members);
    }

    private static String timestampType(String value) {
        if (!value.equals("CreateTime") && !value.equals("LogAppendTime")) {
            throw new InvalidConfigException(
                    "topic config 'message.timestamp.type' must be CreateTime or LogAppendTime, got '" + value + "'");
        }
        return value;
    }

    private static String bool(String value) {
        String lower = value.toLowerCase(Locale.ROOT);
        if (!lower.equals("true") && !lower.equals("false")) {
            throw new InvalidConfigException(
                    "topic config 'unclean.leader.election.enable' must be true or false, got '" + value + "'");
        }
        return lower;
    }
}
