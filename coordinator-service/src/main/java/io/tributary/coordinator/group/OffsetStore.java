package io.tributary.coordinator.group;

import io.tributary.coordinator.metadata.TopicPartition;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The committed offsets of consumer groups. The
 * coordinator's implementation replicates every change through the metadata Raft log before it
 * returns, so a commit that was acknowledged survives the loss of a minority of coordinators; group
 * membership is not stored here (it is in the {@link ConsumerGroupStore}).
 *
 * <p>Offsets are keyed by topic name and partition. Reads see every change this process applied,
 * which on the Raft leader includes every change it acknowledged.
 *
 * <p>Implementations are thread-safe. Validation of who may commit (member ids and epochs) is the
 * caller's job; a store only checks its own bounds.
 */
public interface OffsetStore {

    /**
     * A committed offset.
     *
     * @param offset the next offset the group should read
     * @param leaderEpoch the leader epoch of the last record consumed, or -1 when unknown
     * @param metadata the client's opaque string, possibly empty, never null
     * @param commitTimestampMs when the coordinator accepted the commit (milliseconds since the epoch)
     */
    record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestampMs) {
        public CommittedOffset {
            Objects.requireNonNull(metadata, "metadata");
            if (offset < 0) {
                throw new IllegalArgumentException("offset must be 0 or more, got " + offset);
            }
        }
    }

    /**
     * Stores the offsets of one group, all or none, and returns once the change is durable.
     *
     * @throws OffsetStoreException when the change could not be made durable (not the leader, no
     *     quorum, a bound exceeded); the outcome may be unknown, and the caller answers with a
     *     retriable error
     */
    void commit(String groupId, Map<TopicPartition, CommittedOffset> offsets) throws OffsetStoreException;

    /** The committed offsets of a group; empty when it has none. */
    Map<TopicPartition, CommittedOffset> fetch(String groupId);

    /** Every group with at least one committed offset. */
    Set<String> groups();

    /** Removes every committed offset of a group, and returns once that is durable. */
    void deleteGroup(String groupId) throws OffsetStoreException;

    /** Removes the committed offsets of some partitions of a group, and returns once that is durable. */
    void deleteOffsets(String groupId, Collection<TopicPartition> partitions) throws OffsetStoreException;

    /** A change to committed offsets that was refused or whose outcome is unknown. */
    final class OffsetStoreException extends Exception {

        /** Why a change failed, which decides the Kafka error a handler answers with. */
        public enum Reason {
            /** This process is not the Raft leader: the client should find the coordinator again. */
            NOT_LEADER,
            /** No quorum, or a timeout: the outcome is unknown; the client retries. */
            UNAVAILABLE,
            /** A bound (offsets per group, number of groups, metadata size) would be exceeded. */
            LIMIT_EXCEEDED
        }

        private final Reason reason;

        public OffsetStoreException(Reason reason, String message, Throwable cause) {
            super(message, cause);
            this.reason = Objects.requireNonNull(reason, "reason");
        }

        public OffsetStoreException(Reason reason, String message) {
            this(reason, message, null);
        }

        public Reason reason() {
            return reason;
        }
    }
}
