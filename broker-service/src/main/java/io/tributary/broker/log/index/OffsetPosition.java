package io.tributary.broker.log.index;

/**
 * An offset-index entry: the batch whose base offset is {@code offset} starts at byte {@code
 * position} of the segment whose base offset is {@code segmentBaseOffset}.
 */
public record OffsetPosition(long offset, long segmentBaseOffset, int position) {

    public OffsetPosition {
        if (offset < segmentBaseOffset || segmentBaseOffset < 0 || position < 0) {
            throw new IllegalArgumentException(
                    "impossible index entry " + offset + " -> " + segmentBaseOffset + "@" + position);
        }
    }
}
