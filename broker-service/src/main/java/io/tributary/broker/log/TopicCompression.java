package io.tributary.broker.log;

import io.tributary.common.topic.TopicConfigRules;
import io.tributary.common.topic.TopicConfigRules.CompressionLevelRange;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;

/**
 * The codec a topic stores its batches with: Kafka's {@code compression.type} and the three {@code
 * compression.<codec>.level} configs (Kafka's {@code BrokerCompressionType} plus the levels).
 *
 * <table>
 *   <caption>Keys, values and defaults (Kafka 4.4's)</caption>
 *   <tr><th>key</th><th>values</th><th>default</th></tr>
 *   <tr><td>compression.type</td><td>uncompressed, zstd, lz4, snappy, gzip, producer</td><td>producer</td></tr>
 *   <tr><td>compression.gzip.level</td><td>1 .. 9, or -1 (zlib's default, 6)</td><td>-1</td></tr>
 *   <tr><td>compression.lz4.level</td><td>1 .. 17</td><td>9</td></tr>
 *   <tr><td>compression.zstd.level</td><td>-131072 .. 22</td><td>3</td></tr>
 * </table>
 *
 * <p>{@code producer} keeps each batch as its producer compressed it; any other value is the codec
 * every batch a leader appends is stored with ({@link BatchRecompression} rewrites the others). A
 * level applies only when its codec is the topic's; snappy has none.
 *
 * @param codec the topic's {@code compression.type}
 * @param gzipLevel {@code compression.gzip.level}
 * @param lz4Level {@code compression.lz4.level}
 * @param zstdLevel {@code compression.zstd.level}
 */
public record TopicCompression(Codec codec, int gzipLevel, int lz4Level, int zstdLevel) {

    /** Kafka's {@code compression.type} values (Kafka's {@code BrokerCompressionType}). */
    public enum Codec {
        UNCOMPRESSED("uncompressed", CompressionType.NONE),
        ZSTD("zstd", CompressionType.ZSTD),
        LZ4("lz4", CompressionType.LZ4),
        SNAPPY("snappy", CompressionType.SNAPPY),
        GZIP("gzip", CompressionType.GZIP),
        /** Keep the producer's codec. */
        PRODUCER("producer", null);

        private final String kafkaName;
        private final CompressionType type;

        Codec(String kafkaName, CompressionType type) {
            this.kafkaName = kafkaName;
            this.type = type;
        }

        /** The value as Kafka writes it. */
        public String kafkaName() {
            return kafkaName;
        }

        /** The codec of the {@code compression.type} value {@code name} (case-sensitive, as Kafka). */
        public static Codec of(String name) {
            for (Codec codec : values()) {
                if (codec.kafkaName.equals(name)) {
                    return codec;
                }
            }
            throw new IllegalArgumentException("unknown compression.type " + name);
        }
    }

    public TopicCompression {
        Objects.requireNonNull(codec, "codec");
        requireLevel(TopicConfigRules.GZIP_LEVELS, gzipLevel);
        requireLevel(TopicConfigRules.LZ4_LEVELS, lz4Level);
        requireLevel(TopicConfigRules.ZSTD_LEVELS, zstdLevel);
    }

    /** Kafka's defaults: {@code producer}, with each codec's default level. */
    public static TopicCompression defaults() {
        return new TopicCompression(
                Codec.PRODUCER,
                TopicConfigRules.GZIP_LEVELS.defaultLevel(),
                TopicConfigRules.LZ4_LEVELS.defaultLevel(),
                TopicConfigRules.ZSTD_LEVELS.defaultLevel());
    }

    public TopicCompression withCodec(Codec value) {
        return new TopicCompression(value, gzipLevel, lz4Level, zstdLevel);
    }

    public TopicCompression withGzipLevel(int value) {
        return new TopicCompression(codec, value, lz4Level, zstdLevel);
    }

    public TopicCompression withLz4Level(int value) {
        return new TopicCompression(codec, gzipLevel, value, zstdLevel);
    }

    public TopicCompression withZstdLevel(int value) {
        return new TopicCompression(codec, gzipLevel, lz4Level, value);
    }

    /**
     * The compression (codec and level) a leader stores batches with, empty for {@code producer}
     * (batches keep the producer's codec).
     */
    public Optional<Compression> target() {
        return switch (codec) {
            case PRODUCER -> Optional.empty();
            case UNCOMPRESSED -> Optional.of(Compression.NONE);
            case SNAPPY -> Optional.of(Compression.snappy().build());
            case GZIP -> Optional.of(Compression.gzip().level(gzipLevel).build());
            case LZ4 -> Optional.of(Compression.lz4().level(lz4Level).build());
            case ZSTD -> Optional.of(Compression.zstd().level(zstdLevel).build());
        };
    }

    /** The codec batches are stored with, empty for {@code producer}. */
    public Optional<CompressionType> targetType() {
        return Optional.ofNullable(codec.type);
    }

    private static void requireLevel(CompressionLevelRange range, int level) {
        if (!range.accepts(level)) {
            throw new IllegalArgumentException(range.key() + " must be in [" + range.min() + ", " + range.max()
                    + "] or " + range.defaultLevel() + ": " + level);
        }
    }
}
