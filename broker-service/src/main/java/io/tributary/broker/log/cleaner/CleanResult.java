package io.tributary.broker.log.cleaner;

import java.util.OptionalLong;

/**
 * What one cleaning pass of one log did.
 *
 * @param outcome whether it cleaned, found nothing to clean, or was aborted by a change of the log
 * @param firstDirtyBefore the cleaner's checkpoint before the pass
 * @param checkpoint the checkpoint after the pass (the first offset not deduplicated yet)
 * @param firstUncleanableOffset where the cleanable section ended; a pass that reached it left nothing dirty
 * @param segmentsSwapped how many cleaned segments were swapped in
 * @param bytesRead bytes of batches read while cleaning (the map build excluded)
 * @param bytesWritten bytes of batches written to cleaned segments
 * @param recordsRead records read while cleaning
 * @param recordsRetained records kept
 * @param earliestTombstoneHorizonMs the earliest delete horizon of the tombstones the pass kept, if
 *     it kept any: from then on a pass over the log (even with nothing dirty) drops one
 * @param bufferUtilization the share of the offset map's slots the pass filled, 0 to 1 (Kafka's
 *     {@code CleanerStats.bufferUtilization}); 0 when it built no map
 */
public record CleanResult(
        Outcome outcome,
        long firstDirtyBefore,
        long checkpoint,
        long firstUncleanableOffset,
        int segmentsSwapped,
        long bytesRead,
        long bytesWritten,
        long recordsRead,
        long recordsRetained,
        OptionalLong earliestTombstoneHorizonMs,
        double bufferUtilization) {

    /** How a pass ended. */
    public enum Outcome {
        CLEANED,
        NOTHING_TO_CLEAN,
        ABORTED
    }

    /** Whether the pass deduplicated the whole cleanable section (no second pass needed now). */
    public boolean reachedUncleanable() {
        return checkpoint >= firstUncleanableOffset;
    }
}
