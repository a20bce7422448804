package io.tributary.broker.log;

/**
 * What a leader's append rewrote into the topic's codec ({@link BatchRecompression}): none for an
 * append stored as its producer sent it.
 *
 * @param batches batches rewritten
 * @param bytesIn their size as the producer sent them
 * @param bytesOut their size as stored
 */
public record RecompressionStats(int batches, long bytesIn, long bytesOut) {

    /** Nothing rewritten. */
    public static final RecompressionStats NONE = new RecompressionStats(0, 0, 0);

    public RecompressionStats {
        if (batches < 0 || bytesIn < 0 || bytesOut < 0) {
            throw new IllegalArgumentException(
                    "negative recompression stats: " + batches + ", " + bytesIn + ", " + bytesOut);
        }
    }
}
