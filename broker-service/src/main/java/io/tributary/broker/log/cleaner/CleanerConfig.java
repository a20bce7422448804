package io.tributary.broker.log.cleaner;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * The log cleaner's broker-wide bounds (Kafka's {@code log.cleaner.*} broker configs).
 *
 * @param dedupeBufferBytes {@code log.cleaner.dedupe.buffer.size}: the heap of one cleaner's
 *     {@link OffsetMap}, 24 bytes per key; Kafka's default is 128 MiB (about 5 million keys at the
 *     default load factor). A dirty section with more keys is cleaned in several passes.
 * @param dedupeBufferLoadFactor {@code log.cleaner.io.buffer.load.factor}: the fraction of the map's
 *     slots that may be filled (Kafka's default 0.9)
 * @param ioBufferBytes {@code log.cleaner.io.buffer.size}: the cleaner reads whole batches in reads
 *     of at most this many bytes (one batch when a batch is larger); Kafka's default 512 KiB
 * @param ioMaxBytesPerSecond {@code log.cleaner.io.max.bytes.per.second}: the cleaner's reads and
 *     writes together are throttled to this rate ({@link IoThrottle}); empty: unlimited (Kafka's
 *     default)
 */
public record CleanerConfig(
        long dedupeBufferBytes, double dedupeBufferLoadFactor, int ioBufferBytes, OptionalLong ioMaxBytesPerSecond) {

    public static final long DEFAULT_DEDUPE_BUFFER_BYTES = 128L * 1024 * 1024;
    public static final double DEFAULT_DEDUPE_BUFFER_LOAD_FACTOR = 0.9;
    public static final int DEFAULT_IO_BUFFER_BYTES = 512 * 1024;

    public CleanerConfig {
        if (dedupeBufferBytes < 3L * OffsetMap.SLOT_BYTES) {
            throw new IllegalArgumentException("log.cleaner.dedupe.buffer.size is too small: " + dedupeBufferBytes);
        }
        if (!(dedupeBufferLoadFactor > 0 && dedupeBufferLoadFactor < 1)) {
            throw new IllegalArgumentException(
                    "log.cleaner.io.buffer.load.factor must be in (0, 1): " + dedupeBufferLoadFactor);
        }
        if (ioBufferBytes < 1) {
            throw new IllegalArgumentException("log.cleaner.io.buffer.size must be positive: " + ioBufferBytes);
        }
        Objects.requireNonNull(ioMaxBytesPerSecond, "ioMaxBytesPerSecond");
        if (ioMaxBytesPerSecond.isPresent() && ioMaxBytesPerSecond.getAsLong() < 1) {
            throw new IllegalArgumentException(
                    "log.cleaner.io.max.bytes.per.second must be positive: " + ioMaxBytesPerSecond.getAsLong());
        }
    }

    /** Without an I/O limit. */
    public CleanerConfig(long dedupeBufferBytes, double dedupeBufferLoadFactor, int ioBufferBytes) {
        this(dedupeBufferBytes, dedupeBufferLoadFactor, ioBufferBytes, OptionalLong.empty());
    }

    /** Kafka's defaults. */
    public static CleanerConfig defaults() {
        return new CleanerConfig(
                DEFAULT_DEDUPE_BUFFER_BYTES, DEFAULT_DEDUPE_BUFFER_LOAD_FACTOR, DEFAULT_IO_BUFFER_BYTES);
    }
}
