package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.MetadataImage;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the group stores ({@link RaftOffsetStore}, {@link RaftClassicGroupStore}) and the transaction
 * store ({@link RaftTransactionStore}) write their state through the metadata Raft log and read it
 * back from this voter's image.
 *
 * <p>A write is refused with {@link OffsetStoreException.Reason#NOT_LEADER} unless this voter leads
 * (the group coordinator is the Raft leader); otherwise it is one {@link MetadataCommand}, submitted
 * through {@link MetadataClient} and acknowledged once committed and applied by the leader. If
 * leadership moved during the call the command may have been committed by the new leader; the write
 * then waits (at most {@code applyWait}) until this voter applied it too, so that a read here after a
 * successful write sees it. A command the leader refused before appending (a bound of {@link
 * io.tributary.coordinator.metadata.MetadataLimits} exceeded, or refused when applied) is {@link
 * OffsetStoreException.Reason#LIMIT_EXCEEDED}, with the {@link MetadataException} as its cause; a group that cannot commit (no quorum, timeouts) is
 * {@link OffsetStoreException.Reason#UNAVAILABLE}, with an unknown outcome.
 *
 * <p>Thread-safety: safe for concurrent use (the image is one volatile reference; the client is
 * thread-safe).
 */
final class GroupStateWriter {

    private static final Logger log = LoggerFactory.getLogger(GroupStateWriter.class);

    private final MetadataStateMachine stateMachine;
    private final MetadataClient client;
    private final BooleanSupplier isLeader;
    private final Duration applyWait;

    GroupStateWriter(
            MetadataStateMachine stateMachine, MetadataClient client, BooleanSupplier isLeader, Duration applyWait) {
        this.stateMachine = Objects.requireNonNull(stateMachine, "stateMachine");
        this.client = Objects.requireNonNull(client, "client");
        this.isLeader = Objects.requireNonNull(isLeader, "isLeader");
        if (applyWait.isNegative()) {
            throw new IllegalArgumentException("applyWait must not be negative, got " + applyWait);
        }
        this.applyWait = applyWait;
    }

    /**
     * Refuses an empty group id before anything is written.
     *
     * @throws IllegalArgumentException if {@code groupId} is empty (the caller answers INVALID_GROUP_ID)
     */
    static void checkGroupId(String groupId) {
        if (groupId.isEmpty()) {
            throw new IllegalArgumentException("a consumer group id must not be empty");
        }
    }

    /** This voter's latest applied image. */
    MetadataImage image() {
        return stateMachine.image();
    }

    /**
     * Writes a command and returns once it is durable and (within {@code applyWait}) applied here.
     *
     * @param what what is written, for the message of an {@link OffsetStoreException.Reason#UNAVAILABLE}
     */
    void write(MetadataCommand command, String what) throws OffsetStoreException {
        if (!isLeader.getAsBoolean()) {
            throw new OffsetStoreException(
                    OffsetStoreException.Reason.NOT_LEADER, "this coordinator is not the metadata leader");
        }
        long index;
        try {
            index = client.submitForIndex(command);
        } catch (MetadataException e) {
            throw new OffsetStoreException(OffsetStoreException.Reason.LIMIT_EXCEEDED, e.getMessage(), e);
        } catch (IOException e) {
            throw new OffsetStoreException(
                    OffsetStoreException.Reason.UNAVAILABLE, what + " not replicated: " + e.getMessage(), e);
        }
        try {
            if (!stateMachine.awaitApplied(index, applyWait)) {
                log.debug("entry {} committed but not applied here within {}", index, applyWait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OffsetStoreException(
                    OffsetStoreException.Reason.UNAVAILABLE, "interrupted after the change was committed", e);
        }
    }
}
