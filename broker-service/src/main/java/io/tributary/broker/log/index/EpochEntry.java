package io.tributary.broker.log.index;

/** A leader-epoch cache entry: leader epoch {@code epoch} wrote its first batch at {@code startOffset}. */
public record EpochEntry(int epoch, long startOffset) {

    public EpochEntry {
        if (epoch < 0 || startOffset < 0) {
            throw new IllegalArgumentException("impossible epoch entry " + epoch + "@" + startOffset);
        }
    }
}
