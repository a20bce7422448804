package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.topic.TopicConfigRules;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The broker's topic-config catalog accepts exactly what common's {@link TopicConfigRules} accept
 * (which the coordinators validate with too), and its defaults are the storage engine's.
 */
class TopicConfigCatalogTest {

    @Test
    void definesEveryKeyTheSharedRulesAccept() {
        assertThat(TopicConfigCatalog.names()).containsExactlyElementsOf(TopicConfigRules.keys());
        for (TopicConfigCatalog.Definition d : TopicConfigCatalog.all()) {
            assertThat(d.rule()).isEqualTo(TopicConfigRules.rule(d.name()).orElseThrow());
        }
    }

    @Test
    void kafkasDefaultsAreTheStorageEnginesDefaults() {
        TopicConfigDefaults kafka = TopicConfigDefaults.kafka();

        for (TopicConfigCatalog.Definition d : TopicConfigCatalog.all()) {
            assertThat(kafka.value(d.name())).as(d.name()).isEqualTo(d.defaultValue());
            assertThat(kafka.isKafkaDefault(d.name())).isTrue();
        }
        assertThat(kafka.value("retention.ms")).isEqualTo("604800000");
        assertThat(kafka.value("segment.bytes")).isEqualTo("1073741824");
        assertThat(kafka.value("retention.bytes")).isEqualTo("-1");
        assertThat(kafka.value("flush.ms")).isEqualTo(Long.toString(Long.MAX_VALUE));
        assertThat(kafka.value("message.timestamp.type")).isEqualTo("CreateTime");
        assertThat(kafka.value("message.timestamp.before.max.ms")).isEqualTo(Long.toString(Long.MAX_VALUE));
        assertThat(kafka.value("message.timestamp.after.max.ms")).isEqualTo("3600000");
        assertThat(kafka.value("file.delete.delay.ms")).isEqualTo("60000");
        assertThat(kafka.value("index.interval.bytes")).isEqualTo("4096");
        assertThat(kafka.value("compression.type")).isEqualTo("producer");
        assertThat(kafka.value("compression.gzip.level")).isEqualTo("-1");
        assertThat(kafka.value("compression.lz4.level")).isEqualTo("9");
        assertThat(kafka.value("compression.zstd.level")).isEqualTo("3");
        assertThat(kafka.value("local.retention.ms")).isEqualTo("-2");
        assertThat(kafka.value("remote.storage.enable")).isEqualTo("false");
    }

    @Test
    void aBrokersCodecAndLevelsBecomeItsTopicDefaults() {
        TopicConfigDefaults defaults = TopicConfigDefaults.of(
                LogConfig.defaults()
                        .withCompression(TopicCompression.defaults()
                                .withCodec(TopicCompression.Codec.ZSTD)
                                .withZstdLevel(7)),
                1);

        assertThat(defaults.value("compression.type")).isEqualTo("zstd");
        assertThat(defaults.value("compression.zstd.level")).isEqualTo("7");
        assertThat(defaults.isKafkaDefault("compression.type")).isFalse();
        assertThat(defaults.isKafkaDefault("compression.gzip.level")).isTrue();
    }

    @Test
    void aBrokersIndexIntervalBecomesItsTopicDefault() {
        TopicConfigDefaults defaults =
                TopicConfigDefaults.of(LogConfig.defaults().withIndexIntervalBytes(128), 1);

        assertThat(defaults.value("index.interval.bytes")).isEqualTo("128");
        assertThat(defaults.isKafkaDefault("index.interval.bytes")).isFalse();
    }

