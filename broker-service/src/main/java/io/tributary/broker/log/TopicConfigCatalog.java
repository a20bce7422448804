package io.tributary.broker.log;

import java.util.Arrays;
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
 * The topic configs a Tributary broker knows: the one place in the broker for their Kafka names,
 * types, defaults, the broker config each default comes from, and the values accepted. The Kafka
 * API (CreateTopics, DescribeConfigs, IncrementalAlterConfigs) reads it. The defaults here are
 * Kafka's; a broker may set others for its topics ({@link TopicConfigDefaults}).
 *
 * <p>The accepted keys and values are the coordinator's ({@code
 * io.tributary.coordinator.metadata.TopicConfigs}, which the broker cannot import): a broker
 * validates a request before forwarding it so that {@code validate_only} answers as the real write
 * would, and the coordinator validates again. {@code TopicConfigCatalogDriftTest} reads the
 * coordinator's source and fails when the key sets differ. Values are normalized as the coordinator
 * normalizes them (numbers as {@link Long#toString}, booleans in lower case, {@code cleanup.policy}
 * sorted and distinct).
 *
 * <table>
 *   <caption>Topic configs and defaults</caption>
 *   <tr><th>key</th><th>type</th><th>default</th><th>broker synonym</th><th>valid values</th></tr>
 *   <tr><td>cleanup.policy</td><td>list</td><td>delete</td><td>log.cleanup.policy</td><td>delete, compact, or both</td></tr>
 *   <tr><td>flush.messages</td><td>long</td><td>2^63-1 (never)</td><td>log.flush.interval.messages</td><td>1 or more</td></tr>
 *   <tr><td>flush.ms</td><td>long</td><td>2^63-1 (never)</td><td>log.flush.interval.ms</td><td>0 or more</td></tr>
 *   <tr><td>max.message.bytes</td><td>int</td><td>{@link LogConfig#DEFAULT_MAX_MESSAGE_BYTES}</td><td>message.max.bytes</td><td>0 or more</td></tr>
 *   <tr><td>message.timestamp.type</td><td>string</td><td>CreateTime</td><td>log.message.timestamp.type</td><td>CreateTime, LogAppendTime</td></tr>
 *   <tr><td>min.insync.replicas</td><td>int</td><td>1</td><td>min.insync.replicas</td><td>1 or more</td></tr>
 *   <tr><td>retention.bytes</td><td>long</td><td>-1 (unlimited)</td><td>log.retention.bytes</td><td>-1 or more</td></tr>
 *   <tr><td>retention.ms</td><td>long</td><td>{@link LogConfig#DEFAULT_RETENTION_TIME} (7 days)</td><td>log.retention.ms</td><td>-1 (unlimited) or more</td></tr>
 *   <tr><td>segment.bytes</td><td>int</td><td>{@link LogConfig#DEFAULT_SEGMENT_BYTES} (1 GiB)</td><td>log.segment.bytes</td><td>1048576 .. 2^31-1</td></tr>
 *   <tr><td>segment.ms</td><td>long</td><td>{@link LogConfig#DEFAULT_SEGMENT_TIME} (7 days)</td><td>log.roll.ms</td><td>1 or more</td></tr>
 *   <tr><td>unclean.leader.election.enable</td><td>boolean</td><td>false</td><td>unclean.leader.election.enable</td><td>true, false</td></tr>
 * </table>
 *
 * <p>Thread-safety: immutable.
 */
public final class TopicConfigCatalog {

    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String RETENTION_MS = "retention.ms";
    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";

    /** Kafka's value of the {@code flush.*} defaults: never flush on count or time. */
    public static final long NEVER = Long.MAX_VALUE;

    /**
     * One topic config.
     *
     * @param name the Kafka key
     * @param type its Kafka type, as DescribeConfigs reports it
     * @param defaultValue Kafka's default, as Kafka writes it (a broker may set another: {@link
     *     TopicConfigDefaults})
     * @param brokerSynonym the Kafka broker config the default comes from
     * @param documentation one sentence for DescribeConfigs' {@code documentation}
     */
    public record Definition(
            String name,
            ConfigType type,
            String defaultValue,
            String brokerSynonym,
            String documentation,
            UnaryOperator<String> normalizer) {

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
     * Validates and normalizes a set of overrides, in key order.
     *
     * @throws InvalidConfigurationException naming the first bad key and why
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
        Definition definition = DEFINITIONS.get(key);
        if (definition == null) {
            throw new InvalidConfigurationException("unknown topic config '" + key + "'; accepted keys: " + names());
        }
        return definition.normalize(value);
    }

    private static Map<String, Definition> definitions() {
        Map<String, Definition> byName = new LinkedHashMap<>();
        List<Definition> list = List.of(
                new Definition(
                        CLEANUP_POLICY,
                        ConfigType.LIST,
                        "delete",
                        "log.cleanup.policy",
                        "delete: old segments are deleted by retention; compact: the last record per key is kept.",
                        TopicConfigCatalog::cleanupPolicy),
                new Definition(
                        FLUSH_MESSAGES,
                        ConfigType.LONG,
                        Long.toString(NEVER),
                        "log.flush.interval.messages",
                        "Fsync the log after this many records; replication, not fsync, is the durability mechanism.",
                        v -> longIn(FLUSH_MESSAGES, v, 1, Long.MAX_VALUE)),
                new Definition(
                        FLUSH_MS,
                        ConfigType.LONG,
                        Long.toString(NEVER),
                        "log.flush.interval.ms",
                        "Fsync the log when this many milliseconds passed since the last fsync.",
                        v -> longIn(FLUSH_MS, v, 0, Long.MAX_VALUE)),
                new Definition(
                        MAX_MESSAGE_BYTES,
                        ConfigType.INT,
                        Integer.toString(LogConfig.DEFAULT_MAX_MESSAGE_BYTES),
                        "message.max.bytes",
                        "The largest record batch a producer may append, in bytes.",
                        v -> longIn(MAX_MESSAGE_BYTES, v, 0, Integer.MAX_VALUE)),
                new Definition(
                        MESSAGE_TIMESTAMP_TYPE,
                        ConfigType.STRING,
                        "CreateTime",
                        "log.message.timestamp.type",
                        "CreateTime keeps the producer's timestamps; LogAppendTime stamps batches with the broker's"
                                + " clock.",
                        TopicConfigCatalog::timestampType),
                new Definition(
                        MIN_INSYNC_REPLICAS,
                        ConfigType.INT,
                        "1",
                        "min.insync.replicas",
                        "acks=all producers fail with NOT_ENOUGH_REPLICAS while the ISR is smaller than this.",
                        v -> longIn(MIN_INSYNC_REPLICAS, v, 1, Integer.MAX_VALUE)),
                new Definition(
                        RETENTION_BYTES,
                        ConfigType.LONG,
                        "-1",
                        "log.retention.bytes",
                        "Old segments are deleted while a partition is larger than this; -1: no size limit.",
                        v -> longIn(RETENTION_BYTES, v, -1, Long.MAX_VALUE)),
                new Definition(
                        RETENTION_MS,
                        ConfigType.LONG,
                        Long.toString(LogConfig.DEFAULT_RETENTION_TIME.toMillis()),
                        "log.retention.ms",
                        "Segments whose newest record is older than this are deleted; -1: no time limit.",
                        v -> longIn(RETENTION_MS, v, -1, Long.MAX_VALUE)),
                new Definition(
                        SEGMENT_BYTES,
                        ConfigType.INT,
                        Integer.toString(LogConfig.DEFAULT_SEGMENT_BYTES),
                        "log.segment.bytes",
                        "A segment file is rolled before it would grow past this many bytes.",
                        v -> longIn(SEGMENT_BYTES, v, 1L << 20, Integer.MAX_VALUE)),
                new Definition(
                        SEGMENT_MS,
                        ConfigType.LONG,
                        Long.toString(LogConfig.DEFAULT_SEGMENT_TIME.toMillis()),
                        "log.roll.ms",
                        "A non-empty segment is rolled once its first record is this many milliseconds old.",
                        v -> longIn(SEGMENT_MS, v, 1, Long.MAX_VALUE)),
                new Definition(
                        UNCLEAN_LEADER_ELECTION_ENABLE,
                        ConfigType.BOOLEAN,
                        "false",
                        "unclean.leader.election.enable",
                        "Whether a replica outside the ISR may become leader when no ISR member is alive (data"
                                + " loss).",
                        TopicConfigCatalog::bool));
        list.stream().sorted(java.util.Comparator.comparing(Definition::name)).forEach(d -> byName.put(d.name(), d));
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
