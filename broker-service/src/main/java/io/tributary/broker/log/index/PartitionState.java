package io.tributary.broker.log.index;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What a partition log keeps besides its segments, in column family {@code partition_state}.
 *
 * <h2>Value encoding (big-endian), version 1</h2>
 *
 * <pre>
 *  0  version          int8    1
 *  1  logStartOffset   int64   the first offset readers may ask for
 *  9  recoveryPoint    int64   every batch below it is fsynced and indexed durably
 * 17  shutdown         int8    1 = clean (log end == recoveryPoint, no rescan), 0 = not clean
 * 18  epochCount       int32   n, at least 0
 * 22  n times:
 *       epoch          int32   a leader epoch, strictly increasing over the entries
 *       startOffset    int64   the first offset that epoch wrote, non-decreasing over the entries
 * </pre>
 *
 * The value is {@code 22 + 12 n} bytes. A reader rejects another version byte: a later version
 * (with, for example, producer-state snapshots) adds a new layout rather than changing this one.
 *
 * @param logStartOffset the first offset readers may ask for
 * @param recoveryPoint every batch below it is durable on disk, and so are its index entries
 * @param shutdown whether the log was closed cleanly, so that opening it needs no rescan
 * @param leaderEpochs the leader-epoch cache, oldest first
 */
public record PartitionState(
        long logStartOffset, long recoveryPoint, Shutdown shutdown, List<EpochEntry> leaderEpochs) {

    public static final byte VERSION = 1;
    private static final int FIXED_BYTES = 22;
    private static final int EPOCH_ENTRY_BYTES = 12;

    /** How the log was last closed. */
    public enum Shutdown {
        CLEAN,
        UNCLEAN
    }

    public PartitionState {
        leaderEpochs = List.copyOf(leaderEpochs);
        if (logStartOffset < 0 || recoveryPoint < 0) {
            throw new IllegalArgumentException("negative offset in " + logStartOffset + "/" + recoveryPoint);
        }
        for (int i = 1; i < leaderEpochs.size(); i++) {
            if (leaderEpochs.get(i).epoch() <= leaderEpochs.get(i - 1).epoch()
                    || leaderEpochs.get(i).startOffset()
                            < leaderEpochs.get(i - 1).startOffset()) {
                throw new IllegalArgumentException("leader epochs out of order: " + leaderEpochs);
            }
        }
    }

    public PartitionState withShutdown(Shutdown value) {
        return new PartitionState(logStartOffset, recoveryPoint, value, leaderEpochs);
    }

    byte[] encode() {
        ByteBuffer buffer = ByteBuffer.allocate(FIXED_BYTES + EPOCH_ENTRY_BYTES * leaderEpochs.size());
        buffer.put(VERSION);
        buffer.putLong(logStartOffset);
        buffer.putLong(recoveryPoint);
        buffer.put(shutdown == Shutdown.CLEAN ? (byte) 1 : (byte) 0);
        buffer.putInt(leaderEpochs.size());
        for (EpochEntry entry : leaderEpochs) {
            buffer.putInt(entry.epoch());
            buffer.putLong(entry.startOffset());
        }
        return buffer.array();
    }

    static PartitionState decode(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (bytes.length < FIXED_BYTES || buffer.get() != VERSION) {
            throw new IllegalStateException("unknown partition-state encoding (" + bytes.length + " bytes, version "
                    + (bytes.length > 0 ? bytes[0] : -1) + ")");
        }
        long logStart = buffer.getLong();
        long recoveryPoint = buffer.getLong();
        byte shutdown = buffer.get();
        int count = buffer.getInt();
        if (count < 0 || bytes.length != FIXED_BYTES + EPOCH_ENTRY_BYTES * count || shutdown > 1 || shutdown < 0) {
            throw new IllegalStateException("malformed partition state of " + bytes.length + " bytes");
        }
        List<EpochEntry> epochs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            epochs.add(new EpochEntry(buffer.getInt(), buffer.getLong()));
        }
        return new PartitionState(logStart, recoveryPoint, shutdown == 1 ? Shutdown.CLEAN : Shutdown.UNCLEAN, epochs);
    }
}
