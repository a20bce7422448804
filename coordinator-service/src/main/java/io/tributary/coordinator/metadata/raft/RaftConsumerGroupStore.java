package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.group.ConsumerGroupRecord;
import io.tributary.coordinator.group.ConsumerGroupStore;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.StoredConsumerGroup;
import io.tributary.coordinator.metadata.ConsumerGroupCodec;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteConsumerGroup;
import io.tributary.coordinator.metadata.MetadataCommand.UpdateConsumerGroup;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The {@link ConsumerGroupStore} of a coordinator: KIP-848 consumer groups' records in the metadata
 * Raft log and image, beside committed offsets ({@link RaftOffsetStore}) and classic groups ({@link
 * RaftClassicGroupStore}).
 *
 * <p><b>Writes</b>: {@link #append} sends the records of one change as {@link UpdateConsumerGroup}
 * commands, as few as fit: records are packed in order into commands of at most {@code
 * maxCommandBytes} (the limit the leader checks before it appends), each waited for before the
 * next is sent, so a failure leaves a prefix of them stored (a state the group coordinator loads:
 * {@link ConsumerGroupRecord}). One record larger than a command by itself is {@link
 * OffsetStoreException.Reason#LIMIT_EXCEEDED} before anything is sent. {@link #delete} is one {@link
 * DeleteConsumerGroup}. Only on the Raft leader (else {@link OffsetStoreException.Reason#NOT_LEADER});
 * a new group beyond {@link io.tributary.coordinator.metadata.MetadataLimits#maxConsumerGroups()} is
 * {@link OffsetStoreException.Reason#LIMIT_EXCEEDED}, no quorum or a timeout {@link
 * OffsetStoreException.Reason#UNAVAILABLE} with an unknown outcome (details: {@link
 * GroupStateWriter}). Every record replaces what it names, so a resent command is harmless.
 *
 * <p>Why per-member records and not one command per group (as classic groups): a group of 1,000
 * members owning 10 partitions each is about 300 KB of state, and every member's heartbeat that
 * moves it on would write all of it again (about 300 MB of Raft log per rebalance of that group);
 * per-member records write what changed (a member's assignment is tens of bytes per topic), and a
 * group of any size fits, since no record holds more than one member.
 *
 * <p><b>Reads</b> ({@link #load}) come from this voter's latest applied image; on a leader that is
 * leader-ready it has every record an earlier leader stored.
 *
 * <p>Thread-safety: safe for concurrent use; callers keep one group's appends in order themselves.
 */
public final class RaftConsumerGroupStore implements ConsumerGroupStore {

    /** A command's bytes besides its records: version, type, group id length, record count. */
    private static final int COMMAND_OVERHEAD_BYTES = 1 + 1 + 4 + 4;

    private final GroupStateWriter writer;
    private final int maxCommandBytes;

    /**
     * @param stateMachine this voter's state machine (reads, and the wait for applied writes)
     * @param client a client of the metadata group (writes)
     * @param isLeader whether this voter leads and takes writes now
     * @param applyWait how long a write waits for this voter to apply it when another voter
     *     committed it
     * @param maxCommandBytes the largest command the leader accepts
     */
    public RaftConsumerGroupStore(
            MetadataStateMachine stateMachine,
            MetadataClient client,
            BooleanSupplier isLeader,
            Duration applyWait,
            int maxCommandBytes) {
        this.writer = new GroupStateWriter(stateMachine, client, isLeader, applyWait);
        this.maxCommandBytes = maxCommandBytes;
    }

    /** The store of one voter, writing through {@code client}. */
    public RaftConsumerGroupStore(MetadataRaftNode node, MetadataClient client) {
        this(
                node.stateMachine(),
                client,
                node::isLeader,
                RaftOffsetStore.DEFAULT_APPLY_WAIT,
                node.config().limits().maxCommandBytes());
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if the group id is empty or there is no record
     */
    @Override
    public void append(String groupId, List<ConsumerGroupRecord> records) throws OffsetStoreException {
        GroupStateWriter.checkGroupId(groupId);
        if (records.isEmpty()) {
            throw new IllegalArgumentException("no record to append to consumer group '" + groupId + "'");
        }
        int room = maxCommandBytes - COMMAND_OVERHEAD_BYTES - groupId.getBytes(StandardCharsets.UTF_8).length;
        List<List<ConsumerGroupRecord>> commands = new ArrayList<>();
        List<ConsumerGroupRecord> current = new ArrayList<>();
        int used = 0;
        for (ConsumerGroupRecord record : records) {
            int size = ConsumerGroupCodec.encodedSize(record);
            if (size > room) {
                throw new OffsetStoreException(
                        OffsetStoreException.Reason.LIMIT_EXCEEDED,
                        "consumer group '%s': a record of %d bytes does not fit in a command of %d bytes (%s)"
                                .formatted(
                                        groupId,
                                        size,
                                        maxCommandBytes,
                                        record.getClass().getSimpleName()));
            }
            if (used + size > room) {
                commands.add(current);
                current = new ArrayList<>();
                used = 0;
            }
            current.add(record);
            used += size;
        }
        commands.add(current);
        for (int i = 0; i < commands.size(); i++) {
            writer.write(
                    new UpdateConsumerGroup(groupId, commands.get(i)),
                    "consumer group '%s' (command %d of %d)".formatted(groupId, i + 1, commands.size()));
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code groupId} is empty
     */
    @Override
    public void delete(String groupId) throws OffsetStoreException {
        GroupStateWriter.checkGroupId(groupId);
        writer.write(new DeleteConsumerGroup(groupId), "deletion of consumer group '" + groupId + "'");
    }

    /** {@inheritDoc} In group id order; an unmodifiable view of one applied image, which never changes. */
    @Override
    public Map<String, StoredConsumerGroup> load() {
        return writer.image().consumerGroups().asMap();
    }
}
