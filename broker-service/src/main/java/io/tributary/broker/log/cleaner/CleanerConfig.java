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
 * @param ioMaxBytesPerSecond {@code log.cleaner.io.max.bytes.per.second}: the reads and writes of
 *     all cleaner threads together are throttled to this rate (one shared {@link IoThrottle}); empty:
 *     unlimited (Kafka's default)
 * @param threads {@code log.cleaner.threads}: how many cleaner threads clean at once, each its own
 *     log (1 to {@link #MAX_THREADS}; Kafka's default 1). The dedupe buffer and the I/O buffer are
 *     divided among them, as Kafka divides them: each thread's {@link OffsetMap} takes {@link
 *     #dedupeBufferBytesPerThread()} and its reads {@link #ioBufferBytesPerThread()}, so the
 *     cleaner's heap stays what the settings say whatever the thread count.
 */
public record CleanerConfig(
        long dedupeBufferBytes,
        double dedupeBufferLoadFactor,
        int ioBufferBytes,
        OptionalLong ioMaxBytesPerSecond,
        int threads) {

    public static final long DEFAULT_DEDUPE_BUFFER_BYTES = 128L * 1024 * 1024;
    public static final double DEFAULT_DEDUPE_BUFFER_LOAD_FACTOR = 0.9;
    public static final int DEFAULT_IO_BUFFER_BYTES = 512 * 1024;

    /**
     * The most cleaner threads (a bound of ours; Kafka sets none): each thread is a platform thread
     * holding a whole log and a share of the dedupe buffer. At the default buffer, 16 threads leave
     * each 8 MiB (about 300,000 keys a pass); below that, passes get short and a log takes many, each
     * rewriting its clean segments again.
     */
    public static final int MAX_THREADS = 16;

    public CleanerConfig {
        if (threads < 1 || threads > MAX_THREADS) {
            throw new IllegalArgumentException(
                    "log.cleaner.threads must be between 1 and " + MAX_THREADS + ": " + threads);
        }
        if (dedupeBufferBytes / threads < 3L * OffsetMap.SLOT_BYTES) {
            throw new IllegalArgumentException("log.cleaner.dedupe.buffer.size is too small: " + dedupeBufferBytes
                    + " bytes divided among " + threads + " cleaner threads leaves fewer than 3 map slots ("
                    + 3 * OffsetMap.SLOT_BYTES + " bytes) a thread");
        }
        if (!(dedupeBufferLoadFactor > 0 && dedupeBufferLoadFactor < 1)) {
            throw new IllegalArgumentException(
                    "log.cleaner.io.buffer.load.factor must be in (0, 1): " + dedupeBufferLoadFactor);
        }
        if (ioBufferBytes < threads) {
            throw new IllegalArgumentException("log.cleaner.io.buffer.size must be at least one byte a cleaner thread ("
                    + threads + "): " + ioBufferBytes);
        }
        Objects.requireNonNull(ioMaxBytesPerSecond, "ioMaxBytesPerSecond");
        if (ioMaxBytesPerSecond.isPresent() && ioMaxBytesPerSecond.getAsLong() < 1) {
            throw new IllegalArgumentException(
                    "log.cleaner.io.max.bytes.per.second must be positive: " + ioMaxBytesPerSecond.getAsLong());
        }
    }

    /** One cleaner thread. */
    public CleanerConfig(
            long dedupeBufferBytes,
            double dedupeBufferLoadFactor,
            int ioBufferBytes,
            OptionalLong ioMaxBytesPerSecond) {
        this(dedupeBufferBytes, dedupeBufferLoadFactor, ioBufferBytes, ioMaxBytesPerSecond, 1);
    }

    /** One cleaner thread, without an I/O limit. */
    public CleanerConfig(long dedupeBufferBytes, double dedupeBufferLoadFactor, int ioBufferBytes) {
        this(dedupeBufferBytes, dedupeBufferLoadFactor, ioBufferBytes, OptionalLong.empty());
    }

    /** The same bounds with {@code threads} cleaner threads. */
    public CleanerConfig withThreads(int threads) {
        return new CleanerConfig(
                dedupeBufferBytes, dedupeBufferLoadFactor, ioBufferBytes, ioMaxBytesPerSecond, threads);
    }

    /** The heap of one thread's offset map: the dedupe buffer divided by the threads (Kafka's split). */
    public long dedupeBufferBytesPerThread() {
        return dedupeBufferBytes / threads;
    }

    /** The largest read of one thread: the I/O buffer divided by the threads. */
    public int ioBufferBytesPerThread() {
        return ioBufferBytes / threads;
    }

    /** Kafka's defaults. */
    public static CleanerConfig defaults() {
        return new CleanerConfig(
                DEFAULT_DEDUPE_BUFFER_BYTES, DEFAULT_DEDUPE_BUFFER_LOAD_FACTOR, DEFAULT_IO_BUFFER_BYTES);
    }
}
