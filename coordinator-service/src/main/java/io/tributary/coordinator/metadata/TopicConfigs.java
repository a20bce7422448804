package io.tributary.coordinator.metadata;

import io.tributary.common.topic.TopicConfigRules;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.apache.kafka.common.errors.InvalidConfigurationException;

/**
 * The coordinator's view of the topic config keys: the shared {@link TopicConfigRules} (Kafka's
 * names, types and ranges, and the normalization that gives one setting one byte form in the Raft
 * log and in snapshots), with its errors as the coordinator's {@link InvalidConfigException}. A
 * topic stores only the keys that were set; brokers apply their own defaults for the rest.
 *
 * <p>Thread-safety: stateless.
 */
public final class TopicConfigs {

    public static final String RETENTION_MS = TopicConfigRules.RETENTION_MS;
    public static final String RETENTION_BYTES = TopicConfigRules.RETENTION_BYTES;
    public static final String SEGMENT_BYTES = TopicConfigRules.SEGMENT_BYTES;
    public static final String SEGMENT_MS = TopicConfigRules.SEGMENT_MS;
    public static final String MIN_INSYNC_REPLICAS = TopicConfigRules.MIN_INSYNC_REPLICAS;
    public static final String CLEANUP_POLICY = TopicConfigRules.CLEANUP_POLICY;
    public static final String MAX_MESSAGE_BYTES = TopicConfigRules.MAX_MESSAGE_BYTES;
    public static final String MESSAGE_TIMESTAMP_TYPE = TopicConfigRules.MESSAGE_TIMESTAMP_TYPE;
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = TopicConfigRules.UNCLEAN_LEADER_ELECTION_ENABLE;
    public static final String FLUSH_MESSAGES = TopicConfigRules.FLUSH_MESSAGES;
    public static final String FLUSH_MS = TopicConfigRules.FLUSH_MS;

    private TopicConfigs() {}

    /** The accepted keys, sorted. */
    public static List<String> keys() {
        return TopicConfigRules.keys();
    }

    /**
     * Validates and normalizes a set of overrides.
     *
     * @throws InvalidConfigException naming the first bad key (in key order) and why
     */
    public static SortedMap<String, String> validate(Map<String, String> configs) {
        try {
            return TopicConfigRules.validate(configs);
        } catch (InvalidConfigurationException e) {
            throw new InvalidConfigException(e.getMessage());
        }
    }

    /** Validates one key and value, returning the normalized value. */
    public static String normalize(String key, String value) {
        try {
            return TopicConfigRules.normalize(key, value);
        } catch (InvalidConfigurationException e) {
            throw new InvalidConfigException(e.getMessage());
        }
    }
}
