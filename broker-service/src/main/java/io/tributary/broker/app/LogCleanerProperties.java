package io.tributary.broker.app;

import io.tributary.broker.log.cleaner.CleanerConfig;
import io.tributary.broker.log.cleaner.OffsetMap;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.OptionalLong;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The log cleaner ({@code tributary.broker.log-cleaner.*}): compaction of topics whose {@code
 * cleanup.policy} has {@code compact}, on {@code threads} threads.
 *
 * @param enabled Kafka's {@code log.cleaner.enable}: whether the broker compacts at all
 * @param dedupeBufferSize Kafka's {@code log.cleaner.dedupe.buffer.size}: the heap of the cleaner's
 *     key-digest maps, 24 bytes per key (128 MB: about 5 million keys per pass), divided among the
 *     {@code threads}; each thread allocates its share at its first pass, so a broker without
 *     compacted topics never takes it
 * @param dedupeBufferLoadFactor Kafka's {@code log.cleaner.io.buffer.load.factor}
 * @param ioBufferSize Kafka's {@code log.cleaner.io.buffer.size}: the largest read of batches,
 *     divided among the {@code threads}
 * @param backoff Kafka's {@code log.cleaner.backoff.ms}: the pause between two runs of a thread
 * @param roundsPerRun at most this many passes per run, so that a run ends and the next one sees
 *     new partitions and high watermarks
 * @param ioMaxBytesPerSecond Kafka's {@code log.cleaner.io.max.bytes.per.second}: the reads and
 *     writes of all the cleaner threads together are throttled to this many bytes per second (one
 *     token bucket holding one second's worth); unset (the default): unlimited
 * @param threads Kafka's {@code log.cleaner.threads}: how many threads clean at once, each its own
 *     log, 1 (the default) to 16; the dedupe buffer and the I/O buffer are divided among them (each
 *     thread's key map holds {@code dedupe-buffer-size / threads})
 */
@Validated
@ConfigurationProperties("tributary.broker.log-cleaner")
public record LogCleanerProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("128MB") @NotNull DataSize dedupeBufferSize,
        @DefaultValue("0.9") double dedupeBufferLoadFactor,
        @DefaultValue("512KB") @NotNull DataSize ioBufferSize,
        @DefaultValue("15s") @NotNull Duration backoff,
        @DefaultValue("16") @Min(1) @Max(1_000_000) int roundsPerRun,
        DataSize ioMaxBytesPerSecond,
        @DefaultValue("1") int threads) {

    public LogCleanerProperties {
        if (backoff != null && (backoff.isNegative() || backoff.isZero())) {
            throw new IllegalArgumentException("tributary.broker.log-cleaner.backoff must be positive, got " + backoff);
        }
        if (threads < 1 || threads > CleanerConfig.MAX_THREADS) {
            throw new IllegalArgumentException("tributary.broker.log-cleaner.threads must be between 1 and "
                    + CleanerConfig.MAX_THREADS + ", got " + threads);
        }
        if (dedupeBufferSize != null && dedupeBufferSize.toBytes() / threads < 3L * OffsetMap.SLOT_BYTES) {
            throw new IllegalArgumentException("tributary.broker.log-cleaner.dedupe-buffer-size (" + dedupeBufferSize
                    + ") divided among tributary.broker.log-cleaner.threads (" + threads
                    + ") leaves a thread fewer than 3 key slots of " + OffsetMap.SLOT_BYTES + " bytes");
        }
        if (ioMaxBytesPerSecond != null && ioMaxBytesPerSecond.toBytes() < 1) {
            throw new IllegalArgumentException(
                    "tributary.broker.log-cleaner.io-max-bytes-per-second must be positive, got "
                            + ioMaxBytesPerSecond);
        }
    }

    /** The core's cleaner bounds. */
    public CleanerConfig toCleanerConfig() {
        return new CleanerConfig(
                dedupeBufferSize.toBytes(),
                dedupeBufferLoadFactor,
                Math.toIntExact(ioBufferSize.toBytes()),
                ioMaxBytesPerSecond == null ? OptionalLong.empty() : OptionalLong.of(ioMaxBytesPerSecond.toBytes()),
                threads);
    }
}
