package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.classic.ClassicGroupRecord;
import io.tributary.coordinator.group.classic.ClassicGroupStore;
import io.tributary.coordinator.metadata.ClassicGroups;
import io.tributary.coordinator.metadata.InvalidRequestException;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The {@link ClassicGroupStore} of a coordinator: classic groups' generations in the metadata Raft
 * log and image, beside the committed offsets of {@link RaftOffsetStore}.
 *
 * <p><b>Writes</b> ({@link #store}, {@link #delete}) are one command each ({@link
 * StoreClassicGroup}, {@link DeleteClassicGroup}), only on the Raft leader (else {@link
 * OffsetStoreException.Reason#NOT_LEADER}), acknowledged once committed and applied; a new group
 * beyond {@link io.tributary.coordinator.metadata.MetadataLimits#maxClassicGroups()} or a record
 * larger than the largest command is {@link OffsetStoreException.Reason#LIMIT_EXCEEDED} (refused
 * before it is appended; nothing changes), no quorum or a timeout {@link
 * OffsetStoreException.Reason#UNAVAILABLE} with an unknown outcome (details: {@link
 * GroupStateWriter}). Both commands are idempotent, so the client's resend after a closed connection
 * is harmless.
 *
 * <p>Deleting a group's generation does not delete its committed offsets, nor the other way round:
 * DeleteGroups calls this store's {@link #delete} and {@link RaftOffsetStore#deleteGroup}.
 *
 * <p><b>Reads</b> ({@link #load}) come from this voter's latest applied image, without a Raft round
 * trip. Once {@link MetadataRaftNode#isLeader()} holds (Ratis's leader-ready: this voter applied its
 * own first entry of the term, so every entry before it), that image has every generation an earlier
 * leader stored: what a new group coordinator loads.
 *
 * <p>Thread-safety: safe for concurrent use (see {@link GroupStateWriter}).
 */
public final class RaftClassicGroupStore implements ClassicGroupStore {

    private final GroupStateWriter writer;

    /**
     * @param stateMachine this voter's state machine (reads, and the wait for applied writes)
     * @param client a client of the metadata group (writes)
     * @param isLeader whether this voter leads and takes writes now
     * @param applyWait how long a write waits for this voter to apply it when another voter
     *     committed it
     */
    public RaftClassicGroupStore(
            MetadataStateMachine stateMachine, MetadataClient client, BooleanSupplier isLeader, Duration applyWait) {
        this.writer = new GroupStateWriter(stateMachine, client, isLeader, applyWait);
    }

    /** The store of one voter, writing through {@code client}. */
    public RaftClassicGroupStore(MetadataRaftNode node, MetadataClient client) {
        this(node.stateMachine(), client, node::isLeader, RaftOffsetStore.DEFAULT_APPLY_WAIT);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if the group id is empty, or a member id is empty or twice
     *     (a bug of the caller, refused before anything is written)
     */
    @Override
    public void store(ClassicGroupRecord group) throws OffsetStoreException {
        try {
            ClassicGroups.check(group);
        } catch (InvalidRequestException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        writer.write(new StoreClassicGroup(group), "classic group '" + group.groupId() + "'");
    }

    /**
     * {@inheritDoc}
     *
     * <p>A group without a stored generation changes nothing (still a Raft write: this store does
     * not know whether a store is on its way).
     *
     * @throws IllegalArgumentException if {@code groupId} is empty
     */
    @Override
    public void delete(String groupId) throws OffsetStoreException {
        GroupStateWriter.checkGroupId(groupId);
        writer.write(new DeleteClassicGroup(groupId), "deletion of classic group '" + groupId + "'");
    }

    /** {@inheritDoc} In group id order; an unmodifiable view of one applied image, which never changes. */
    @Override
    public Map<String, ClassicGroupRecord> load() {
        return writer.image().classicGroups().asMap();
    }
}
