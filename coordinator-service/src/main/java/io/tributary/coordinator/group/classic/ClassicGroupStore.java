package io.tributary.coordinator.group.classic;

import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import java.util.Map;

/**
 * Where classic groups' generations are kept across coordinator failovers. The coordinator's
 * implementation writes through the metadata Raft log (like committed offsets), so a stored
 * generation survives the loss of a minority of coordinators and a new leader loads it.
 *
 * <p>Implementations are thread-safe.
 */
public interface ClassicGroupStore {

    /**
     * Stores a group's generation, replacing what was stored for it, and returns once that is
     * durable.
     *
     * @throws OffsetStoreException when the change could not be made durable (not the leader, no
     *     quorum, a bound exceeded); the outcome may be unknown
     */
    void store(ClassicGroupRecord group) throws OffsetStoreException;

    /** Forgets a group's stored generation (the group was deleted), once that is durable. */
    void delete(String groupId) throws OffsetStoreException;

    /** Every stored group, by id: what a new leader starts from. */
    Map<String, ClassicGroupRecord> load();
}
