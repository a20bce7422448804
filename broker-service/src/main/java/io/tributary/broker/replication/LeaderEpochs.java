package io.tributary.broker.replication;

import io.tributary.broker.log.index.EpochEntry;
import java.util.List;

/**
 * Queries over a log's leader-epoch cache (entries of epoch and start offset, oldest first).
 * Stateless. The epoch-end query is {@link EpochEnd#endOffsetFor}; a leader's answer, with its current
 * epoch from where it took it, is {@link Partition#leaderEpochAt}.
 */
public final class LeaderEpochs {

    private LeaderEpochs() {}

    /** The epoch that wrote {@code offset}: the last entry starting at or below it; -1 when none. */
    public static int epochAt(List<EpochEntry> epochs, long offset) {
        int epoch = -1;
        for (EpochEntry entry : epochs) {
            if (entry.startOffset() <= offset) {
                epoch = entry.epoch();
            }
        }
        return epoch;
    }
}
