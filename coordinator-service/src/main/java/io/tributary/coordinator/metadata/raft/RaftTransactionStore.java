package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTransaction;
import io.tributary.coordinator.metadata.MetadataCommand.StoreTransaction;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.StaleEpochException;
import io.tributary.coordinator.transaction.TransactionRecord;
import io.tributary.coordinator.transaction.TransactionStore;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link TransactionStore} of a coordinator: transactional ids' records in the metadata Raft log
 * and image (StoreTransaction, DeleteTransaction), and producer ids for them in blocks allocated to
 * this coordinator's node id (AllocateProducerIds, as brokers allocate theirs).
 *
 * <p><b>Writes</b> go through the group stores' {@link GroupStateWriter}: only on the Raft leader
 * (else {@link StoreException.Reason#NOT_LEADER}), one command each, acknowledged once committed
 * and applied; then the write waits (at most {@code applyWait}) until this voter applied it, so a
 * read here sees it. A command refused when applied
 * because another revision is stored is {@link StoreException.Reason#CONFLICT}; refused before it
 * is appended (a bound of {@link io.tributary.coordinator.metadata.MetadataLimits}) {@link
 * StoreException.Reason#LIMIT_EXCEEDED}; no quorum or a timeout {@link
 * StoreException.Reason#UNAVAILABLE}, with an unknown outcome: the command may still be applied
 * later, where its compare-and-set refuses it if anything was stored meanwhile.
 *
 * <p><b>Reads</b> come from this voter's latest applied image, without a Raft round trip; once this
 * voter is leader-ready it holds every record an earlier leader stored.
 *
 * <p>Thread-safety: safe for concurrent use; producer id allocation is synchronized.
 */
public final class RaftTransactionStore implements TransactionStore, TransactionStore.ProducerIds {

    private static final Logger log = LoggerFactory.getLogger(RaftTransactionStore.class);

    private final GroupStateWriter writer;
    private final MetadataClient client;
    private final BooleanSupplier isLeader;
    private final int nodeId;
    private final int blockSize;
    private long nextId;
    private long blockEnd;

    /**
     * @param stateMachine this voter's state machine (reads, and the wait for applied writes)
     * @param client a client of the metadata group (writes)
     * @param isLeader whether this voter leads and takes writes now
     * @param applyWait how long a write waits for this voter to apply it
     * @param nodeId this coordinator's Kafka node id (producer id blocks are allocated to it)
     * @param blockSize how many producer ids one allocation takes (at most the cluster's
     *     {@code max-producer-ids-per-block})
     */
    public RaftTransactionStore(
            MetadataStateMachine stateMachine,
            MetadataClient client,
            BooleanSupplier isLeader,
            Duration applyWait,
            int nodeId,
            int blockSize) {
        this.writer = new GroupStateWriter(stateMachine, client, isLeader, applyWait);
        this.client = Objects.requireNonNull(client, "client");
        this.isLeader = Objects.requireNonNull(isLeader, "isLeader");
        if (blockSize < 1) {
            throw new IllegalArgumentException("need blockSize >= 1, got " + blockSize);
        }
        this.nodeId = nodeId;
        this.blockSize = blockSize;
    }

    @Override
    public Optional<TransactionRecord> get(String transactionalId) {
        return writer.image().transactions().get(transactionalId);
    }

    @Override
    public Collection<TransactionRecord> all() {
        return writer.image().transactions().asMap().values();
    }

    @Override
    public void store(TransactionRecord record) throws StoreException {
        write(new StoreTransaction(record), "transactional id '" + record.transactionalId() + "'");
    }

    @Override
    public void delete(String transactionalId, long revision) throws StoreException {
        write(new DeleteTransaction(transactionalId, revision), "expiry of transactional id '" + transactionalId + "'");
    }

    @Override
    public synchronized long next() throws StoreException {
        if (nextId == blockEnd) {
            if (!isLeader.getAsBoolean()) {
                throw new StoreException(
                        StoreException.Reason.NOT_LEADER, "this coordinator is not the metadata leader");
            }
            MetadataClient.ProducerIdBlock block;
            try {
                block = client.allocateProducerIds(nodeId, blockSize);
            } catch (MetadataException | IOException e) {
                throw new StoreException(
                        StoreException.Reason.UNAVAILABLE, "no producer id block allocated: " + e.getMessage(), e);
            }
            nextId = block.firstProducerId();
            blockEnd = nextId + block.count();
            log.info("transaction coordinator: producer ids {} to {}", nextId, blockEnd - 1);
        }
        return nextId++;
    }

    private void write(MetadataCommand command, String what) throws StoreException {
        try {
            writer.write(command, what);
        } catch (OffsetStoreException e) {
            StoreException.Reason reason = switch (e.reason()) {
                case NOT_LEADER -> StoreException.Reason.NOT_LEADER;
                case UNAVAILABLE -> StoreException.Reason.UNAVAILABLE;
                // The writer reports every refusal of the command as a bound; a stale revision is a conflict.
                case LIMIT_EXCEEDED ->
                    e.getCause() instanceof StaleEpochException
                            ? StoreException.Reason.CONFLICT
                            : StoreException.Reason.LIMIT_EXCEEDED;
            };
            throw new StoreException(reason, e.getMessage(), e);
        }
    }
}
