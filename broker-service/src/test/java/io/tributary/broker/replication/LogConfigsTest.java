package io.tributary.broker.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.CompactionConfig;
import io.tributary.broker.log.CompactionConfig.CleanupPolicy;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.MessageTimestampType;
import io.tributary.broker.log.TimestampBounds;
import io.tributary.broker.log.TopicCompression;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class LogConfigsTest {

    private final LogConfig defaults = LogConfig.defaults();

    @Test
    void topicConfigsOverrideTheBrokerDefaults() {
        LogConfig config = LogConfigs.of(
                defaults,
                Map.of(
                        "segment.bytes", "1048576",
                        "segment.ms", "60000",
                        "retention.ms", "3600000",
                        "retention.bytes", "1073741824",
                        "max.message.bytes", "2048",
                        "index.interval.bytes", "8192",
                        "flush.messages", "10",
                        "flush.ms", "500",
                        "message.timestamp.type", "LogAppendTime"));

        assertThat(config)
                .isEqualTo(new LogConfig(
                        1048576,
                        Duration.ofMinutes(1),
                        Optional.of(Duration.ofHours(1)),
                        OptionalLong.of(1L << 30),
                        2048,
                        8192,
                        OptionalLong.of(10),
                        Optional.of(Duration.ofMillis(500)),
                        MessageTimestampType.LOG_APPEND_TIME));
    }

    @Test
    void compressionTypeAndLevelsSetTheTopicsCodec() {
        LogConfig config = LogConfigs.of(
                defaults,
                Map.of(
                        "compression.type", "zstd",
                        "compression.zstd.level", "-5",
                        "compression.gzip.level", "9",
                        "compression.lz4.level", "1"));

        assertThat(config.compression()).isEqualTo(new TopicCompression(TopicCompression.Codec.ZSTD, 9, 1, -5));
        assertThat(defaults.compression()).isEqualTo(TopicCompression.defaults());
        assertThat(LogConfigs.of(defaults, Map.of("compression.lz4.level", "18"))
                        .compression())
                .as("a level out of range keeps the default")
                .isEqualTo(TopicCompression.defaults());
    }

    @Test
    void fileDeleteDelayMsSetsHowLongRemovedSegmentFilesStayReadable() {
        assertThat(LogConfigs.of(defaults, Map.of("file.delete.delay.ms", "0")).fileDeleteDelay())
                .isZero();
        assertThat(LogConfigs.of(defaults, Map.of("file.delete.delay.ms", "1500"))
                        .fileDeleteDelay())
                .isEqualTo(Duration.ofMillis(1500));
        assertThat(defaults.fileDeleteDelay()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void segmentJitterMsSetsTheLogsJitter() {
        LogConfig config = LogConfigs.of(defaults, Map.of("segment.jitter.ms", "30000"));

        assertThat(config.segmentJitter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(LogConfigs.of(defaults, Map.of()).segmentJitter()).isZero();
    }

    @Test
    void minusOneMeansUnlimitedAndFlushMsZeroFlushesEveryAppend() {
        LogConfig config =
                LogConfigs.of(defaults, Map.of("retention.ms", "-1", "retention.bytes", "-1", "flush.ms", "0"));

        assertThat(config.retentionTime()).isEmpty();
        assertThat(config.retentionBytes()).isEmpty();
        assertThat(config.flushMessages()).hasValue(1);
    }

    @Test
    void unparsableValuesAndUnrelatedKeysKeepTheDefaults() {
        LogConfig config = LogConfigs.of(
                defaults,
                Map.of(
                        "segment.bytes",
                        "lots",
                        "message.timestamp.type",
                        "Now",
                        "cleanup.policy",
                        "shred",
                        "unclean.leader.election.enable",
                        "true"));

        assertThat(config).isEqualTo(defaults);
    }

    @Test
    void compactionKeysSetTheCleanupPolicyAndTheCleanerBounds() {
        LogConfig config = LogConfigs.of(
                defaults,
                Map.of(
                        "cleanup.policy", "compact,delete",
                        "delete.retention.ms", "1000",
                        "min.compaction.lag.ms", "2000",
                        "max.compaction.lag.ms", "3000",
                        "min.cleanable.dirty.ratio", "0.25"));

        assertThat(config.compaction())
                .isEqualTo(new CompactionConfig(
                        EnumSet.of(CleanupPolicy.COMPACT, CleanupPolicy.DELETE),
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(2),
                        Optional.of(Duration.ofSeconds(3)),
                        0.25));
        assertThat(LogConfigs.of(
                                defaults,
                                Map.of(
                                        "cleanup.policy",
                                        "compact",
                                        "max.compaction.lag.ms",
                                        Long.toString(Long.MAX_VALUE)))
                        .compaction())
                .satisfies(c -> {
                    assertThat(c.compacts()).isTrue();
                    assertThat(c.deletes()).isFalse();
                    assertThat(c.maxCompactionLag()).isEmpty();
                });
    }

    @Test
    void timestampBoundsComeFromTheTopicWithKafkasMaxAsNoBound() {
        LogConfig config = LogConfigs.of(
                defaults, Map.of("message.timestamp.before.max.ms", "60000", "message.timestamp.after.max.ms", "0"));

        assertThat(config.timestampBounds())
                .isEqualTo(new TimestampBounds(Optional.of(Duration.ofMinutes(1)), Optional.of(Duration.ZERO)));
        assertThat(LogConfigs.of(defaults, Map.of("message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE)))
                        .timestampBounds())
                .isEqualTo(TimestampBounds.unlimited());
        assertThat(LogConfigs.of(defaults, Map.of("message.timestamp.before.max.ms", "-1"))
                        .timestampBounds())
                .as("a negative bound (never sent by a coordinator) keeps the default")
                .isEqualTo(TimestampBounds.defaults());
    }

    @Test
    void minInsyncReplicasComesFromTheTopicOrTheDefault() {
        assertThat(LogConfigs.minInsyncReplicas(1, Map.of("min.insync.replicas", "2")))
                .isEqualTo(2);
        assertThat(LogConfigs.minInsyncReplicas(1, Map.of())).isEqualTo(1);
        assertThat(LogConfigs.minInsyncReplicas(1, Map.of("min.insync.replicas", "x")))
                .isEqualTo(1);
    }
}
