package io.tributary.broker.replication;

import io.tributary.broker.log.index.EpochEntry;
import java.util.List;

/**
 * A leader epoch and the offset where it ends in one log (Kafka's {@code OffsetAndEpoch} of {@code
 * LeaderEpochFileCache.endOffsetFor}).
 *
 * @param epoch the epoch, -1 when undefined
 * @param endOffset where it ends, -1 when undefined
 */
public record EpochEnd(int epoch, long endOffset) {

    /** No such epoch: (-1, -1). */
    public static final EpochEnd UNDEFINED = new EpochEnd(-1, -1L);

    boolean isDefined() {
        return epoch >= 0 && endOffset >= 0;
    }

    /**
     * Kafka's {@code LeaderEpochFileCache.endOffsetFor} over a log's epoch entries (oldest first):
     * the latest epoch ends at the log end; an older one is answered with the largest epoch at most
     * {@code requested} and the start of the first epoch above it; an epoch below every entry with
     * itself and the first entry's start; -1, an empty cache or an epoch above the latest is undefined.
     * The one implementation: the api package's OffsetForLeaderEpoch and Fetch divergence use it too.
     */
    public static EpochEnd endOffsetFor(List<EpochEntry> epochs, int requested, long logEndOffset) {
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
        return new EpochEnd(floor == null ? requested : floor.epoch(), higher.startOffset());
    }

    /** The epoch of the log's last batch, -1 when it has none. */
    static int latestEpoch(List<EpochEntry> epochs) {
        return epochs.isEmpty() ? -1 : epochs.getLast().epoch();
    }
}
