package io.tributary.coordinator.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TopicConfigsTest {

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
                "max.message.bytes|1048588|1048588",
                "message.timestamp.type|LogAppendTime|LogAppendTime",
                "unclean.leader.election.enable|TRUE|true",
                "flush.messages|1|1",
                "flush.ms|0|0",
                "delete.retention.ms|0|0",
                "min.compaction.lag.ms|+1000|1000",
                "max.compaction.lag.ms|9223372036854775807|9223372036854775807",
                "min.cleanable.dirty.ratio|.25|0.25",
                "min.cleanable.dirty.ratio|1|1.0"
            })
    void acceptsValidValuesAndNormalizesThem(String key, String value, String normalized) {
        assertThat(TopicConfigs.validate(Map.of(key, value))).containsEntry(key, normalized);
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
                "cleanup.policy|'compact,'",
                "max.message.bytes|-1",
                "message.timestamp.type|createtime",
                "unclean.leader.election.enable|yes",
                "flush.messages|0",
                "flush.ms|-1",
                "compression.type|brotli",
                "compression.lz4.level|0",
                "delete.retention.ms|-1",
                "min.compaction.lag.ms|-1",
                "max.compaction.lag.ms|0",
                "min.cleanable.dirty.ratio|1.5",
                "min.cleanable.dirty.ratio|NaN",
                "min.cleanable.dirty.ratio|half"
            })
    void rejectsBadValuesAndUnknownKeysNamingTheKey(String key, String value) {
        assertThatThrownBy(() -> TopicConfigs.validate(Map.of(key, value)))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining(key);
    }
}