    @Test
    void theTieredStorageSwitchIsRefusedWithKafkasMessageWhenOn() {
        assertThatThrownBy(() -> TopicConfigCatalog.validate(Map.of("remote.storage.enable", "true")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage(TopicConfigRules.TIERED_STORAGE_DISABLED);
    }

    @Test
    void tieredStorageSwitchesHaveNoBrokerSynonymAsOnKafka() {
        assertThat(TopicConfigCatalog.definition("remote.storage.enable")
                        .orElseThrow()
                        .brokerSynonym())
                .isEmpty();
        assertThat(TopicConfigCatalog.definition("local.retention.ms")
                        .orElseThrow()
                        .brokerSynonym())
                .contains("log.local.retention.ms");
    }

    @Test
    void aBrokersOwnLogSettingsBecomeItsTopicDefaults() {
        LogConfig log = LogConfig.defaults()
                .withRetentionTime(Optional.empty())
                .withRetentionBytes(OptionalLong.of(5_000))
                .withSegmentTime(Duration.ofHours(1))
                .withFlushInterval(Optional.of(Duration.ofSeconds(1)))
                .withTimestampType(MessageTimestampType.LOG_APPEND_TIME)
                .withTimestampBounds(new TimestampBounds(Optional.of(Duration.ofMinutes(5)), Optional.empty()))
                .withFileDeleteDelay(Duration.ofSeconds(5));

        TopicConfigDefaults defaults = TopicConfigDefaults.of(log, 2);

        assertThat(defaults.values())
                .containsEntry("retention.ms", "-1")
                .containsEntry("retention.bytes", "5000")
                .containsEntry("segment.ms", "3600000")
                .containsEntry("flush.ms", "1000")
                .containsEntry("message.timestamp.type", "LogAppendTime")
                .containsEntry("message.timestamp.before.max.ms", "300000")
                .containsEntry("message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE))
                .containsEntry("min.insync.replicas", "2")
                .containsEntry("file.delete.delay.ms", "5000")
                .containsEntry("cleanup.policy", "delete");
        assertThat(defaults.isKafkaDefault("retention.ms")).isFalse();
        assertThat(defaults.isKafkaDefault("segment.bytes")).isTrue();
        assertThat(defaults.effectiveValue(Map.of("retention.ms", "5"), "retention.ms"))
                .isEqualTo("5");
        assertThat(defaults.effectiveValue(Map.of(), "retention.ms")).isEqualTo("-1");
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
                "cleanup.policy|''|''",
                "cleanup.policy|' '|''",
                "cleanup.policy|delete, compact,delete|compact,delete",
                "max.message.bytes|1048588|1048588",
                "message.timestamp.type|LogAppendTime|LogAppendTime",
                "unclean.leader.election.enable|TRUE|true",
                "flush.messages|1|1",
                "flush.ms|0|0",
                "message.timestamp.before.max.ms|0|0",
                "message.timestamp.before.max.ms|9223372036854775807|9223372036854775807",
                "message.timestamp.after.max.ms|+3600000|3600000",
                "index.interval.bytes|0|0",
                "index.interval.bytes|100|100",
                "compression.type|producer|producer",
                "compression.type|lz4|lz4",
                "compression.type|uncompressed|uncompressed",
                "compression.gzip.level|-1|-1",
                "compression.gzip.level| 9 |9",
                "compression.lz4.level|17|17",
                "compression.zstd.level|-131072|-131072",
                "local.retention.ms|-2|-2",
                "local.retention.bytes|1000|1000",
                "remote.copy.lag.ms|-1|-1",
                "remote.copy.lag.bytes|-1|-1",
                "remote.log.copy.disable|TRUE|true",
                "remote.log.delete.on.disable|false|false",
                "remote.storage.enable|false|false",
                "segment.jitter.ms|0|0",
                "segment.jitter.ms|+1000|1000"
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
                "cleanup.policy|DELETE",
                "cleanup.policy|'delete,'",
                "cleanup.policy|','",
                "max.message.bytes|-1",
                "message.timestamp.type|createtime",
                "unclean.leader.election.enable|yes",
                "flush.messages|0",
                "flush.ms|-1",
                "message.timestamp.before.max.ms|-1",
                "message.timestamp.after.max.ms|-1",
                "message.timestamp.after.max.ms|9223372036854775808",
                "message.timestamp.after.max.ms|1h",
                "index.interval.bytes|-1",
                "index.interval.bytes|2147483648",
                "compression.gzip.level|0",
                "compression.lz4.level|18",
                "compression.zstd.level|23",
                "compression.type|PRODUCER",
                "compression.type|brotli",
                "local.retention.ms|-3",
                "local.retention.bytes|-3",
                "remote.copy.lag.ms|-2",
                "remote.copy.lag.bytes|-2",
                "remote.log.copy.disable|yes",
                "preallocate|true",
                "segment.index.bytes|10485760",
                "leader.replication.throttled.replicas|*",
                "segment.jitter.ms|-1"
            })
    void rejectsWhatTheCoordinatorsRejectNamingTheKey(String key, String value) {
        assertThatThrownBy(() -> TopicConfigCatalog.validate(Map.of(key, value)))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining(key);
    }
}
