package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.group.OffsetStore;
import io.tributary.coordinator.metadata.CommittedOffset;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteGroupOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteOffsets;
import io.tributary.coordinator.metadata.TopicPartition;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * The {@link OffsetStore} of a coordinator: committed offsets in the metadata Raft log and image.
 *
 * <p><b>Writes</b> ({@link #commit}, {@link #deleteGroup}, {@link #deleteOffsets}) are one {@link
 * MetadataCommand} each, only on the Raft leader (else {@link OffsetStoreException.Reason#NOT_LEADER}),
 * acknowledged once committed and applied; a bound of {@link
 * io.tributary.coordinator.metadata.MetadataLimits} exceeded is {@link
 * OffsetStoreException.Reason#LIMIT_EXCEEDED}, no quorum or a timeout {@link
 * OffsetStoreException.Reason#UNAVAILABLE} (details: {@link GroupStateWriter}).
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

    private final GroupStateWriter writer;

    /**
     * @param stateMachine this voter's state machine (reads, and the wait for applied writes)
     * @param client a client of the metadata group (writes)
     * @param isLeader whether this voter leads and takes writes now
     * @param applyWait how long a write waits for this voter to apply it when another voter
     *     committed it
     */
    public RaftOffsetStore(
            MetadataStateMachine stateMachine, MetadataClient client, BooleanSupplier isLeader, Duration applyWait) {
        this.writer = new GroupStateWriter(stateMachine, client, isLeader, applyWait);
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
        GroupStateWriter.checkGroupId(groupId);
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
        var stored = writer.image().committedOffsets().of(groupId);
        Map<TopicPartition, CommittedOffset> offsets = new LinkedHashMap<>();
        stored.forEach((tp, o) ->
                offsets.put(tp, new CommittedOffset(o.offset(), o.leaderEpoch(), o.metadata(), o.commitTimestampMs())));
        return java.util.Collections.unmodifiableMap(offsets);
    }

    @Override
    public Set<String> groups() {
        return Set.copyOf(writer.image().committedOffsets().groups());
    }

    /**
     * {@inheritDoc}
     *
     * <p>A group without offsets changes nothing (still a Raft write: this store does not know
     * whether a commit is on its way).
     */
    @Override
    public void deleteGroup(String groupId) throws OffsetStoreException {
        GroupStateWriter.checkGroupId(groupId);
        write(new DeleteGroupOffsets(groupId));
    }

    @Override
    public void deleteOffsets(String groupId, Collection<TopicPartition> partitions) throws OffsetStoreException {
        GroupStateWriter.checkGroupId(groupId);
        if (partitions.isEmpty()) {
            return;
        }
        write(new DeleteOffsets(groupId, List.copyOf(partitions)));
    }

    private void write(MetadataCommand command) throws OffsetStoreException {
        writer.write(command, "committed offsets");
    }
}
