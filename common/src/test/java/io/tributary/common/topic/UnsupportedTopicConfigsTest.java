package io.tributary.common.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Kafka topic configs Tributary refuses are refused by name, with why; other unknown keys are unknown. */
class UnsupportedTopicConfigsTest {

    @Test
    void noKeyIsBothAcceptedAndRefused() {
        assertThat(UnsupportedTopicConfigs.keys()).doesNotContainAnyElementsOf(TopicConfigRules.keys());
        assertThat(UnsupportedTopicConfigs.keys()).isSorted();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "errors.deadletterqueue.group.enable",
                "follower.replication.throttled.replicas",
                "internal.segment.bytes",
                "leader.replication.throttled.replicas",
                "max.decompressed.message.bytes",
                "preallocate",
                "segment.index.bytes"
            })
    void aRefusedKafkaKeyIsRefusedByNameWithTheReason(String key) {
        String reason = UnsupportedTopicConfigs.unsupported(key).orElseThrow().reason();

        assertThatThrownBy(() -> TopicConfigRules.validate(Map.of(key, "1")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("topic config '%s' is not supported by Tributary: %s", key, reason);
    }

    @Test
    void aKeyKafkaDoesNotDefineIsUnknownAndTheErrorListsTheAcceptedKeys() {
        assertThatThrownBy(() -> TopicConfigRules.normalize("message.downconversion.enable", "true"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("unknown topic config 'message.downconversion.enable'; accepted keys: [")
                .hasMessageContaining("retention.ms");
    }
}
