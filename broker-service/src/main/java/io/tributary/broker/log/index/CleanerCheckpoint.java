package io.tributary.broker.log.index;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The log cleaner's checkpoint of one partition, in column family {@code partition_state} under
 * the partition's prefix and the byte {@code 0x03} ({@link PartitionIndex}).
 *
 * <h2>Value encoding (big-endian)</h2>
 *
 * <pre>
 *  0  firstDirtyOffset        int64   the first offset the cleaner has not deduplicated yet
 *  8  earliestDeleteHorizon   int64   the earliest delete horizon (ms since the epoch) of the batches
 *                                     holding tombstones that the last pass kept, -1 when it kept none
 * </pre>
 *
 * 16 bytes. The horizon is a copy of what the cleaned batches themselves carry (attribute bit 6 and
 * their base timestamp, KIP-534; see {@code log.cleaner.Cleaner}); the log keeps it so that after
 * a restart the cleaner still knows when a pass would drop a tombstone without reading every
 * batch. A value of 8 bytes (written before the horizon was kept) is read as that offset with no
 * known horizon: the tombstones then go at the log's next pass, as before.
 *
 * @param firstDirtyOffset the first offset the cleaner has not deduplicated yet
 * @param earliestDeleteHorizonMs the earliest delete horizon of the kept tombstones, if any was kept
 */
public record CleanerCheckpoint(long firstDirtyOffset, OptionalLong earliestDeleteHorizonMs) {

    /** Bytes of the encoding. */
    static final int BYTES = 16;

    private static final long NO_HORIZON = -1;

    public CleanerCheckpoint {
        Objects.requireNonNull(earliestDeleteHorizonMs, "earliestDeleteHorizonMs");
        if (firstDirtyOffset < 0) {
            throw new IllegalArgumentException("negative first dirty offset " + firstDirtyOffset);
        }
        if (earliestDeleteHorizonMs.isPresent() && earliestDeleteHorizonMs.getAsLong() < 0) {
            throw new IllegalArgumentException("negative delete horizon " + earliestDeleteHorizonMs);
        }
    }

    /** A checkpoint with no kept tombstone. */
    public static CleanerCheckpoint at(long firstDirtyOffset) {
        return new CleanerCheckpoint(firstDirtyOffset, OptionalLong.empty());
    }

    byte[] encode() {
        return ByteBuffer.allocate(BYTES)
                .putLong(firstDirtyOffset)
                .putLong(earliestDeleteHorizonMs.orElse(NO_HORIZON))
                .array();
    }

    /** Decodes a value of 16 bytes, or of 8 (an older value: the offset alone); empty otherwise. */
    static Optional<CleanerCheckpoint> decode(byte[] value) {
        if (value == null || (value.length != Long.BYTES && value.length != BYTES)) {
            return Optional.empty();
        }
        ByteBuffer buffer = ByteBuffer.wrap(value);
        long offset = buffer.getLong();
        long horizon = value.length == BYTES ? buffer.getLong() : NO_HORIZON;
        return Optional.of(
                new CleanerCheckpoint(offset, horizon < 0 ? OptionalLong.empty() : OptionalLong.of(horizon)));
    }
}
