package io.tributary.broker.api;

import io.tributary.broker.log.TopicConfigCatalog;
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
     * @param source TOPIC_CONFIG when the topic overrides it, DEFAULT_CONFIG otherwise
     */
    record Entry(TopicConfigCatalog.Definition definition, String value, ConfigSource source) {

        String name() {
            return definition.name();
        }

        boolean isOverride() {
            return source == ConfigSource.TOPIC_CONFIG;
        }
    }

    /** Every catalog config, sorted by name, valued from {@code overrides} or the defaults. */
    static List<Entry> of(Map<String, String> overrides) {
        return TopicConfigCatalog.all().stream()
                .map(d -> overrides.containsKey(d.name())
                        ? new Entry(d, overrides.get(d.name()), ConfigSource.TOPIC_CONFIG)
                        : new Entry(d, d.defaultValue(), ConfigSource.DEFAULT_CONFIG))
                .toList();
    }
}
