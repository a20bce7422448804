package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.group.OffsetStore;
import io.tributary.coordinator.metadata.CommittedOffset;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteGroupOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteOffsets;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.TopicPartition;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link OffsetStore} of a coordinator: committed offsets in the metadata Raft log and image.
 *
 * <p><b>Writes</b> ({@link #commit}, {@link #deleteGroup}, {@link #deleteOffsets}) are refused with
 * {@link OffsetStoreException.Reason#NOT_LEADER} unless this voter leads (the group coordinator is
 * the Raft leader); otherwise they become one {@link MetadataCommand} each, submitted through {@link
 * MetadataClient} and acknowledged once committed and applied by the leader. If leadership moved
 * during the call the command may have been committed by the new leader; this store then waits (at
 * most {@code applyWait}) until this voter applied it too, so that a read here after a successful
 * write sees it. A command the leader refused before appending (a bound of {@link
 * io.tributary.coordinator.metadata.MetadataLimits} exceeded) is {@link
 * OffsetStoreException.Reason#LIMIT_EXCEEDED}; a group that cannot commit (no quorum, timeouts) is
 * {@link OffsetStoreException.Reason#UNAVAILABLE}, with an unknown outcome.
 *
 * <p>A commit's offsets of partitions that do not exist when it is applied (the topic was deleted
 * meanwhile) are dropped, so the caller checks topics first to answer UNKNOWN_TOPIC_OR_PARTITION.
 *
 * <p><b>Reads</b> come from this voter's latest applied image, without a Raft round trip.
 *
 * <p>Thread-safety: safe for concurrent use (the image is one volatile reference; the client is
 * thread-safe).
 */
public final class RaftOffsetStore implements OffsetStore {

    /** The default longest wait for this voter to apply a write another voter committed (1 s). */
    public static final Duration DEFAULT_APPLY_WAIT = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(RaftOffsetStore.class);

    private final MetadataStateMachine stateMachine;
    private final MetadataClient client;
    private final BooleanSupplier isLeader;
    private final Duration applyWait;

    /**
     * @param stateMachine this voter's state machine (reads, and the wait for applied writes)
     * @param client a client of the metadata group (writes)
     * @param isLeader whether this voter leads and takes writes now
     * @param applyWait how long a write waits for this voter to apply it when another voter
     *     committed it
     */
    public RaftOffsetStore(
            MetadataStateMachine stateMachine, MetadataClient client, BooleanSupplier isLeader, Duration applyWait) {
        this.stateMachine = Objects.requireNonNull(stateMachine, "stateMachine");
        this.client = Objects.requireNonNull(client, "client");
        this.isLeader = Objects.requireNonNull(isLeader, "isLeader");
        if (applyWait.isNegative()) {
            throw new IllegalArgumentException("applyWait must not be negative, got " + applyWait);
        }
        this.applyWait = applyWait;
    }

    /** The store of one voter, writing through {@code client}. */
    public RaftOffsetStore(MetadataRaftNode node, MetadataClient client) {
        this(node.stateMachine(), client, node::isLeader, DEFAULT_APPLY_WAIT);
    }

    /**
     * {@inheritDoc}
     *
     * <p>An empty {@code offsets} changes nothing and returns at once.
     *
     * @throws IllegalArgumentException if {@code groupId} is empty (the caller answers INVALID_GROUP_ID)
     */
    @Override
    public void commit(String groupId, Map<TopicPartition, CommittedOffset> offsets) throws OffsetStoreException {
        checkGroupId(groupId);
        if (offsets.isEmpty()) {
            return;
        }
        Map<TopicPartition, io.tributary.coordinator.metadata.CommittedOffset> stored = new TreeMap<>();
        offsets.forEach((tp, o) -> stored.put(
                tp,
                new io.tributary.coordinator.metadata.CommittedOffset(
                        o.offset(), o.leaderEpoch(), o.metadata(), o.commitTimestampMs())));
        write(new CommitOffsets(groupId, stored));
    }

    @Override
    public Map<TopicPartition, CommittedOffset> fetch(String groupId) {
        var stored = stateMachine.image().committedOffsets().of(groupId);
        Map<TopicPartition, CommittedOffset> offsets = new LinkedHashMap<>();
        stored.forEach((tp, o) ->
                offsets.put(tp, new CommittedOffset(o.offset(), o.leaderEpoch(), o.metadata(), o.commitTimestampMs())));
        return java.util.Collections.unmodifiableMap(offsets);
    }

    @Override
    public Set<String> groups() {
        return Set.copyOf(stateMachine.image().committedOffsets().groups());
    }

    /**
     * {@inheritDoc}
     *
     * <p>A group without offsets changes nothing (still a Raft write: this store does not know
     * whether a commit is on its way).
     */
    @Override
    public void deleteGroup(String groupId) throws OffsetStoreException {
        checkGroupId(groupId);
        write(new DeleteGroupOffsets(groupId));
    }

    @Override
    public void deleteOffsets(String groupId, Collection<TopicPartition> partitions) throws OffsetStoreException {
        checkGroupId(groupId);
        if (partitions.isEmpty()) {
            return;
        }
        write(new DeleteOffsets(groupId, List.copyOf(partitions)));
    }

    private static void checkGroupId(String groupId) {
        if (groupId.isEmpty()) {
            throw new IllegalArgumentException("a consumer group id must not be empty");
        }
    }

    private void write(MetadataCommand command) throws OffsetStoreException {
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
                    OffsetStoreException.Reason.UNAVAILABLE, "committed offsets not replicated: " + e.getMessage(), e);
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
