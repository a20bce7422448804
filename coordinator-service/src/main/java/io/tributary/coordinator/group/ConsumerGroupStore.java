package io.tributary.coordinator.group;

import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import java.util.List;
import java.util.Map;

/**
 * Where KIP-848 consumer groups are kept across coordinator failovers: their records ({@link
 * ConsumerGroupRecord}) made durable in order. The coordinator's implementation writes through the
 * metadata Raft log (like committed offsets and classic groups), so what was stored survives the
 * loss of a minority of coordinators and a new leader loads it.
 *
 * <p>Implementations are thread-safe.
 */
public interface ConsumerGroupStore {

    /**
     * Appends records of one group, in order, and returns once all of them are durable. A store may
     * make them durable in several steps (bounded commands), always in order, so a failure may
     * leave a prefix of them stored; every prefix is a state a coordinator can load.
     *
     * @throws OffsetStoreException when they could not all be made durable (not the leader, no
     *     quorum, a bound exceeded); the outcome may be unknown
     */
    void append(String groupId, List<ConsumerGroupRecord> records) throws OffsetStoreException;

    /** Forgets a group (deleted, or forgotten to make room), once that is durable. */
    void delete(String groupId) throws OffsetStoreException;

    /** Every stored group, by id: what a new leader starts from. */
    Map<String, StoredConsumerGroup> load();
}
