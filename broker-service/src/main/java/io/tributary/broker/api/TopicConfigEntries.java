package io.tributary.broker.api;

import io.tributary.broker.log.TopicConfigCatalog;
import io.tributary.broker.log.TopicConfigDefaults;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;

/** A topic's configs as CreateTopics (v5+) and DescribeConfigs report them: every known one, with its source. */
final class TopicConfigEntries {

    private TopicConfigEntries() {}

    /**
     * One config of a topic.
     *
     * @param definition the catalog entry
     * @param value the effective value
     * @param source TOPIC_CONFIG when the topic overrides it; otherwise DEFAULT_CONFIG when the
     *     broker's default is Kafka's, STATIC_BROKER_CONFIG when the broker sets another
     */
    record Entry(TopicConfigCatalog.Definition definition, String value, ConfigSource source) {

        String name() {
            return definition.name();
        }

        boolean isOverride() {
            return source == ConfigSource.TOPIC_CONFIG;
        }
    }

    /** Every catalog config, sorted by name, valued from {@code overrides} or the broker's defaults. */
    static List<Entry> of(Map<String, String> overrides, TopicConfigDefaults defaults) {
        return TopicConfigCatalog.all().stream()
                .map(d -> overrides.containsKey(d.name())
                        ? new Entry(d, overrides.get(d.name()), ConfigSource.TOPIC_CONFIG)
                        : new Entry(d, defaults.value(d.name()), defaultSource(defaults, d.name())))
                .toList();
    }

    /** Where a default comes from: Kafka's own (DEFAULT_CONFIG) or the broker's settings (STATIC_BROKER_CONFIG). */
    static ConfigSource defaultSource(TopicConfigDefaults defaults, String key) {
        return defaults.isKafkaDefault(key) ? ConfigSource.DEFAULT_CONFIG : ConfigSource.STATIC_BROKER_CONFIG;
    }
}
