package io.tributary.coordinator.metadata;

import java.util.Objects;

/**
 * One committed offset of a consumer group, as the metadata state machine stores it. Every field is
 * resolved before the command is appended (the timestamp too), so applying reads no clock.
 *
 * @param offset the next offset the group should read, 0 or more
 * @param leaderEpoch the leader epoch of the last record consumed, or -1 when unknown
 * @param metadata the client's opaque string, possibly empty
 * @param commitTimestampMs when the coordinator leader accepted the commit (milliseconds since the epoch)
 */
public record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestampMs) {

    public CommittedOffset {
        Objects.requireNonNull(metadata, "metadata");
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be 0 or more, got " + offset);
        }
    }
}
