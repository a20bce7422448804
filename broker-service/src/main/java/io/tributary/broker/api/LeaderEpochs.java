package io.tributary.broker.api;

import io.tributary.broker.log.index.EpochEntry;
import java.util.List;

/**
 * Queries over a log's leader-epoch cache (entries of epoch and start offset, oldest first).
 * Stateless.
 */
final class LeaderEpochs {

    /** An epoch and the offset where it ends (Kafka's {@code EpochEndOffset}). */
    record EpochEnd(int epoch, long endOffset) {}

    static final EpochEnd UNDEFINED = new EpochEnd(-1, -1L);

    private LeaderEpochs() {}

    /** The epoch that wrote {@code offset}: the last entry starting at or below it; -1 when none. */
    static int epochAt(List<EpochEntry> epochs, long offset) {
        int epoch = -1;
        for (EpochEntry entry : epochs) {
            if (entry.startOffset() <= offset) {
                epoch = entry.epoch();
            }
        }
        return epoch;
    }

    /**
     * Kafka's {@code LeaderEpochFileCache.endOffsetFor}: for the latest epoch, the log end offset;
     * for an older one, the largest epoch at most {@code requested} and the start offset of the
     * first epoch above {@code requested}; for an epoch below every entry, {@code requested} itself
     * and the first entry's start; undefined (-1, -1) for -1, an empty cache, or an epoch above the
     * latest.
     */
    static EpochEnd endOffsetFor(List<EpochEntry> epochs, int requested, long logEndOffset) {
        if (requested < 0 || epochs.isEmpty()) {
            return UNDEFINED;
        }
        EpochEntry latest = epochs.getLast();
        if (requested == latest.epoch()) {
            return new EpochEnd(requested, logEndOffset);
        }
        EpochEntry floor = null;
        EpochEntry higher = null;
        for (EpochEntry entry : epochs) {
            if (entry.epoch() <= requested) {
                floor = entry;
            } else if (higher == null) {
                higher = entry;
            }
        }
        if (higher == null) {
            return UNDEFINED;
        }
        if (floor == null) {
            return new EpochEnd(requested, higher.startOffset());
        }
        return new EpochEnd(floor.epoch(), higher.startOffset());
    }
}
