package io.tributary.common.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code compression.type} and the three level configs: Kafka 4.4's values, ranges and messages. */
class CompressionTopicConfigsTest {

    @ParameterizedTest
    @ValueSource(strings = {"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"})
    void everyKafkaCompressionTypeIsAccepted(String codec) {
        assertThat(TopicConfigRules.normalize("compression.type", codec)).isEqualTo(codec);
    }

    @Test
    void anUnknownOrMiscasedCodecIsRefusedWithKafkasMessage() {
        assertThatThrownBy(() -> TopicConfigRules.normalize("compression.type", "brotli"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("Invalid value brotli for configuration compression.type: String must be one of:"
                        + " uncompressed, zstd, lz4, snappy, gzip, producer");
        assertThatThrownBy(() -> TopicConfigRules.normalize("compression.type", "GZIP"))
                .isInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void theLevelRangesAndDefaultsAreKafkaClientsOwn() {
        for (var pair : List.of(
                new Object[] {TopicConfigRules.GZIP_LEVELS, CompressionType.GZIP},
                new Object[] {TopicConfigRules.LZ4_LEVELS, CompressionType.LZ4},
                new Object[] {TopicConfigRules.ZSTD_LEVELS, CompressionType.ZSTD})) {
            TopicConfigRules.CompressionLevelRange range = (TopicConfigRules.CompressionLevelRange) pair[0];
            CompressionType type = (CompressionType) pair[1];
            assertThat(range.min()).as(range.key()).isEqualTo(type.minLevel());
            assertThat(range.max()).as(range.key()).isEqualTo(type.maxLevel());
            assertThat(range.defaultLevel()).as(range.key()).isEqualTo(type.defaultLevel());
        }
    }

    /** Every level from below the lowest to above the highest is judged, and worded, as Kafka's validator does. */
    @ParameterizedTest
    @ValueSource(strings = {"gzip", "lz4", "zstd"})
    void levelsAreAcceptedAndRefusedAsKafkasValidatorDoes(String codec) {
        CompressionType type = CompressionType.forName(codec);
        String key = "compression." + codec + ".level";
        List<Integer> levels = new java.util.ArrayList<>(List.of(
                type.minLevel() - 1, type.minLevel(), type.maxLevel(), type.maxLevel() + 1, -1, 0, Integer.MIN_VALUE));
        for (int level = -3; level <= 23; level++) {
            levels.add(level);
        }
        for (int level : levels) {
            String kafka = kafkaAnswer(type, key, level);
            if (kafka == null) {
                assertThat(TopicConfigRules.normalize(key, Integer.toString(level)))
                        .as("%s=%d", key, level)
                        .isEqualTo(Integer.toString(level));
            } else {
                assertThatThrownBy(() -> TopicConfigRules.normalize(key, Integer.toString(level)))
                        .as("%s=%d", key, level)
                        .isInstanceOf(InvalidConfigurationException.class)
                        .hasMessage(kafka);
            }
        }
    }

    @Test
    void aLevelThatIsNotAnIntIsRefusedWithKafkasMessage() {
        assertThatThrownBy(() -> TopicConfigRules.normalize("compression.lz4.level", "high"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("Invalid value high for configuration compression.lz4.level: Not a number of type INT");
    }

    private static String kafkaAnswer(CompressionType type, String key, int level) {
        try {
            type.levelValidator().ensureValid(key, level);
            return null;
        } catch (ConfigException e) {
            return e.getMessage();
        }
    }
}
