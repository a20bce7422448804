package io.tributary.common.topic;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.errors.InvalidConfigurationException;

/**
 * The topic configs Kafka 4.4 defines that Tributary refuses, each with why: CreateTopics,
 * AlterConfigs and IncrementalAlterConfigs (with or without {@code validate_only}) answer
 * INVALID_CONFIG naming the key rather than accept a setting that would change nothing. A key that
 * Kafka 4.4 does not define either (say {@code message.downconversion.enable}, removed in Kafka 4) is
 * simply unknown, as on Kafka.
 *
 * <table>
 *   <caption>Refused keys</caption>
 *   <tr><th>key</th><th>Kafka default</th><th>why Tributary refuses it</th></tr>
 *   <tr><td>errors.deadletterqueue.group.enable</td><td>false</td><td>no share groups</td></tr>
 *   <tr><td>follower.replication.throttled.replicas</td><td>(empty)</td><td>no replication quotas</td></tr>
 *   <tr><td>internal.segment.bytes</td><td>(none)</td><td>Kafka's internal test override</td></tr>
 *   <tr><td>leader.replication.throttled.replicas</td><td>(empty)</td><td>no replication quotas</td></tr>
 *   <tr><td>max.decompressed.message.bytes</td><td>2147483639</td><td>a record's decompressed size is not
 *       bounded</td></tr>
 *   <tr><td>preallocate</td><td>false</td><td>segment files are not preallocated</td></tr>
 *   <tr><td>segment.index.bytes</td><td>10485760</td><td>the offset index is not a fixed-size file per
 *       segment</td></tr>
 * </table>
 *
 * <p>Thread-safety: stateless.
 */
public final class UnsupportedTopicConfigs {

    /**
     * One refused key.
     *
     * @param name the Kafka key
     * @param reason why Tributary refuses it, one phrase
     */
    public record Unsupported(String name, String reason) {}

    private static final String NO_REPLICATION_QUOTAS = "Tributary has no replication quotas to throttle replicas with";

    private static final Map<String, Unsupported> UNSUPPORTED = unsupported();

    private UnsupportedTopicConfigs() {}

    /** Every refused key, sorted. */
    public static List<String> keys() {
        return List.copyOf(UNSUPPORTED.keySet());
    }

    /** Why {@code key} is refused, empty when Tributary accepts it or Kafka does not define it. */
    public static Optional<Unsupported> unsupported(String key) {
        return Optional.ofNullable(UNSUPPORTED.get(key));
    }

    /**
     * The INVALID_CONFIG error for a key Tributary does not accept: a refused Kafka key says why; any
     * other key is unknown and the error lists the accepted ones.
     */
    public static InvalidConfigurationException refusal(String key) {
        return unsupported(key)
                .map(u -> new InvalidConfigurationException(
                        "topic config '%s' is not supported by Tributary: %s".formatted(u.name(), u.reason())))
                .orElseGet(() -> new InvalidConfigurationException(
                        "unknown topic config '" + key + "'; accepted keys: " + TopicConfigRules.keys()));
    }

    private static Map<String, Unsupported> unsupported() {
        SortedMap<String, Unsupported> byName = new TreeMap<>();
        for (Unsupported u : List.of(
                new Unsupported(
                        "errors.deadletterqueue.group.enable",
                        "Tributary has no share groups, whose dead-letter queue this enables"),
                new Unsupported("follower.replication.throttled.replicas", NO_REPLICATION_QUOTAS),
                new Unsupported(
                        "internal.segment.bytes",
                        "it is Kafka's internal test override of segment.bytes's minimum; set segment.bytes"),
                new Unsupported("leader.replication.throttled.replicas", NO_REPLICATION_QUOTAS),
                new Unsupported(
                        "max.decompressed.message.bytes",
                        "Tributary does not bound the decompressed size of single records"),
                new Unsupported("preallocate", "Tributary does not preallocate segment files"),
                new Unsupported(
                        "segment.index.bytes", "Tributary's offset index is not a fixed-size file per segment"))) {
            byName.put(u.name(), u);
        }
        return Collections.unmodifiableSortedMap(byName);
    }
}
