package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The broker's topic-config catalog accepts what the coordinators accept (the same cases as the
 * coordinator's {@code TopicConfigsTest}, and the same keys as its {@code TopicConfigs}, read from its
 * source), and its defaults are the storage engine's.
 */
class TopicConfigCatalogTest {

    /** The coordinator's list of accepted keys, relative to this module's directory (the tests' working directory). */
    private static final Path COORDINATOR_TOPIC_CONFIGS =
            Path.of("../coordinator-service/src/main/java/io/tributary/coordinator/metadata/TopicConfigs.java");

    @Test
    void acceptsExactlyTheKeysTheCoordinatorsAccept() throws IOException {
        assertThat(COORDINATOR_TOPIC_CONFIGS)
                .as("the coordinator's TopicConfigs source, to compare the accepted keys with")
                .isRegularFile();
        Matcher keys = Pattern.compile("public static final String \\w+ = \"([a-z.]+)\";")
                .matcher(Files.readString(COORDINATOR_TOPIC_CONFIGS));
        Set<String> coordinatorKeys = new TreeSet<>();
        while (keys.find()) {
            coordinatorKeys.add(keys.group(1));
        }

        assertThat(coordinatorKeys).isNotEmpty();
        assertThat(TopicConfigCatalog.names()).containsExactlyElementsOf(coordinatorKeys);
    }

    @Test
    void defaultsAreTheStorageEnginesDefaults() {
        LogConfig defaults = LogConfig.defaults();

        assertThat(TopicConfigCatalog.effectiveValue(Map.of(), "segment.bytes"))
                .isEqualTo(Integer.toString(defaults.segmentBytes()));
        assertThat(TopicConfigCatalog.effectiveValue(Map.of(), "segment.ms"))
                .isEqualTo(Long.toString(defaults.segmentTime().toMillis()));
        assertThat(TopicConfigCatalog.effectiveValue(Map.of(), "retention.ms"))
                .isEqualTo(Long.toString(defaults.retentionTime().orElseThrow().toMillis()));
        assertThat(defaults.retentionBytes()).isEmpty();
        assertThat(TopicConfigCatalog.effectiveValue(Map.of(), "retention.bytes"))
                .isEqualTo("-1");
        assertThat(TopicConfigCatalog.effectiveValue(Map.of(), "max.message.bytes"))
                .isEqualTo(Integer.toString(defaults.maxMessageBytes()));
        assertThat(defaults.timestampType()).isEqualTo(MessageTimestampType.CREATE_TIME);
        assertThat(TopicConfigCatalog.effectiveValue(Map.of(), "message.timestamp.type"))
                .isEqualTo("CreateTime");
        assertThat(defaults.flushMessages()).isEmpty();
        assertThat(defaults.flushInterval()).isEmpty();
        assertThat(TopicConfigCatalog.effectiveValue(Map.of(), "flush.messages"))
                .isEqualTo(Long.toString(TopicConfigCatalog.NEVER));
    }

    @Test
    void aTopicWithoutOverridesGetsTheLogDefaults() {
        assertThat(TopicConfigCatalog.toLogConfig(Map.of())).isEqualTo(LogConfig.defaults());
    }

    @Test
    void overridesBecomeLogConfigFieldsWithKafkasUnlimitedValuesAsEmpty() {
        LogConfig config = TopicConfigCatalog.toLogConfig(Map.of(
                "segment.bytes", "1048576",
                "segment.ms", "60000",
                "retention.ms", "-1",
                "retention.bytes", "5000000",
                "max.message.bytes", "2048",
                "flush.messages", "10",
                "flush.ms", "0",
                "message.timestamp.type", "LogAppendTime"));

        assertThat(config)
                .isEqualTo(LogConfig.defaults()
                        .withSegmentBytes(1048576)
                        .withSegmentTime(java.time.Duration.ofMinutes(1))
                        .withRetentionTime(java.util.Optional.empty())
                        .withRetentionBytes(java.util.OptionalLong.of(5_000_000))
                        .withMaxMessageBytes(2048)
                        .withFlushMessages(java.util.OptionalLong.of(10))
                        .withFlushInterval(java.util.Optional.of(java.time.Duration.ofMillis(1)))
                        .withTimestampType(MessageTimestampType.LOG_APPEND_TIME));
    }

    @Test
    void toLogConfigRefusesAnInvalidOverride() {
        assertThatThrownBy(() -> TopicConfigCatalog.toLogConfig(Map.of("segment.ms", "0")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("segment.ms");
    }

    @Test
    void anOverrideWinsOverTheDefault() {
        assertThat(TopicConfigCatalog.effectiveValue(Map.of("retention.ms", "5"), "retention.ms"))
                .isEqualTo("5");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "retention.ms|-1|-1",
                "retention.bytes|1073741824|1073741824",
                "segment.bytes|1048576|1048576",
                "segment.ms|+60000|60000",
                "min.insync.replicas|2|2",
                "cleanup.policy|compact,delete|compact,delete",
                "cleanup.policy|DELETE|delete",
                "cleanup.policy|delete, compact,delete|compact,delete",
                "max.message.bytes|1048588|1048588",
                "message.timestamp.type|LogAppendTime|LogAppendTime",
                "unclean.leader.election.enable|TRUE|true",
                "flush.messages|1|1",
                "flush.ms|0|0"
            })
    void acceptsValidValuesAndNormalizesThemAsTheCoordinatorsDo(String key, String value, String normalized) {
        assertThat(TopicConfigCatalog.validate(Map.of(key, value))).containsEntry(key, normalized);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "retention.ms|-2",
                "retention.ms|ten",
                "segment.bytes|1048575",
                "segment.bytes|2147483648",
                "segment.ms|0",
                "min.insync.replicas|0",
                "cleanup.policy|archive",
                "cleanup.policy|''",
                "max.message.bytes|-1",
                "message.timestamp.type|createtime",
                "unclean.leader.election.enable|yes",
                "flush.messages|0",
                "flush.ms|-1",
                "compression.type|lz4"
            })
    void rejectsWhatTheCoordinatorsRejectNamingTheKey(String key, String value) {
        assertThatThrownBy(() -> TopicConfigCatalog.validate(Map.of(key, value)))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining(key);
    }
}
